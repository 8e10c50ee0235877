import type { Row } from '@tideway/api';
import type { JdbcConnection } from './jdbc-connection.js';
import { mysqlEncoder } from './mysql-types.js';
import { sqliteEncoder } from './sqlite-types.js';
import type { FirebirdConnection } from './firebird-connection.js';
import { firebirdEncoder, firebirdPlaceholder } from './firebird-types.js';
import type { PgConnection } from './pg-connection.js';
import { pgParameterType, pgTextEncoder } from './pg-types.js';
import { CopyEncoder } from './copy-encoder.js';
import type { CopyIn } from './pg-copy-in.js';
import type { SinkTarget } from './sink-target.js';
import { compileSinkQuery, type SinkQuery } from './sink-query.js';
import type { ValueEncoder } from './value-codec.js';

/** PostgreSQL accepts at most 65535 parameters per statement. */
const PG_MAX_PARAMS = 65_535;

/**
 * How PostgreSQL upserts are sent. `staged`: the batch goes by COPY into a temporary table of
 * the session, then one `INSERT ... SELECT ... ON CONFLICT` moves it; the temporary table is
 * emptied by the transaction's commit (`staged`) or right after (`staged-truncate`, for a
 * transaction that spans batches). `values`: one multi-row INSERT with parameters; the only way
 * inside an XA transaction, which PostgreSQL refuses to PREPARE once it touched a temporary
 * table. Staged, a batch costs the server about a third of the CPU (no 12,000-parameter
 * statement to parse and plan) and the sink less encoding: decision 0032.
 */
export type PgUpsertPath = 'staged' | 'staged-truncate' | 'values';

let stageSeq = 0;

/**
 * Writes batches of rows of one input table into its target table: COPY or multi-row INSERT,
 * upserts (ON CONFLICT / ON DUPLICATE KEY UPDATE), deletes by key, update-then-insert by key,
 * or the user's own statement per row.
 */
export class TableWriter {
  private readonly encoders: (ValueEncoder | undefined)[];
  private readonly table: string;
  private readonly cols: string;
  private readonly keyCols: string[];
  private readonly pg: boolean;

  /** The user's `query`, compiled on first use. */
  private query?: SinkQuery;

  /** The session's staging table for upserts (PostgreSQL, staged paths), made on first use. */
  private stage?: { readonly name: string; readonly copy: CopyEncoder; made: boolean };

  /** @param copy encodes this table's COPY batches (PostgreSQL); it outlives the connection. */
  constructor(
    private readonly conn: JdbcConnection,
    readonly target: SinkTarget,
    private readonly copy?: CopyEncoder,
    private upsertPath: PgUpsertPath = 'values',
  ) {
    this.pg = conn.dialect === 'postgresql';
    const encoderOf = this.pg
      ? pgTextEncoder
      : conn.dialect === 'sqlite'
        ? sqliteEncoder
        : conn.dialect === 'firebird'
          ? firebirdEncoder
          : mysqlEncoder;
    this.encoders = target.types.map((t) => encoderOf(t));
    this.table = target.ref ? conn.tableSql(target.ref) : '';
    this.cols = target.columns.map((c) => conn.quote(c)).join(', ');
    this.keyCols = target.keyIndexes.map((i) => conn.quote(target.columns[i]));
  }

