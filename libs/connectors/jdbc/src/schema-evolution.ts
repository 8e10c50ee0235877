import { describeColumnChange, describeSchemaChange, type ChangedColumn, type ColumnChange, type SchemaChangeEvent } from '@tideway/api';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { describeDbError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';
import type { FieldIde } from './sink-options.js';
import type { SinkTarget } from './sink-target.js';

/**
 * Schema evolution on a Jdbc target: the DDL that makes the target table follow a source
 * table's column changes, in the target's dialect (PostgreSQL or MySQL/MariaDB). Same-dialect
 * changes keep the source's own type and default text (so MySQL -> MySQL targets DESCRIBE like
 * their source); across dialects the SeaTunnel type decides the column type, and defaults are
 * translated when they are literals or the current time. Every change is idempotent: a change
 * the target already shows (another writer of the table applied it, or a replay after a
 * restore) is skipped, so every parallel writer of a table may apply the same event.
 */

function applyIde(name: string, ide: FieldIde): string {
  return ide === 'UPPERCASE' ? name.toUpperCase() : ide === 'LOWERCASE' ? name.toLowerCase() : name;
}

const CURRENT_TIME = /^(current_timestamp|now|localtimestamp|localtime)\s*(\(\s*\d*\s*\))?$/i;

/** A default expression of one dialect in another's words; undefined when it has no safe translation. */
export function translateDefault(expr: string, from: string, to: string): string | undefined {
  let e = expr.trim();
  if (from === to) return e;
  if (from === 'postgresql') e = e.replace(/::[a-z_ ]+(\([\d, ]*\))?(\[\])?$/i, '').trim();
  if (/^\(.*\)$/.test(e)) e = e.slice(1, -1).trim();
  if (/^null$/i.test(e) || /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(e)) return e;
  if (/^(true|false)$/i.test(e)) return to === 'postgresql' ? e.toLowerCase() : e.toLowerCase() === 'true' ? '1' : '0';
  if (CURRENT_TIME.test(e)) return 'CURRENT_TIMESTAMP';
  const q = /^(['"])(.*)\1$/s.exec(e);
  if (q) {
    // MySQL strings may escape with backslashes; PostgreSQL standard strings do not.
    const raw = from === 'mysql' ? q[2].replace(/\\(.)/g, '$1').replace(new RegExp(`${q[1]}${q[1]}`, 'g'), q[1]) : q[2].replace(/''/g, "'");
    return `'${raw.replace(/'/g, "''")}'`;
  }
  return undefined;
}

/** The target's column names now. */
async function targetColumns(conn: JdbcConnection, table: string): Promise<Set<string>> {
  return new Set((await conn.describe(`SELECT * FROM ${table} WHERE 1 = 0`)).map((c) => c.name));
}

/** Whether the target already shows the change (so running it again would only fail). */
function shows(change: ColumnChange, cols: ReadonlySet<string>, ide: FieldIde): boolean {
  switch (change.kind) {
    case 'add':
      return cols.has(applyIde(change.column.name, ide));
    case 'drop':
      return !cols.has(applyIde(change.name, ide));
    case 'rename':
      return cols.has(applyIde(change.to, ide)) && !cols.has(applyIde(change.from, ide));
    case 'modify':
      return false;
  }
}

/** The column type, NOT NULL and DEFAULT of a definition in the target's dialect. */
function definition(
  conn: JdbcConnection,
  column: ChangedColumn,
  key: boolean,
  tableId: string,
  change: ColumnChange,
): { type: string; notNull: boolean; defaultSql?: string } {
  const native = column.native;
  const same = native !== undefined && native.dialect === conn.dialect;
  const type = same ? native.type : conn.columnType(column.type, key);
  let defaultSql: string | undefined;
  if (native?.defaultExpression !== undefined) {
    defaultSql = translateDefault(native.defaultExpression, native.dialect, conn.dialect);
    if (defaultSql === undefined) {
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${tableId}: ${describeColumnChange(change)} has default ${native.defaultExpression}, which has no ${conn.dialect === 'postgresql' ? 'PostgreSQL' : 'MySQL'} equivalent the sink can write`,
      );
    }
  }
  return { type, notNull: !column.nullable || key, ...(defaultSql !== undefined ? { defaultSql } : {}) };
}

/** The statements for one change on `table` in the target's dialect. */
function statements(
  conn: JdbcConnection,
  table: string,
  change: ColumnChange,
  keys: ReadonlySet<string>,
  ide: FieldIde,
  tableId: string,
): string[] {
  const q = (n: string) => conn.quote(applyIde(n, ide));
  const pg = conn.dialect === 'postgresql';
  const position = (c: { after?: string; first?: boolean }) =>
    pg ? '' : c.first ? ' FIRST' : c.after !== undefined ? ` AFTER ${q(c.after)}` : '';
  switch (change.kind) {
    case 'add': {
      const d = definition(conn, change.column, false, tableId, change);
      return [
        `ALTER TABLE ${table} ADD COLUMN ${q(change.column.name)} ${d.type}${d.notNull ? ' NOT NULL' : ''}${d.defaultSql !== undefined ? ` DEFAULT ${d.defaultSql}` : ''}${position(change)}`,
      ];
    }
    case 'drop':
      return [`ALTER TABLE ${table} DROP COLUMN ${q(change.name)}`];
    case 'rename':
      return [`ALTER TABLE ${table} RENAME COLUMN ${q(change.from)} TO ${q(change.to)}`];
    case 'modify': {
      const d = definition(conn, change.column, keys.has(change.name), tableId, change);
      const col = q(change.name);
      if (!pg)
        return [
          `ALTER TABLE ${table} MODIFY COLUMN ${col} ${d.type}${d.notNull ? ' NOT NULL' : ' NULL'}${d.defaultSql !== undefined ? ` DEFAULT ${d.defaultSql}` : ''}${position(change)}`,
        ];
      return [
        `ALTER TABLE ${table} ALTER COLUMN ${col} TYPE ${d.type} USING ${col}::${d.type}`,
        `ALTER TABLE ${table} ALTER COLUMN ${col} ${d.notNull ? 'SET' : 'DROP'} NOT NULL`,
        `ALTER TABLE ${table} ALTER COLUMN ${col} ${d.defaultSql !== undefined ? `SET DEFAULT ${d.defaultSql}` : 'DROP DEFAULT'}`,
      ];
    }
  }
}

/**
 * Alters the target of `old` (the table as the sink wrote it so far) for `event`. Runs on its
 * own session: DDL must not end (MySQL) or wait for (PostgreSQL) the writer's transaction.
 */
export async function alterTarget(
  conn: JdbcConnection,
  old: SinkTarget,
  event: SchemaChangeEvent,
  ide: FieldIde,
  place: Place,
): Promise<void> {
  if (conn.dialect === 'sqlite' || conn.dialect === 'firebird') {
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `table ${event.tableId}: schema changes (${describeSchemaChange(event)}) are not supported for ${conn.dialect === 'sqlite' ? 'SQLite' : 'Firebird'} targets`,
      { place },
    );
  }
  const table = conn.tableSql(old.ref!);
  const keys = new Set(old.keyIndexes.map((i) => old.input.columns[i].name));
  for (const change of event.changes) {
    let cols = await targetColumns(conn, table);
    if (shows(change, cols, ide)) continue;
    for (const sql of statements(conn, table, change, keys, ide, event.tableId)) {
      try {
        await conn.execute(sql);
      } catch (err) {
        // Another writer of the table may have applied it a moment ago.
        cols = await targetColumns(conn, table).catch(() => cols);
        if (shows(change, cols, ide)) break;
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `table ${event.tableId}: the Jdbc sink could not apply ${describeColumnChange(change)} to ${table}: ${describeDbError(err)}`,
          { place, cause: err },
        );
      }
    }
  }
}
