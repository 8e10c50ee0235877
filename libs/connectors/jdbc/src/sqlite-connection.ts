import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DataType } from '@tideway/api';
import type { ConnectionSettings } from './connection-settings.js';
import { decodeRows, decodersOf } from './decode-rows.js';
import type { JdbcConnection, ResultColumn, RowBatchStream, TableRef } from './jdbc-connection.js';
import { sqliteColumnReading, sqliteColumnType } from './sqlite-types.js';
import { expandListParams, isList } from './sql-text.js';

export { expandListParams };
import type { ValueDecoder } from './value-codec.js';

/** SQLite's default bound on parameters per statement (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_PARAMS = 32_766;

class SqliteRowStream implements RowBatchStream {
  constructor(
    private readonly rows: IterableIterator<unknown[]>,
    private readonly decoders: readonly ValueDecoder[],
  ) {}

  async read(max: number): Promise<unknown[][]> {
    const out: unknown[][] = [];
    while (out.length < max) {
      const next = this.rows.next();
      if (next.done) break;
      out.push(next.value);
    }
    return decodeRows(out, this.decoders);
  }

  async close(): Promise<void> {
    this.rows.return?.();
  }
}

/**
 * A session on a SQLite database file (better-sqlite3, in-process and synchronous). A source
 * opens the file read-only and needs it to exist; a sink creates it. Writers take the write
 * lock at BEGIN (BEGIN IMMEDIATE) and wait up to connection_check_timeout_sec for another
 * writer's transaction to end: parallel writers of one file take turns (decision 0051).
 */
export class SqliteConnection implements JdbcConnection {
  readonly dialect = 'sqlite' as const;

  private constructor(readonly db: Database.Database) {}

  static async open(s: ConnectionSettings): Promise<SqliteConnection> {
    const file = s.file!;
    const missing = (what: string) => Object.assign(new Error(`${what} does not exist`), { code: 'SQLITE_CANTOPEN' });
    if (s.readOnly && !existsSync(file)) throw missing(`SQLite database file ${file}`);
    if (!existsSync(dirname(file))) throw missing(`the folder of ${file}`);
    const db = new Database(file, { readonly: s.readOnly === true, fileMustExist: s.readOnly === true, timeout: s.connectTimeoutMs });
    try {
      // CRC32 as MySQL's: hash splits of text columns (jdbc-split.ts) bucket rows with it.
      db.function('crc32', { deterministic: true }, (v: string | number | bigint | Buffer | null) =>
        v === null ? null : crc32(Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8')),
      );
      // Fail now, with the file named, when it is not a database or not writable.
      db.pragma('schema_version');
      if (!s.readOnly) db.exec('BEGIN IMMEDIATE; ROLLBACK');
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteConnection(db);
  }

  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  tableSql(ref: TableRef): string {
    return ref.database ? `${this.quote(ref.database)}.${this.quote(ref.table)}` : this.quote(ref.table);
  }

  placeholder(): string {
    return '?';
  }

  literal(text: string): string {
    return `'${text.replace(/'/g, "''")}'`;
  }

  columnType(type: DataType): string {
    return sqliteColumnType(type);
  }

  /**
   * Runs one statement. List parameters expand as expandListParams says; a multi-row statement
   * over SQLite's parameter bound runs as several, inside a savepoint so it stays all-or-nothing.
   * BEGIN takes the write lock at once (BEGIN IMMEDIATE), so a transaction never fails halfway
   * because another writer holds the file.
   */
  async execute(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[][]; rowCount: number }> {
    if (/^\s*BEGIN\s*$/i.test(sql) && params.length === 0) {
      this.db.exec('BEGIN IMMEDIATE');
      return { rows: [], rowCount: 0 };
    }
    const rowList = params.length === 1 && isList(params[0]) && params[0].every(isList) ? params[0] : undefined;
    if (rowList && rowList.length > 0) {
      const per = Math.max(1, Math.floor(MAX_PARAMS / Math.max(1, rowList[0].length)));
      if (rowList.length > per) {
        const run = this.db.transaction(() => {
          let changes = 0;
          for (let start = 0; start < rowList.length; start += per) changes += this.run(sql, [rowList.slice(start, start + per)]).rowCount;
          return changes;
        });
        return { rows: [], rowCount: run() };
      }
    }
    return this.run(sql, params);
  }

  private run(sql: string, params: readonly unknown[]): { rows: unknown[][]; rowCount: number } {
    const expanded = expandListParams(sql, params);
    const stmt = this.db.prepare(expanded.sql);
    if (stmt.reader) {
      const rows = stmt.raw(true).all(...expanded.params) as unknown[][];
      return { rows, rowCount: rows.length };
    }
    return { rows: [], rowCount: stmt.run(...expanded.params).changes };
  }

  async describe(sql: string): Promise<ResultColumn[]> {
    const stmt = this.db.prepare(sql).safeIntegers(true);
    const cols = stmt.columns();
    // Expression columns have no declared type: their first value's storage class decides.
    const sample = cols.some((c) => c.type === null) ? (stmt.raw(true).get() as unknown[] | undefined) : undefined;
    return cols.map((c, i) => {
      const reading = sqliteColumnReading(c.type, sample?.[i]);
      return {
        name: c.name,
        type: reading.type,
        nullable: true,
        nativeType: c.type ?? 'expression',
        decode: reading.decode,
        origin: c.table ? { database: c.database ?? undefined, table: c.table } : undefined,
      };
    });
  }

  async primaryKey(ref: TableRef): Promise<string[]> {
    const rows = this.db
      .prepare(`SELECT name, pk FROM pragma_table_info(?, ?) WHERE pk > 0 ORDER BY pk`)
      .raw(true)
      .all(ref.table, ref.database ?? 'main') as [string, number][];
    return rows.map((r) => r[0]);
  }

  async tableExists(ref: TableRef): Promise<boolean> {
    const schema = this.quote(ref.database ?? 'main');
    const row = this.db.prepare(`SELECT 1 FROM ${schema}.sqlite_schema WHERE type IN ('table', 'view') AND name = ?`).get(ref.table);
    return row !== undefined;
  }

  async stream(sql: string, columns: readonly ResultColumn[]): Promise<RowBatchStream> {
    const rows = this.db.prepare(sql).safeIntegers(true).raw(true).iterate() as IterableIterator<unknown[]>;
    return new SqliteRowStream(rows, decodersOf(columns));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
