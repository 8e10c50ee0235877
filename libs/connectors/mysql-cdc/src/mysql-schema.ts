import { applyColumnChanges, type ChangedColumn, type ColumnChange, type SchemaChangeEvent } from '@tideway/api';
import { ErrorCode, TidewayError, type Place, textOf } from '@tideway/common';
import { inCatalogOrder, recordOf, type SchemaRecord, type TrackedTableOf } from '@tideway/connector-cdc-common';
import type { JdbcConnection } from '@tideway/connector-jdbc';
import { parseDdl, type ColumnDefinition, type DdlColumnChange } from './mysql-ddl.js';
import type { MySqlCapturedTable } from './mysql-catalog.js';
import { isTextType, mysqlTypeOfText } from './mysql-type-text.js';

/** A column as the binlog decoder needs it (zongji's INFORMATION_SCHEMA row) and as the table has it now. */
export interface TrackedColumn {
  readonly name: string;
  /** COLUMN_TYPE, e.g. `int(11) unsigned`, `varchar(64)`, `enum('a','b')`. */
  readonly columnType: string;
  readonly charset: string | null;
  readonly collation: string | null;
}

/** One captured table's schema at a binlog position. */
export interface TrackedTable extends TrackedTableOf<TrackedColumn> {
  readonly database: string;
  readonly table: string;
  /** Character set of text columns a DDL adds without naming one. */
  readonly defaultCharset: string;
}

/**
 * MySQL-CDC's record of the captured tables' schemas at a binlog position (plain data: it is
 * checkpointed in the stream split). The binlog's row events carry no column names or complete
 * types, and a restart reads events written before later DDL, so rows are decoded with the
 * schema as it was where they were written, not with the table's current one.
 */
export type MySqlSchemaRecord = SchemaRecord<TrackedTable>;

/** Reads the captured tables' column types and character sets now (the schema at the start position). */
export function readSchemaRecord(conn: JdbcConnection, tables: readonly MySqlCapturedTable[]): Promise<MySqlSchemaRecord> {
  return recordOf(tables, async (t): Promise<TrackedTable> => {
    const db = conn.literal(t.ref.database);
    const name = conn.literal(t.ref.table);
    const cols = (
      await conn.execute(
        `SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${db} AND TABLE_NAME = ${name} ORDER BY ORDINAL_POSITION`,
      )
    ).rows;
    const cs = (
      await conn.execute(
        `SELECT c.CHARACTER_SET_NAME FROM information_schema.TABLES t JOIN information_schema.COLLATIONS c ON c.COLLATION_NAME = t.TABLE_COLLATION WHERE t.TABLE_SCHEMA = ${db} AND t.TABLE_NAME = ${name}`,
      )
    ).rows;
    const text = (v: unknown) => (v == null ? null : textOf(v));
    return {
      database: t.ref.database,
      table: t.ref.table,
      defaultCharset: cs.length > 0 ? String(cs[0][0]) : 'utf8mb4',
      columns: inCatalogOrder(t.catalog, new Map(cols.map((r) => [String(r[0]), r])), (n, r) => ({
        name: n,
        columnType: r ? String(r[1]) : '',
        charset: text(r?.[2]),
        collation: text(r?.[3]),
      })),
      catalog: t.catalog,
    };
  });
}

/** What a DDL statement did to the captured tables: the new record and the events to emit. */
export interface AppliedDdl {
  readonly record: MySqlSchemaRecord;
  readonly events: SchemaChangeEvent[];
}

const INTEGER_WIDTH = /^(tinyint|smallint|mediumint|int|integer|bigint)\(\d+\)/;

/** Column types compared as MySQL shows them (`int(11)` is `int`; `tinyint(1)` stays itself). */
function sameNativeType(a: string, b: string): boolean {
  const norm = (t: string) => {
    const s = t.toLowerCase().replace(/\s+/g, ' ').trim();
    return s.startsWith('tinyint(1)') ? s : s.replace(INTEGER_WIDTH, '$1').replace(/^integer/, 'int');
  };
  return norm(a) === norm(b);
}

/**
 * Applies one binlog Query event's statement (run with default database `schema`) to the
 * record. Returns undefined when it touches no captured table's columns. Throws, in one
 * sentence naming the table, for a change of a captured table that cannot be followed, and for
 * any column change when `enabled` is false (schema-changes.enabled).
 */
