import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { externalError } from './db-errors.js';
import type { JdbcConnection, TableRef } from './jdbc-connection.js';
import type { SinkConfig } from './sink-options.js';
import type { SinkTarget } from './sink-target.js';

/** CREATE TABLE for a target: columns from the input schema, primary key (and unique keys) when create_index. */
export function createTableSql(conn: JdbcConnection, target: SinkTarget, createIndex: boolean): string[] {
  const keySet = new Set(target.keyIndexes);
  const cols = target.columns.map((name, i) => {
    const input = target.input.columns[i];
    const notNull = !input.nullable || keySet.has(i) ? ' NOT NULL' : '';
    return `${conn.quote(name)} ${conn.columnType(target.types[i], keySet.has(i))}${notNull}`;
  });
  if (createIndex && target.keyIndexes.length > 0) {
    cols.push(`PRIMARY KEY (${target.keyIndexes.map((i) => conn.quote(target.columns[i])).join(', ')})`);
  }
  const table = conn.tableSql(target.ref!);
  const out = [`CREATE TABLE ${table} (${cols.join(', ')})`];
  if (createIndex) {
    const byName = new Map(target.input.columns.map((c, i) => [c.name, target.columns[i]]));
    for (const key of target.input.constraintKeys ?? []) {
      if (key.type === 'FOREIGN_KEY') continue;
      const keyCols = key.columns.map((c) => byName.get(c)).filter((c): c is string => c !== undefined);
      if (keyCols.length !== key.columns.length) continue;
      const unique = key.type === 'UNIQUE_KEY' ? 'UNIQUE ' : '';
      // Firebird 3 names hold at most 31 bytes.
      const name = conn.quote(`${target.ref!.table}_${key.name}`.slice(0, conn.dialect === 'firebird' ? 31 : 60));
      out.push(`CREATE ${unique}INDEX ${name} ON ${table} (${keyCols.map((c) => conn.quote(c)).join(', ')})`);
    }
  }
  return out;
}

async function ensureNamespace(conn: JdbcConnection, ref: TableRef): Promise<void> {
  if (conn.dialect === 'postgresql') await conn.execute(`CREATE SCHEMA IF NOT EXISTS ${conn.quote(ref.schema ?? 'public')}`);
  else if (ref.database && conn.dialect === 'mysql') await conn.execute(`CREATE DATABASE IF NOT EXISTS ${conn.quote(ref.database)}`);
}

/**
 * SeaTunnel's save modes, run once before the writers start. schema_save_mode: RECREATE_SCHEMA
 * drops and creates, CREATE_SCHEMA_WHEN_NOT_EXIST creates a missing table,
 * ERROR_WHEN_SCHEMA_NOT_EXIST fails on a missing one, IGNORE does nothing. data_save_mode:
 * DROP_DATA empties the table, APPEND_DATA keeps rows, CUSTOM_PROCESSING runs custom_sql,
 * ERROR_WHEN_DATA_EXISTS fails when the table has rows.
 */
export async function applySaveModes(conn: JdbcConnection, cfg: SinkConfig, targets: readonly SinkTarget[], place: Place): Promise<void> {
  for (const target of targets) {
    const ref = target.ref;
    if (!ref) continue;
    const table = conn.tableSql(ref);
    const name = [ref.database, ref.schema, ref.table].filter(Boolean).join('.');
    try {
      let exists = await conn.tableExists(ref);
      let created = false;
      if (cfg.schemaSaveMode === 'RECREATE_SCHEMA' && exists) {
        await conn.execute(`DROP TABLE ${table}`);
        exists = false;
      }
      switch (cfg.schemaSaveMode) {
        case 'RECREATE_SCHEMA':
        case 'CREATE_SCHEMA_WHEN_NOT_EXIST':
          if (!exists) {
            await ensureNamespace(conn, ref);
            for (const sql of createTableSql(conn, target, cfg.createIndex)) await conn.execute(sql);
            created = true;
          }
          break;
        case 'ERROR_WHEN_SCHEMA_NOT_EXIST':
          if (!exists)
            throw new ConfigError(
              ErrorCode.CONFIG_BAD_VALUE,
              `table ${name} does not exist (schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST)`,
              { place },
            );
          break;
        case 'IGNORE':
          break;
      }
      if (created || (!exists && cfg.schemaSaveMode === 'IGNORE')) {
        if (cfg.dataSaveMode === 'CUSTOM_PROCESSING') await conn.execute(cfg.customSql!);
        continue;
      }
      switch (cfg.dataSaveMode) {
        case 'DROP_DATA':
          // SQLite and Firebird have no TRUNCATE.
          await conn.execute(conn.dialect === 'sqlite' || conn.dialect === 'firebird' ? `DELETE FROM ${table}` : `TRUNCATE TABLE ${table}`);
          break;
        case 'APPEND_DATA':
          break;
        case 'CUSTOM_PROCESSING':
          await conn.execute(cfg.customSql!);
          break;
        case 'ERROR_WHEN_DATA_EXISTS': {
          const res = await conn.execute(conn.dialect === 'firebird' ? `SELECT FIRST 1 1 FROM ${table}` : `SELECT 1 FROM ${table} LIMIT 1`);
          if (res.rows.length > 0)
            throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table ${name} has rows (data_save_mode = ERROR_WHEN_DATA_EXISTS)`, {
              place,
            });
          break;
        }
      }
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw externalError(
        `preparing table ${name} (schema_save_mode ${cfg.schemaSaveMode}, data_save_mode ${cfg.dataSaveMode})`,
        err,
        place,
      );
    }
  }
}

/**
 * schema_save_mode for a table that joins the job while it runs (created at the source): a
 * missing target is created (CREATE_SCHEMA_WHEN_NOT_EXIST, and RECREATE_SCHEMA, which does not
 * drop a table mid-job: another writer may be writing it already), ERROR_WHEN_SCHEMA_NOT_EXIST
 * fails on a missing one, IGNORE does nothing. data_save_mode applies at the job's start only.
 * A CREATE that fails because another writer created the table a moment ago is no error.
 */
export async function ensureNewTarget(conn: JdbcConnection, cfg: SinkConfig, target: SinkTarget, place: Place): Promise<void> {
  const ref = target.ref!;
  const name = [ref.database, ref.schema, ref.table].filter(Boolean).join('.');
  try {
    if (cfg.schemaSaveMode === 'IGNORE' || (await conn.tableExists(ref))) return;
    if (cfg.schemaSaveMode === 'ERROR_WHEN_SCHEMA_NOT_EXIST') {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${target.input.tableId} was created at the source, and its target ${name} does not exist (schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST)`,
        { place },
      );
    }
    await ensureNamespace(conn, ref);
    const [create, ...indexes] = createTableSql(conn, target, cfg.createIndex);
    try {
      await conn.execute(create);
    } catch (err) {
      if (await conn.tableExists(ref)) return;
      throw err;
    }
    for (const sql of indexes) await conn.execute(sql);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw externalError(`creating table ${name} for table ${target.input.tableId}, created at the source`, err, place);
  }
}
