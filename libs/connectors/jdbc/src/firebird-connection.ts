import Firebird from 'node-firebird';
import type { DataType } from '@tideway/api';
import type { ConnectionSettings } from './connection-settings.js';
import { decodeRows, decodersOf } from './decode-rows.js';
import { firebirdColumnReading, firebirdColumnType, type FirebirdColumnMeta } from './firebird-types.js';
import type { JdbcConnection, ResultColumn, RowBatchStream, TableRef } from './jdbc-connection.js';
import { expandListParams } from './sql-text.js';

type Database = Firebird.Database;
type Transaction = Firebird.Transaction;
type Statement = Firebird.Statement;

/** What node-firebird hands back for a BLOB cell: a reader that streams it in a transaction. */
type BlobReader = (tx: Transaction, cb: (err: unknown, name: string, e: NodeJS.EventEmitter) => void) => void;

/** Reads one BLOB cell to a Buffer inside `tx`. */
function readBlob(reader: BlobReader, tx: Transaction): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    reader(tx, (err, _name, e) => {
      if (err) return reject(err instanceof Error ? err : new Error(`reading a BLOB failed: ${JSON.stringify(err)}`));
      const chunks: Buffer[] = [];
      e.on('data', (c: Buffer) => chunks.push(c));
      e.once('end', () => resolve(Buffer.concat(chunks)));
      e.once('error', (er: unknown) => reject(er instanceof Error ? er : new Error(String(er))));
    });
  });
}

/** Replaces BLOB readers in rows by their bytes (one at a time: the wire carries one request at a time). */
async function resolveBlobs(rows: unknown[][], tx: Transaction): Promise<void> {
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) if (typeof row[i] === 'function') row[i] = await readBlob(row[i] as BlobReader, tx);
  }
}

/** A row of a fetch: arrays (execute) or objects; always positional here. */
function positional(row: unknown): unknown[] {
  return Array.isArray(row) ? row : Object.values(row as Record<string, unknown>);
}

const READ_COMMITTED = { isolation: Firebird.ISOLATION_READ_COMMITTED, wait: true };

class FirebirdRowStream implements RowBatchStream {
  private done = false;

  constructor(
    private readonly statement: Statement,
    private readonly tx: Transaction,
    private readonly decoders: ReturnType<typeof decodersOf>,
  ) {}

  async read(max: number): Promise<unknown[][]> {
    if (this.done) return [];
    const res = (await this.statement.fetchAsync(this.tx, max)) as { data: unknown[]; fetched: boolean };
    const rows = res.data.map(positional);
    if (res.fetched || rows.length < max) this.done = true;
    await resolveBlobs(rows, this.tx);
    return decodeRows(rows, this.decoders);
  }

  async close(): Promise<void> {
    this.done = true;
    await this.statement.dropAsync().catch(() => undefined);
    await this.tx.commitAsync().catch(() => undefined);
  }
}

/**
 * A session on a Firebird 3 database over its wire protocol (node-firebird, pure JavaScript),
 * UTF8 on the wire, exact numerics as text. BEGIN, COMMIT and ROLLBACK (as the sink sends them)
 * start and end one explicit transaction; any other statement outside one runs in a
 * transaction of its own that commits at once. Identifiers are always quoted: a name keeps its
 * case (Firebird upper-cases unquoted names, so a table created as `CREATE TABLE t` is `T`).
 */
export class FirebirdConnection implements JdbcConnection {
  readonly dialect = 'firebird' as const;
  private tx: Transaction | undefined;
  /** Prepared statements of the writer's repeated DML, by text. */
  private readonly prepared = new Map<string, Statement>();

  private constructor(private readonly db: Database) {}

  static async open(s: ConnectionSettings): Promise<FirebirdConnection> {
    const attach = Firebird.attachAsync({
      host: s.host,
      port: s.port,
      database: s.database,
      user: s.user,
      password: s.password,
      encoding: 'UTF8',
      numericMode: 'string',
      lowercase_keys: false,
      blobAsText: false,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${s.connectTimeoutMs} ms`)), s.connectTimeoutMs);
    });
    try {
      return new FirebirdConnection(await Promise.race([attach, timeout]));
    } finally {
      clearTimeout(timer);
    }
  }

  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  /** Firebird has no schemas, and a connection reaches one database: the table alone. */
  tableSql(ref: TableRef): string {
    return this.quote(ref.table);
  }

  placeholder(): string {
    return '?';
  }

  literal(text: string): string {
    return `'${text.replace(/'/g, "''")}'`;
  }

