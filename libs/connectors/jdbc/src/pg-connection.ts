import { textOf } from '@tideway/common';
import pg from 'pg';
import type { DataType } from '@tideway/api';
import type { ConnectionSettings } from './connection-settings.js';
import { decodersOf } from './decode-rows.js';
import { cancelRunningStatement } from './pg-cancel.js';
import { CopyIn } from './pg-copy-in.js';
import { PgCopyOutStream, PgCopyRowStream } from './pg-copy-reader.js';
import { BinaryCopyParser, type PgBinaryLayout, type PgBinaryRow } from './pg-binary-rows.js';
import { bareQuery } from './sql-text.js';
import type { JdbcConnection, ResultColumn, RowBatchStream, TableRef } from './jdbc-connection.js';
import { pgColumnReading, pgColumnType, UnsupportedPgType, type PgTypeInfo } from './pg-types.js';
import { UnsupportedColumnType } from './unsupported-type.js';

/** Every value arrives as PostgreSQL's text form; decoders turn it into SeaTunnel values exactly. */
const RAW_TEXT = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

const TYPE_INFO_SQL = `WITH RECURSIVE t AS (
  SELECT oid, typname, typtype, typcategory, typelem, typbasetype FROM pg_type WHERE oid = ANY($1::oid[])
  UNION
  SELECT p.oid, p.typname, p.typtype, p.typcategory, p.typelem, p.typbasetype FROM pg_type p JOIN t ON p.oid = t.typelem OR p.oid = t.typbasetype
) SELECT oid, typname, typtype, typcategory, typelem, typbasetype FROM t`;

/** A PostgreSQL session (pg). Timestamps print in ISO style and UTC, so values are stable text. */
export class PgConnection implements JdbcConnection {
  readonly dialect = 'postgresql' as const;

  private constructor(
    readonly client: pg.Client,
    private readonly host: string,
    private readonly port: number,
  ) {}

  static async open(s: ConnectionSettings): Promise<PgConnection> {
    const client = new pg.Client({
      host: s.host,
      port: s.port,
      user: s.user,
      password: s.password ?? '',
      database: s.database,
      ssl: s.ssl,
      connectionTimeoutMillis: s.connectTimeoutMs,
      keepAlive: s.keepAlive,
      application_name: s.applicationName ?? 'tideway',
      types: RAW_TEXT,
    });
    // An idle client's socket error would otherwise crash the process; the next query reports it.
    client.on('error', () => undefined);
    await client.connect();
    const conn = new PgConnection(client, s.host, s.port);
    try {
      await client.query("SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET IntervalStyle = 'iso_8601'; SET bytea_output = 'hex'");
      for (const sql of s.sessionSql) await client.query(sql);
    } catch (err) {
      await conn.close();
      throw err;
    }
    return conn;
  }

  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  tableSql(ref: TableRef): string {
    return `${this.quote(ref.schema ?? 'public')}.${this.quote(ref.table)}`;
  }

  placeholder(i: number): string {
    return `$${i + 1}`;
  }

  literal(text: string): string {
    return this.client.escapeLiteral(text);
  }

  columnType(type: DataType): string {
    return pgColumnType(type);
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[][]; rowCount: number }> {
    const res = await this.client.query<unknown[]>({ text: sql, values: params as unknown[], rowMode: 'array' });
    // A multi-statement string returns one result per statement (pg's types say one); callers want the last.
    const results: readonly pg.QueryArrayResult<unknown[]>[] = Array.isArray(res) ? res : [res];
    const last = results.at(-1);
    return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
  }