export function applyDdl(
  record: MySqlSchemaRecord,
  sql: string,
  schema: string,
  enabled: boolean,
  tinyInt1isBit: boolean,
  place: Place,
): AppliedDdl | undefined {
  let parsed;
  try {
    parsed = parseDdl(sql);
  } catch (err) {
    // Only a statement about a captured table matters; find one by name in the text.
    const named = record.tables.find(
      (t) => new RegExp(`\\b${t.table.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(sql) && /^\s*alter\s/i.test(sql),
    );
    if (!named) return undefined;
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `table ${named.catalog.tableId}: the binlog's statement '${sql.trim().slice(0, 200)}' could not be read (${(err as Error).message})`,
      { place },
    );
  }
  const find = (db: string | undefined, table: string) =>
    record.tables.findIndex(
      (t) => t.database.toLowerCase() === (db ?? schema).toLowerCase() && t.table.toLowerCase() === table.toLowerCase(),
    );
  if (parsed.kind === 'none') return undefined;
  if (parsed.kind === 'other-table') {
    const i = parsed.tables.map((t) => find(t.database, t.table)).find((x) => x >= 0);
    if (i === undefined) return undefined;
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `table ${record.tables[i].catalog.tableId}: ${parsed.what} is not supported while the table is captured (schema evolution follows column changes only)`,
      { place },
    );
  }
  const i = find(parsed.database, parsed.table);
  if (i < 0) return undefined;
  const tracked = record.tables[i];
  const tableId = tracked.catalog.tableId;
  if (parsed.unsupported) throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `table ${tableId}: ${parsed.unsupported}`, { place });
  if (parsed.changes.length === 0) return undefined;
  if (!enabled) {
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `table ${tableId} changed ('${sql.trim().slice(0, 200)}') and schema changes are off: set schema-changes.enabled = true (or debezium include.schema.changes = true) to follow them`,
      { place },
    );
  }
  const columns = [...tracked.columns];
  const changes: ColumnChange[] = [];
  const changedColumn = (def: ColumnDefinition): ChangedColumn => ({
    name: def.name,
    type: mysqlTypeOfText(def.type, tinyInt1isBit, place, `table ${tableId}, column ${def.name}`),
    nullable: def.nullable,
    ...(def.comment !== undefined ? { comment: def.comment } : {}),
    native: {
      dialect: 'mysql',
      type: def.type,
      ...(def.defaultExpression !== undefined ? { defaultExpression: def.defaultExpression } : {}),
    },
  });
  const tracked1 = (def: ColumnDefinition): TrackedColumn => {
    const text = isTextType(def.type);
    return { name: def.name, columnType: def.type, charset: text ? (def.charset ?? tracked.defaultCharset) : null, collation: null };
  };
  const at = (name: string) => columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  const place1 = (col: TrackedColumn, c: { after?: string; first?: boolean }) => {
    if (c.first) columns.unshift(col);
    else if (c.after !== undefined) columns.splice(at(c.after) + 1, 0, col);
    else columns.push(col);
  };
  let catalog = tracked.catalog;
  for (const c of parsed.changes as DdlColumnChange[]) {
    const fail = (why: string) => new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `table ${tableId}: ${why}`, { place });
    switch (c.kind) {
      case 'add':
        if (at(c.column.name) >= 0)
          throw fail(`ADD COLUMN ${c.column.name}: the column exists already in the schema the binlog position has`);
        place1(tracked1(c.column), c);
        changes.push({
          kind: 'add',
          column: changedColumn(c.column),
          ...(c.after !== undefined ? { after: c.after } : {}),
          ...(c.first ? { first: true } : {}),
        });
        break;
      case 'drop':
        if (at(c.name) < 0) throw fail(`DROP COLUMN ${c.name}: no such column in the schema the binlog position has`);
        columns.splice(at(c.name), 1);
        changes.push({ kind: 'drop', name: catalog.columns.find((x) => x.name.toLowerCase() === c.name.toLowerCase())?.name ?? c.name });
        break;
      case 'rename': {
        const j = at(c.from);
        if (j < 0) throw fail(`RENAME COLUMN ${c.from}: no such column`);
        const from = catalog.columns.find((x) => x.name.toLowerCase() === c.from.toLowerCase())?.name ?? c.from;
        columns[j] = { ...columns[j], name: c.to };
        changes.push({ kind: 'rename', from, to: c.to });
        break;
      }
      case 'change': {
        const j = at(c.from);
        if (j < 0) throw fail(`CHANGE/MODIFY COLUMN ${c.from}: no such column`);
        const old = columns[j];
        const oldCatalog = catalog.columns.find((x) => x.name.toLowerCase() === c.from.toLowerCase());
        const from = oldCatalog?.name ?? c.from;
        if (from !== c.column.name) changes.push({ kind: 'rename', from, to: c.column.name });
        const next = changedColumn(c.column);
        const moved = c.after !== undefined || c.first === true;
        const same =
          oldCatalog !== undefined &&
          sameNativeType(old.columnType, c.column.type) &&
          oldCatalog.nullable === next.nullable &&
          c.column.defaultExpression === undefined;
        columns.splice(j, 1);
        if (moved) place1(tracked1(c.column), c);
        else columns.splice(j, 0, tracked1(c.column));
        if (!same || moved)
          changes.push({
            kind: 'modify',
            name: c.column.name,
            column: next,
            ...(c.after !== undefined ? { after: c.after } : {}),
            ...(c.first ? { first: true } : {}),
          });
        break;
      }
      case 'default': {
        const j = at(c.name);
        const col = catalog.columns.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
        if (j < 0 || !col) throw fail(`ALTER COLUMN ${c.name}: no such column`);
        const nativeType = (col as ChangedColumn).native?.type ?? columns[j].columnType;
        changes.push({
          kind: 'modify',
          name: col.name,
          column: {
            ...col,
            native: {
              dialect: 'mysql',
              type: nativeType,
              ...(c.defaultExpression !== undefined ? { defaultExpression: c.defaultExpression } : {}),
            },
          },
        });
        break;
      }
    }
    catalog = applyColumnChanges(tracked.catalog, changes);
  }
  const next: TrackedTable = { ...tracked, columns, catalog };
  const tables = [...record.tables];
  tables[i] = next;
  return { record: { tables }, events: [{ type: 'schema-change', tableId, changes, table: catalog }] };
}
