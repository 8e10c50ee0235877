import { TidewayError } from '@tideway/common';
import { externalError, type JdbcConnection } from '@tideway/connector-jdbc';
import type { CdcCatalog, CdcSourceConfig, JdbcCapturedTable, SchemaRecord } from './cdc-catalog.js';
import type { SnapshotSplit } from './cdc-splits.js';
import type { CdcDialect, ChangeStream, ChangeTxn, ChunkRead, TableReconciliation } from './change-stream.js';

/**
 * The part of a CDC dialect every Jdbc-reachable database shares: a session that reads each
 * snapshot chunk in a transaction whose snapshot the subclass takes (and names by its
 * watermark), and the reconciliation of a restored stream with the tables the config captures
 * now. A subclass adds the change stream and how a transaction compares with a watermark.
 */
export abstract class JdbcCdcDialect<P, W, C extends JdbcConnection, T extends JdbcCapturedTable, Cfg extends CdcSourceConfig>
  implements CdcDialect<P, W>
{
  private conn: C | undefined;
  private tables: Map<string, T> | undefined;

  constructor(protected readonly catalog: CdcCatalog<C, T, Cfg>) {}

  protected get cfg(): Cfg {
    return this.catalog.cfg;
  }

  /**
   * Begins the transaction a chunk is read in and returns its watermark (the snapshot it
   * reads). The transaction is committed, or rolled back, by readChunk.
   */
  protected abstract beginSnapshot(conn: C): Promise<W>;

  abstract openStream(position: P, schema?: unknown): Promise<ChangeStream<P>>;
  abstract snapshotHas(w: W, txn: ChangeTxn<P>): boolean;
  abstract streamPast(w: W, txn: ChangeTxn<P>): boolean;

  /** Once per session, right after it opened (e.g. to learn the server's kind). */
  protected async onSession(_conn: C): Promise<void> {}

  async readChunk(split: SnapshotSplit): Promise<ChunkRead<W> | undefined> {
    const { conn, tables } = await this.session();
    const table = tables.get(split.tableId);
    if (!table) return undefined;
    const where: string[] = [];
    if (split.keyColumn !== undefined && split.lower !== undefined) where.push(`${conn.quote(split.keyColumn)} >= ${split.lower}`);
    if (split.keyColumn !== undefined && split.upper !== undefined) where.push(`${conn.quote(split.keyColumn)} < ${split.upper}`);
    const sql = `SELECT * FROM ${conn.tableSql(table.ref)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    try {
      try {
        const watermark = await this.beginSnapshot(conn);
        const stream = await conn.stream(sql, table.columns, this.cfg.fetchSize);
        const rows: unknown[][] = [];
        for (;;) {
          const batch = await stream.read(this.cfg.fetchSize);
          if (batch.length === 0) break;
          for (const r of batch) rows.push(r);
        }
        await stream.close();
        await conn.execute('COMMIT');
        return { rows, watermark, table: table.catalog };
      } catch (err) {
        await conn.execute('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } catch (err) {
      throw err instanceof TidewayError ? err : externalError(`reading snapshot chunk ${split.splitId}`, err, this.cfg.place);
    }
  }

  /** The restored stream's record against the tables captured now (CdcCatalog.reconcile). */
  async reconcileTables(schema: unknown): Promise<TableReconciliation> {
    const { conn, tables } = await this.session();
    return this.catalog.reconcile(conn, [...tables.values()], schema);
  }

  async close(): Promise<void> {
    await this.conn?.close();
    this.conn = undefined;
  }

  /** The session chunks are read on, and the captured tables by id (discovered once). */
  protected async session(): Promise<{ conn: C; tables: Map<string, T> }> {
    if (!this.conn) {
      this.conn = await this.catalog.connect();
      await this.onSession(this.conn);
    }
    this.tables ??= new Map((await this.catalog.discover(this.conn)).map((t) => [t.catalog.tableId, t]));
    return { conn: this.conn, tables: this.tables };
  }

  /** The schema record of the captured tables now (a stream restored without one). */
  protected async currentRecord(what: string): Promise<SchemaRecord> {
    const { conn, tables } = await this.session();
    try {
      return await this.catalog.readSchemaRecord(conn, [...tables.values()]);
    } catch (err) {
      throw externalError(what, err, this.cfg.place);
    }
  }
}