  async describe(sql: string): Promise<ResultColumn[]> {
    const res = await this.client.query({ text: `SELECT * FROM (${bareQuery(sql)}) AS tw_described LIMIT 0`, rowMode: 'array' });
    const fields = res.fields;
    const oids = [...new Set(fields.map((f) => f.dataTypeID))];
    const typeRows = await this.execute(TYPE_INFO_SQL, [oids]);
    const types = new Map<number, PgTypeInfo>();
    for (const r of typeRows.rows) {
      const oid = Number(r[0]);
      types.set(oid, {
        oid,
        name: String(r[1]),
        typtype: String(r[2]),
        category: String(r[3]),
        elem: Number(r[4]),
        baseType: Number(r[5]),
      });
    }
    const notNull = new Set<string>();
    const tableCols = fields.filter((f) => f.tableID !== 0);
    if (tableCols.length > 0) {
      const nn = await this.execute(
        'SELECT attrelid, attnum FROM pg_attribute WHERE attnotnull AND attrelid = ANY($1::oid[]) AND attnum > 0',
        [[...new Set(tableCols.map((f) => f.tableID))]],
      );
      for (const r of nn.rows) notNull.add(`${textOf(r[0])}:${textOf(r[1])}`);
    }
    const origins = new Map<number, TableRef>();
    const firstTable = fields[0]?.tableID ?? 0;
    if (firstTable !== 0) {
      const o = await this.execute(
        'SELECT current_database(), n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1',
        [firstTable],
      );
      if (o.rows[0]) origins.set(firstTable, { database: String(o.rows[0][0]), schema: String(o.rows[0][1]), table: String(o.rows[0][2]) });
    }
    return fields.map((f) => {
      let reading;
      try {
        reading = pgColumnReading(f.dataTypeID, f.dataTypeModifier, types);
      } catch (err) {
        if (err instanceof UnsupportedPgType) throw new UnsupportedColumnType(f.name, err.typeName, 'PostgreSQL');
        throw err;
      }
      return {
        name: f.name,
        type: reading.type,
        nullable: !notNull.has(`${f.tableID}:${f.columnID}`),
        nativeType: types.get(f.dataTypeID)?.name ?? String(f.dataTypeID),
        decode: reading.decode,
        typeOid: f.dataTypeID,
        origin: origins.get(f.tableID),
      };
    });
  }

  async primaryKey(ref: TableRef): Promise<string[]> {
    const res = await this.execute(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
      [this.tableSql(ref)],
    );
    return res.rows.map((r) => String(r[0]));
  }

  async tableExists(ref: TableRef): Promise<boolean> {
    const res = await this.execute('SELECT to_regclass($1) IS NOT NULL', [this.tableSql(ref)]);
    return res.rows[0]?.[0] === 't';
  }

  async estimatedRowCount(ref: TableRef): Promise<bigint | undefined> {
    // reltuples is -1 for a table never vacuumed or analyzed (PostgreSQL 14 and later), 0 before
    // 14 for that and for an empty one: both give no estimate, and the caller counts.
    const res = await this.execute('SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)', [this.tableSql(ref)]);
    const v = res.rows[0]?.[0];
    if (v === null || v === undefined) return undefined;
    const n = BigInt(textOf(v));
    return n > 0n ? n : undefined;
  }

  /** Streams with `COPY (query) TO STDOUT` (see PgCopyRowStream); a premature close cancels it. */
  async stream(sql: string, columns: readonly ResultColumn[]): Promise<RowBatchStream> {
    const cancel = () => cancelRunningStatement(this.client, this.host, this.port);
    return new PgCopyRowStream(this.client, sql, decodersOf(columns), cancel);
  }

  /**
   * Streams with `COPY (query) TO STDOUT (FORMAT binary)`, each row undecoded (the pass-through
   * to a PostgreSQL sink, pg-binary-rows.ts); a premature close cancels it.
   */
  streamBinary(sql: string, tableId: string, layout: PgBinaryLayout): PgCopyOutStream<PgBinaryRow> {
    const cancel = () => cancelRunningStatement(this.client, this.host, this.port);
    return new PgCopyOutStream(this.client, sql, new BinaryCopyParser(tableId, layout), cancel);
  }

  /** The type oid of each named column of a table, in the order given (undefined when absent). */
  async columnTypeOids(table: string, columns: readonly string[]): Promise<(number | undefined)[]> {
    const res = await this.client.query({ text: `SELECT * FROM ${table} LIMIT 0`, rowMode: 'array' });
    const byName = new Map(res.fields.map((f) => [f.name, f.dataTypeID]));
    return columns.map((c) => byName.get(c));
  }

  /** Opens `COPY table (columns) FROM STDIN` for batches to be streamed into (see CopyIn). */
  openCopyIn(table: string, columns: readonly string[], format: 'text' | 'binary'): Promise<CopyIn> {
    const sql = `COPY ${table} (${columns.map((c) => this.quote(c)).join(', ')}) FROM STDIN${format === 'binary' ? ' (FORMAT binary)' : ''}`;
    return CopyIn.open(this.client, sql, format);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
