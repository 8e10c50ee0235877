import mysql from 'mysql2/promise';
import type { Connection as CoreConnection } from 'mysql2';
import type { Readable } from 'node:stream';
import type { DataType } from '@tideway/api';
import type { ConnectionSettings } from './connection-settings.js';
import { decodeRows, decodersOf } from './decode-rows.js';
import type { JdbcConnection, ResultColumn, RowBatchStream, TableRef } from './jdbc-connection.js';
import { mysqlColumnReading, mysqlColumnType } from './mysql-types.js';
import { bareQuery } from './sql-text.js';
import { UnsupportedColumnType } from './unsupported-type.js';
import type { ValueDecoder } from './value-codec.js';

const NOT_NULL_FLAG = 1;

/** GEOMETRY comes back as its raw bytes (mysql2 would parse it into point objects). */
function typeCast(field: { type: string; buffer(): Buffer | null }, next: () => unknown): unknown {
  return field.type === 'GEOMETRY' ? field.buffer() : next();
}

/** Buffers streamed rows and hands them out in batches; pauses the socket when a batch is full. */
class MySqlRowStream implements RowBatchStream {
  private buffer: unknown[][] = [];
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly rows: Readable,
    private readonly decoders: readonly ValueDecoder[],
    private readonly fetchSize: number,
  ) {
    rows.on('data', (row: unknown[]) => {
      this.buffer.push(row);
      if (this.buffer.length >= fetchSize) rows.pause();
      this.notify();
    });
    rows.on('end', () => {
      this.ended = true;
      this.notify();
    });
    rows.on('error', (err) => {
      this.error = err;
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async read(max: number): Promise<unknown[][]> {
    while (this.buffer.length === 0 && !this.ended && this.error === undefined) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.error !== undefined) throw this.error;
    const out = this.buffer.length <= max ? this.buffer : this.buffer.slice(0, max);
    this.buffer = this.buffer.length <= max ? [] : this.buffer.slice(max);
    if (this.buffer.length < this.fetchSize && !this.ended) this.rows.resume();
    return decodeRows(out, this.decoders);
  }

  async close(): Promise<void> {
    this.rows.destroy();
  }
}

/** A MySQL or MariaDB session (mysql2) that returns exact text for decimals, 64-bit ints and dates. */
export class MySqlConnection implements JdbcConnection {
  readonly dialect = 'mysql' as const;

  private constructor(
    readonly conn: mysql.Connection,
    private readonly tinyInt1isBit: boolean,
  ) {}

  static async open(s: ConnectionSettings): Promise<MySqlConnection> {
    const conn = await mysql.createConnection({
      host: s.host,
      port: s.port,
      user: s.user,
      password: s.password,
      database: s.database,
      ssl: s.ssl === false ? undefined : s.ssl,
      connectTimeout: s.connectTimeoutMs,
      enableKeepAlive: s.keepAlive,
      multipleStatements: s.multipleStatements,
      charset: 'utf8mb4_general_ci',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      jsonStrings: true,
      typeCast,
    });
    conn.on('error', () => undefined);
    const out = new MySqlConnection(conn, s.tinyInt1isBit);
    try {
      // Timestamps written from timestamp_tz values are UTC wall-clock time (see mysqlEncoder).
      await conn.query("SET time_zone = '+00:00'");
      for (const sql of s.sessionSql) await conn.query(sql);
    } catch (err) {
      await out.close();
      throw err;
    }
    return out;
  }

  quote(identifier: string): string {
    return `\`${identifier.replace(/`/g, '``')}\``;
  }

  tableSql(ref: TableRef): string {
    return ref.database ? `${this.quote(ref.database)}.${this.quote(ref.table)}` : this.quote(ref.table);
  }

  placeholder(): string {
    return '?';
  }

  columnType(type: DataType, key: boolean): string {
    return mysqlColumnType(type, key);
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[][]; rowCount: number }> {
    const [res] = await this.conn.query({ sql, values: params as unknown[], rowsAsArray: true });
    if (Array.isArray(res)) return { rows: res as unknown[][], rowCount: res.length };
    return { rows: [], rowCount: (res as { affectedRows?: number }).affectedRows ?? 0 };
  }

  async describe(sql: string): Promise<ResultColumn[]> {
    const [, fields] = await this.conn.query({ sql: `SELECT * FROM (${bareQuery(sql)}) AS tw_described LIMIT 0`, rowsAsArray: true });
    return fields.map((f) => {
      const meta = {
        name: f.name,
        columnType: f.columnType ?? -1,
        flags: Number(f.flags ?? 0),
        decimals: f.decimals ?? 0,
        columnLength: f.columnLength ?? 0,
        characterSet: f.characterSet ?? 0,
      };
      const reading = mysqlColumnReading(meta, this.tinyInt1isBit);
      if (!reading) throw new UnsupportedColumnType(f.name, `code ${meta.columnType}`, 'MySQL');
      return {
        name: f.name,
        type: reading.type,
        nullable: (meta.flags & NOT_NULL_FLAG) === 0,
        nativeType: reading.nativeType,
        decode: reading.decode,
        origin: f.orgTable ? { database: f.db || undefined, table: f.orgTable } : undefined,
      };
    });
  }

  async primaryKey(ref: TableRef): Promise<string[]> {
    const res = await this.execute(
      `SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
       WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`,
      [ref.database ?? null, ref.table],
    );
    return res.rows.map((r) => String(r[0]));
  }

  async tableExists(ref: TableRef): Promise<boolean> {
    const res = await this.execute(
      'SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?',
      [ref.database ?? null, ref.table],
    );
    return Number(res.rows[0]?.[0]) > 0;
  }

  literal(text: string): string {
    return this.conn.escape(text);
  }

  async stream(sql: string, columns: readonly ResultColumn[], fetchSize: number): Promise<RowBatchStream> {
    const core = (this.conn as unknown as { connection: CoreConnection }).connection;
    const rows = core.query({ sql, rowsAsArray: true }).stream({ highWaterMark: fetchSize });
    return new MySqlRowStream(rows, decodersOf(columns), fetchSize);
  }

  async close(): Promise<void> {
    await this.conn.end().catch(() => this.conn.destroy());
  }
}