  private encode(fields: readonly unknown[]): unknown[] {
    const n = this.encoders.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = fields[i];
      const enc = this.encoders[i];
      out[i] = v === null || v === undefined ? null : enc ? enc(v) : v;
    }
    return out;
  }

  /** Plain inserts as one multi-row INSERT (MySQL; PostgreSQL's plain inserts stream into a COPY; Firebird: one prepared INSERT per row). */
  async insert(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.pg) {
      // Plain inserts reach PostgreSQL by COPY, but where each row may have to be told apart (sink_error_handler) as VALUES.
      for (const chunk of this.pgChunks(rows)) {
        const { values, params } = this.pgValues(chunk);
        await this.conn.execute(`INSERT INTO ${this.table} (${this.cols}) VALUES ${values}`, params);
      }
      return;
    }
    if (this.conn.dialect === 'firebird') {
      await this.firebirdEach(`INSERT INTO ${this.table} (${this.cols}) VALUES (${this.firebirdValues()})`, rows);
      return;
    }
    await this.conn.execute(`INSERT INTO ${this.table} (${this.cols}) VALUES ?`, [rows.map((r) => this.encode(r.fields))]);
  }

  /** Opens a COPY into this table for its CopyEncoder's batches (PostgreSQL). */
  async openCopy(format: 'text' | 'binary'): Promise<CopyIn> {
    const conn = this.conn as PgConnection;
    return conn.openCopyIn(this.table, this.target.columns, format);
  }

  /** Makes sure the COPY encoder knows the target's column types. */
  async prepareCopy(): Promise<CopyEncoder> {
    const copy = this.copy!;
    await copy.prepare(this.conn as PgConnection, this.table);
    return copy;
  }

  /** Inserts, or updates the non-key columns of rows whose key exists. */
  async upsert(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.conn.dialect === 'firebird') return this.firebirdUpsert(rows);
    const nonKey = this.target.columns
      .map((c, i) => (this.target.keyIndexes.includes(i) ? undefined : this.conn.quote(c)))
      .filter((c): c is string => c !== undefined);
    const action = nonKey.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${nonKey.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    const conflict = `ON CONFLICT (${this.keyCols.join(', ')}) ${action}`;
    if (this.conn.dialect === 'sqlite') {
      // The connection expands the row list (and splits it at SQLite's parameter bound).
      await this.conn.execute(`INSERT INTO ${this.table} (${this.cols}) VALUES ? ${conflict}`, [rows.map((r) => this.encode(r.fields))]);
      return;
    }
    if (this.pg) {
      if (this.upsertPath !== 'values' && (await this.staging())) return this.stagedUpsert(rows, conflict);
      for (const chunk of this.pgChunks(rows)) {
        const { values, params } = this.pgValues(chunk);
        await this.conn.execute(`INSERT INTO ${this.table} (${this.cols}) VALUES ${values} ${conflict}`, params);
      }
      return;
    }
    const update = (nonKey.length === 0 ? [this.keyCols[0]] : nonKey).map((c) => `${c} = VALUES(${c})`).join(', ');
    await this.conn.execute(`INSERT INTO ${this.table} (${this.cols}) VALUES ? ON DUPLICATE KEY UPDATE ${update}`, [
      rows.map((r) => this.encode(r.fields)),
    ]);
  }

  /** Whether this session can stage upserts: a role without the TEMPORARY privilege sends them as VALUES. */
  private async staging(): Promise<boolean> {
    if (this.stage) return true;
    // A row or none: the session reads every value as text.
    const res = await this.conn.execute(`SELECT 1 WHERE has_database_privilege(current_database(), 'TEMPORARY')`);
    if (res.rows.length === 0) {
      this.upsertPath = 'values';
      return false;
    }
    this.stage = { name: this.conn.quote(`tw_upsert_${process.pid}_${++stageSeq}`), copy: new CopyEncoder(this.target), made: false };
    return true;
  }

  /** A PostgreSQL upsert through the session's staging table (see PgUpsertPath). */
  private async stagedUpsert(rows: readonly Row[], conflict: string): Promise<void> {
    const conn = this.conn as PgConnection;
    const stage = this.stage!;
    if (!stage.made) {
      // Exactly the written columns, with the target's types; no constraints, no defaults.
      await conn.execute(
        `CREATE TEMPORARY TABLE IF NOT EXISTS ${stage.name} ON COMMIT DELETE ROWS AS SELECT ${this.cols} FROM ${this.table} WITH NO DATA`,
      );
      stage.made = true;
    }
    await stage.copy.prepare(conn, this.table);
    const data = stage.copy.encode(rows);
    const copy = await conn.openCopyIn(stage.name, this.target.columns, data.format);
    try {
      await copy.write(data.data);
      await copy.end();
    } catch (err) {
      await copy.abort().catch(() => undefined);
      throw err;
    }
    await conn.execute(`INSERT INTO ${this.table} (${this.cols}) SELECT ${this.cols} FROM ${stage.name} ${conflict}`);
    if (this.upsertPath === 'staged-truncate') await conn.execute(`TRUNCATE ${stage.name}`);
  }

  /** Deletes the rows with these rows' keys. */
  async delete(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    const keyIdx = this.target.keyIndexes;
    if (this.conn.dialect === 'firebird') {
      // Firebird compares no row values ((a, b) IN (...)): one prepared DELETE per row.
      const where = keyIdx.map((i) => `${this.conn.quote(this.target.columns[i])} = ${firebirdPlaceholder(this.target.types[i])}`);
      const keys = rows.map((r) => {
        const enc = this.encode(r.fields);
        return keyIdx.map((i) => enc[i]);
      });
      await (this.conn as FirebirdConnection).executeEach(`DELETE FROM ${this.table} WHERE ${where.join(' AND ')}`, keys);
      return;
    }
    const keyList = keyIdx.length === 1 ? this.keyCols[0] : `(${this.keyCols.join(', ')})`;
    if (this.pg) {
      const per = keyIdx.length;
      const chunkSize = Math.floor(PG_MAX_PARAMS / per);
      for (let start = 0; start < rows.length; start += chunkSize) {
        const chunk = rows.slice(start, start + chunkSize);
        const params: unknown[] = [];
        const tuples = chunk.map((r) => {
          const enc = this.encode(r.fields);
          const ph = keyIdx.map((i) => {
            params.push(enc[i]);
            return `$${params.length}`;
          });
          return per === 1 ? ph[0] : `(${ph.join(', ')})`;
        });
        await this.conn.execute(`DELETE FROM ${this.table} WHERE ${keyList} IN (${tuples.join(', ')})`, params);
      }
      return;
    }
    const keys = rows.map((r) => {
      const enc = this.encode(r.fields);
      return keyIdx.map((i) => enc[i]);
    });
    await this.conn.execute(`DELETE FROM ${this.table} WHERE ${keyList} IN (?)`, [keyIdx.length === 1 ? keys.map((k) => k[0]) : keys]);
  }

  /** SeaTunnel's upsert by query: update by key, insert when no row had the key (one statement per row). */
  async updateOrInsert(rows: readonly Row[]): Promise<void> {
    // Firebird's UPDATE OR INSERT ... MATCHING is this statement, server-side.
    if (this.conn.dialect === 'firebird') return this.firebirdUpsert(rows);
    const keyIdx = this.target.keyIndexes;
    const nonKeyIdx = this.target.columns.map((_, i) => i).filter((i) => !keyIdx.includes(i));
    const ph = (i: number) => this.conn.placeholder(i);
    const set = nonKeyIdx.map((i, n) => `${this.conn.quote(this.target.columns[i])} = ${ph(n)}`).join(', ');
    const where = keyIdx.map((i, n) => `${this.conn.quote(this.target.columns[i])} = ${ph(nonKeyIdx.length + n)}`).join(' AND ');
    const update = nonKeyIdx.length > 0 ? `UPDATE ${this.table} SET ${set} WHERE ${where}` : `SELECT 1 FROM ${this.table} WHERE ${where}`;
    const insert = `INSERT INTO ${this.table} (${this.cols}) VALUES (${this.target.columns.map((_, i) => ph(i)).join(', ')})`;
    for (const row of rows) {
      const enc = this.encode(row.fields);
      const res =
        nonKeyIdx.length > 0
          ? await this.conn.execute(update, [...nonKeyIdx.map((i) => enc[i]), ...keyIdx.map((i) => enc[i])])
          : await this.conn.execute(
              update,
              keyIdx.map((i) => enc[i]),
            );
      if (res.rowCount === 0) await this.conn.execute(insert, enc);
    }
  }

  /** Runs the user's statement once per row, with the row's fields as parameters in order. */
  async runQuery(sql: string, rows: readonly Row[]): Promise<void> {
    // `?` or `:field` parameters; PostgreSQL's protocol numbers them ($1, $2, ...).
    this.query ??= compileSinkQuery(
      sql,
      this.target.input.columns.map((c) => c.name),
      this.pg ? 'postgresql' : 'mysql',
      { option: 'query' },
      (f) => (this.pg ? pgParameterType(this.target.types[f]) : undefined),
    );
    const { sql: statement, fields } = this.query;
    for (const row of rows) {
      const enc = this.encode(row.fields);
      await this.conn.execute(
        statement,
        fields.map((f) => enc[f]),
      );
    }
  }

  /** Firebird's VALUES placeholders, dates and times cast from text (firebird-types.ts). */
  private firebirdValues(): string {
    return this.target.types.map((t) => firebirdPlaceholder(t)).join(', ');
  }

  /** Runs a Firebird statement once per row, prepared once (Firebird 3 has no multi-row VALUES and no batch API). */
  private async firebirdEach(sql: string, rows: readonly Row[]): Promise<void> {
    await (this.conn as FirebirdConnection).executeEach(
      sql,
      rows.map((r) => this.encode(r.fields)),
    );
  }

  /** Firebird's upsert: UPDATE OR INSERT ... MATCHING (keys), which updates every matching row or inserts one. */
  private async firebirdUpsert(rows: readonly Row[]): Promise<void> {
    await this.firebirdEach(
      `UPDATE OR INSERT INTO ${this.table} (${this.cols}) VALUES (${this.firebirdValues()}) MATCHING (${this.keyCols.join(', ')})`,
      rows,
    );
  }

  private *pgChunks(rows: readonly Row[]): Generator<readonly Row[]> {
    const size = Math.max(1, Math.floor(PG_MAX_PARAMS / Math.max(1, this.target.columns.length)));
    for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
  }

  private pgValues(rows: readonly Row[]): { values: string; params: unknown[] } {
    const params: unknown[] = [];
    const tuples = new Array<string>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const enc = this.encode(rows[r].fields);
      const ph = new Array<string>(enc.length);
      for (let i = 0; i < enc.length; i++) {
        params.push(enc[i]);
        ph[i] = `$${params.length}`;
      }
      tuples[r] = `(${ph.join(', ')})`;
    }
    return { values: tuples.join(', '), params };
  }
}