  columnType(type: DataType, key: boolean): string {
    return firebirdColumnType(type, key);
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<{ rows: unknown[][]; rowCount: number }> {
    const word = /^\s*(BEGIN|COMMIT|ROLLBACK)\s*;?\s*$/i.exec(sql)?.[1]?.toUpperCase();
    if (word === 'BEGIN') {
      if (this.tx) throw new Error('a transaction is open already');
      this.tx = await this.db.startTransactionAsync(READ_COMMITTED);
      return { rows: [], rowCount: 0 };
    }
    if (word === 'COMMIT' || word === 'ROLLBACK') {
      const tx = this.tx;
      this.tx = undefined;
      if (tx) await (word === 'COMMIT' ? tx.commitAsync() : tx.rollbackAsync());
      return { rows: [], rowCount: 0 };
    }
    const expanded = expandListParams(sql, params);
    return this.inTransaction(async (tx) => {
      const res = await tx.executeAsync(expanded.sql, expanded.params, { withMeta: true });
      const rows = res.rows === undefined ? [] : Array.isArray(res.rows) ? res.rows.map(positional) : [positional(res.rows)];
      await resolveBlobs(rows, tx);
      return { rows, rowCount: res.fields.length > 0 ? rows.length : res.affectedRows };
    });
  }

  /**
   * Runs one DML statement once per parameter row, prepared once per session; returns the
   * rows changed. Inside the open transaction, or one of its own.
   */
  async executeEach(sql: string, rows: readonly (readonly unknown[])[]): Promise<number> {
    return this.inTransaction(async (tx) => {
      let stmt = this.prepared.get(sql);
      if (!stmt) {
        stmt = await tx.newStatementAsync(sql);
        this.prepared.set(sql, stmt);
      }
      let changed = 0;
      for (const params of rows) {
        const res = (await stmt.executeAsync(tx, [...params], { withMeta: true })) as { affectedRows?: number } | undefined;
        changed += res?.affectedRows ?? 0;
      }
      return changed;
    });
  }

  private async inTransaction<T>(run: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.tx) return run(this.tx);
    const tx = await this.db.startTransactionAsync(READ_COMMITTED);
    try {
      const out = await run(tx);
      await tx.commitAsync();
      return out;
    } catch (err) {
      await tx.rollbackAsync().catch(() => undefined);
      throw err;
    }
  }

  async describe(sql: string): Promise<ResultColumn[]> {
    return this.inTransaction(async (tx) => {
      const stmt = await tx.newStatementAsync(sql);
      let output: (FirebirdColumnMeta & { field?: string; relation?: string; alias?: string; nullable: boolean })[];
      try {
        output = (stmt as unknown as { output: typeof output }).output;
      } finally {
        await stmt.dropAsync().catch(() => undefined);
      }
      // NUMERIC/DECIMAL precision of table columns, from the system tables.
      const precisions = new Map<string, number>();
      const relations = [...new Set(output.filter((c) => c.relation && c.field && c.scale < 0).map((c) => c.relation!))];
      for (const relation of relations) {
        const res = await tx.executeAsync(
          `SELECT TRIM(rf.RDB$FIELD_NAME), f.RDB$FIELD_PRECISION FROM RDB$RELATION_FIELDS rf JOIN RDB$FIELDS f ON f.RDB$FIELD_NAME = rf.RDB$FIELD_SOURCE WHERE rf.RDB$RELATION_NAME = ?`,
          [relation],
        );
        for (const r of res.map(positional)) if (r[1] !== null) precisions.set(`${relation}\u0000${String(r[0])}`, Number(r[1]));
      }
      return output.map((c) => {
        const name = c.alias || c.field || '';
        const reading = firebirdColumnReading(name, c, c.relation ? precisions.get(`${c.relation}\u0000${c.field}`) : undefined);
        return {
          name,
          type: reading.type,
          nullable: c.nullable,
          nativeType: reading.nativeType,
          decode: reading.decode,
          origin: c.relation ? { table: c.relation } : undefined,
        };
      });
    });
  }

  async primaryKey(ref: TableRef): Promise<string[]> {
    const res = await this.execute(
      `SELECT TRIM(s.RDB$FIELD_NAME) FROM RDB$RELATION_CONSTRAINTS rc JOIN RDB$INDEX_SEGMENTS s ON s.RDB$INDEX_NAME = rc.RDB$INDEX_NAME WHERE rc.RDB$RELATION_NAME = ? AND rc.RDB$CONSTRAINT_TYPE = 'PRIMARY KEY' ORDER BY s.RDB$FIELD_POSITION`,
      [ref.table],
    );
    return res.rows.map((r) => String(r[0]));
  }

  async tableExists(ref: TableRef): Promise<boolean> {
    const res = await this.execute('SELECT 1 FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = ?', [ref.table]);
    return res.rows.length > 0;
  }

  /**
   * Streams a query's rows, fetched as the reader asks, in a read-only snapshot of its own.
   * Dates and times are cast to text by a statement around the query (see firebird-types.ts).
   */
  async stream(sql: string, columns: readonly ResultColumn[]): Promise<RowBatchStream> {
    const temporal = columns.map((c) => c.type.kind === 'date' || c.type.kind === 'time' || c.type.kind === 'timestamp');
    let text = sql;
    if (temporal.some(Boolean)) {
      // Positional names for the inner columns: expression columns may share a name.
      const names = columns.map((_, i) => `"tw_c${i}"`);
      const select = names.map((n, i) => (temporal[i] ? `CAST(${n} AS VARCHAR(32))` : n)).join(', ');
      text = `SELECT ${select} FROM (${sql}) tw_text (${names.join(', ')})`;
    }
    const tx = await this.db.startTransactionAsync({ isolation: Firebird.ISOLATION_REPEATABLE_READ, readOnly: true, wait: true });
    try {
      const stmt = await tx.newStatementAsync(text);
      await stmt.executeAsync(tx);
      return new FirebirdRowStream(stmt, tx, decodersOf(columns));
    } catch (err) {
      await tx.rollbackAsync().catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    if (tx) await tx.rollbackAsync().catch(() => undefined);
    for (const stmt of this.prepared.values()) await stmt.dropAsync().catch(() => undefined);
    this.prepared.clear();
    // Every request was awaited; node-firebird may still count a finished one as pending, and would then wait forever.
    await this.db.detachAsync(true).catch(() => undefined);
  }
}
