import { RowKind, type Collector, type Row, type RowEncodingOffer, type SourceReader, type SourceReaderContext } from '@tideway/api';
import { logger, type Place } from '@tideway/common';
import { externalError } from './db-errors.js';
import type { JdbcConnection, ResultColumn, RowBatchStream } from './jdbc-connection.js';
import { splitStatement, type JdbcSplit } from './jdbc-split.js';
import { PG_COPY_BINARY, PgBinaryLayout, type PgBinaryRow } from './pg-binary-rows.js';
import type { PgConnection } from './pg-connection.js';
import type { PgCopyOutStream } from './pg-copy-reader.js';

const log = logger('jdbc-source');

/** A split being read: rows of values, or (PostgreSQL to a PostgreSQL sink) undecoded binary tuples. */
type OpenSplit =
  | { readonly split: JdbcSplit; readonly stream: RowBatchStream; readonly binary?: undefined }
  | { readonly split: JdbcSplit; readonly binary: PgCopyOutStream<PgBinaryRow> };

/**
 * Reads its splits one after another over one connection, up to `fetchSize` rows per poll,
 * streamed: COPY TO STDOUT on PostgreSQL, a streamed result on MySQL. Progress is kept in the split, so
 * snapshotState() returns splits that resume where the reading stopped.
 */
export class JdbcSourceReader implements SourceReader<JdbcSplit> {
  private conn: JdbcConnection | undefined;
  private readonly queue: JdbcSplit[] = [];
  private current: OpenSplit | undefined;
  private noMoreSplits = false;
  private finished = false;
  private readonly columnsByTable = new Map<string, ResultColumn[]>();
  /** The sink's offer to take PostgreSQL's binary tuples undecoded (RowEncodingOffer), if any. */
  private binaryOffer: RowEncodingOffer | undefined;
  /** Per table: its binary layout when the offer accepted it, null when not. */
  private readonly binaryByTable = new Map<string, PgBinaryLayout | null>();

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly connect: () => Promise<JdbcConnection>,
    private readonly fetchSize: number,
    private readonly place: Place,
  ) {}

  async open(): Promise<void> {
    this.conn = await this.connect();
  }

  addSplits(splits: JdbcSplit[]): void {
    for (const s of splits) this.queue.push({ ...s });
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  /** Taken on PostgreSQL: tables whose every column has an exact binary decoder are then read in COPY's binary format. */
  offerRowEncoding(offer: RowEncodingOffer): void {
    if (offer.encoding === PG_COPY_BINARY) this.binaryOffer = offer;
  }

  async pollNext(output: Collector): Promise<void> {
    if (this.finished) return;
    if (!this.current) {
      const split = this.queue.shift();
      if (!split) {
        if (this.noMoreSplits) {
          this.finished = true;
          this.ctx.signalNoMoreElement();
        }
        return;
      }
      this.current = await this.openSplit(split);
    }
    const open = this.current;
    const split = open.split;
    let rows: unknown[][] | PgBinaryRow[];
    try {
      rows = open.binary ? await open.binary.read(this.fetchSize) : await open.stream.read(this.fetchSize);
    } catch (err) {
      throw externalError(`reading split ${split.splitId}`, err, this.place);
    }
    if (rows.length === 0) {
      await (open.binary ?? open.stream).close();
      this.current = undefined;
      return;
    }
    split.rowsRead += rows.length;
    if (open.binary) {
      const binary = rows as PgBinaryRow[];
      if (split.orderKeyIndex !== undefined) split.lastKey = binary[binary.length - 1].field(split.orderKeyIndex) as JdbcSplit['lastKey'];
      output.collectBatch(binary);
      return;
    }
    const values = rows as unknown[][];
    const batch = new Array<Row>(values.length);
    const tableId = split.tableId;
    for (let i = 0; i < values.length; i++) batch[i] = { kind: RowKind.INSERT, tableId, fields: values[i] };
    if (split.orderKeyIndex !== undefined) split.lastKey = values[values.length - 1][split.orderKeyIndex] as JdbcSplit['lastKey'];
    output.collectBatch(batch);
  }

  snapshotState(): JdbcSplit[] {
    const owned = this.current ? [this.current.split, ...this.queue] : this.queue;
    return owned.map((s) => ({ ...s }));
  }

  async close(): Promise<void> {
    const open = this.current;
    if (open) await (open.binary ?? open.stream).close().catch(() => undefined);
    this.current = undefined;
    await this.conn?.close();
    this.conn = undefined;
  }

  private async openSplit(split: JdbcSplit): Promise<OpenSplit> {
    const conn = this.conn ?? (this.conn = await this.connect());
    try {
      let columns = this.columnsByTable.get(split.tableId);
      if (!columns) {
        columns = await conn.describe(split.query);
        this.columnsByTable.set(split.tableId, columns);
      }
      const sql = splitStatement(conn, split);
      const layout = await this.binaryLayout(conn, split.tableId, columns);
      if (layout) return { split, binary: (conn as PgConnection).streamBinary(sql, split.tableId, layout) };
      return { split, stream: await conn.stream(sql, columns, this.fetchSize) };
    } catch (err) {
      throw externalError(`reading split ${split.splitId}`, err, this.place);
    }
  }

  /** The table's binary layout when it is read for the pass-through (asked of the sink once per table). */
  private async binaryLayout(conn: JdbcConnection, tableId: string, columns: readonly ResultColumn[]): Promise<PgBinaryLayout | undefined> {
    const offer = this.binaryOffer;
    if (!offer || conn.dialect !== 'postgresql') return undefined;
    let layout = this.binaryByTable.get(tableId);
    if (layout === undefined) {
      const candidate = PgBinaryLayout.of(columns);
      layout = candidate && (await offer.accepts(tableId, candidate)) ? candidate : null;
      this.binaryByTable.set(tableId, layout);
      if (this.ctx.subtaskIndex === 0)
        log.info(
          { table: tableId },
          layout
            ? `table ${tableId} is read in COPY's binary format and its rows go to the PostgreSQL sink undecoded`
            : candidate
              ? `table ${tableId} is read as values: the sink's target columns are not of the source's types`
              : `table ${tableId} is read as values: a column's type has no binary decoder here`,
        );
    }
    return layout ?? undefined;
  }
}
