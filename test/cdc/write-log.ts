/**
 * A PostgreSQL target that records every row write the sink makes: each target table gets a
 * trigger that appends (table, operation, key, version) to `write_log`. Because every change
 * the ChangeWriter makes carries a larger `version`, a change applied twice or out of order
 * shows as a write whose version does not grow, even where an upsert hides it in the table.
 */
import { textOf } from '@tideway/common';
import type pg from 'pg';
import { SOURCE_TABLES, TABLE_KEYS } from './change-writer.js';

type TableName = keyof typeof SOURCE_TABLES;

/** Creates the target tables (same DDL as the source), `write_log` and the triggers. */
export async function createLoggedTargets(client: pg.Client, tables: readonly TableName[] = ['accounts', 'items', 'audit']): Promise<void> {
  await client.query(
    `CREATE TABLE write_log (seq bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL, k text NOT NULL, version bigint)`,
  );
  await client.query(`
    CREATE FUNCTION log_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO write_log (tbl, op, k, version) VALUES (TG_TABLE_NAME, TG_OP, to_jsonb(OLD) ->> TG_ARGV[0], OLD.version);
      ELSE
        INSERT INTO write_log (tbl, op, k, version) VALUES (TG_TABLE_NAME, TG_OP, to_jsonb(NEW) ->> TG_ARGV[0], NEW.version);
      END IF;
      RETURN NULL;
    END $$`);
  for (const t of tables) {
    await client.query(SOURCE_TABLES[t]);
    await client.query(
      `CREATE TRIGGER ${t}_log AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION log_write('${TABLE_KEYS[t]}')`,
    );
  }
}

/** What write_log shows about changes applied twice or out of order. */
export interface WriteLogReport {
  writes: number;
  /** Writes that did not move a key to a newer version (a repeated or stale change). */
  repeated: string[];
  /** Writes to the insert-only audit table other than one insert per id. */
  auditRewrites: string[];
}

/**
 * Checks write_log: per key, an insert or update must carry a larger version than the key's
 * previous write, a delete the version of the row it removed; audit rows are inserted once.
 */
export async function checkWriteLog(client: pg.Client): Promise<WriteLogReport> {
  const { rows } = await client.query<{ tbl: string; op: string; k: string; version: string }>(
    'SELECT tbl, op, k, version FROM write_log ORDER BY seq',
  );
  const last = new Map<string, bigint>();
  const repeated: string[] = [];
  const auditRewrites: string[] = [];
  const auditSeen = new Set<string>();
  for (const r of rows) {
    const key = `${r.tbl}:${r.k}`;
    const v = BigInt(r.version);
    const prev = last.get(key);
    if (r.op === 'DELETE') {
      if (prev !== undefined && v !== prev) repeated.push(`${key} deleted at version ${v} after a write of version ${prev}`);
    } else if (prev !== undefined && v <= prev) {
      repeated.push(`${key} ${r.op} of version ${v} after version ${prev}`);
    }
    last.set(key, v);
    if (r.tbl === 'audit') {
      if (r.op !== 'INSERT' || auditSeen.has(r.k)) auditRewrites.push(`audit ${r.k}: ${r.op} of version ${v}`);
      auditSeen.add(r.k);
    }
  }
  return { writes: rows.length, repeated, auditRewrites };
}

/** A table's full contents as sorted text lines (collation-free), for comparing databases. */
export async function tableLines(query: (sql: string) => Promise<Record<string, unknown>[]>, table: TableName): Promise<string[]> {
  const rows = await query(`SELECT * FROM ${table}`);
  const lines = rows.map((row) =>
    Object.keys(row)
      .sort()
      .map((c) => `${c}=${row[c] === null ? 'NULL' : textOf(row[c])}`)
      .join(' '),
  );
  return lines.sort();
}
