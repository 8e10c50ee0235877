import { RowKind, type Collector, type Row, type SourceReader, type SourceReaderContext } from '@tideway/api';
import type { Place } from '@tideway/common';
import { externalError } from './db-errors.js';
import type { JdbcConnection, ResultColumn, RowBatchStream } from './jdbc-connection.js';
import { splitStatement, type JdbcSplit } from './jdbc-split.js';

/**
 * Reads its splits one after another over one connection, up to `fetchSize` rows per poll,
 * streamed: COPY TO STDOUT on PostgreSQL, a streamed result on MySQL. Progress is kept in the split, so
 * snapshotState() returns splits that resume where the reading stopped.
 */
export class JdbcSourceReader implements SourceReader<JdbcSplit> {
  private conn: JdbcConnection | undefined;
  private readonly queue: JdbcSplit[] = [];
  private current: { split: JdbcSplit; stream: RowBatchStream } | undefined;
  private noMoreSplits = false;
  private finished = false;
  private readonly columnsByTable = new Map<string, ResultColumn[]>();

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
      this.current = { split, stream: await this.openSplit(split) };
    }
    const { split, stream } = this.current;
    let rows: unknown[][];
    try {
      rows = await stream.read(this.fetchSize);
    } catch (err) {
      throw externalError(`reading split ${split.splitId}`, err, this.place);
    }
    if (rows.length === 0) {
      await stream.close();
      this.current = undefined;
      return;
    }
    const batch = new Array<Row>(rows.length);
    const tableId = split.tableId;
    for (let i = 0; i < rows.length; i++) batch[i] = { kind: RowKind.INSERT, tableId, fields: rows[i] };
    split.rowsRead += rows.length;
    if (split.orderKeyIndex !== undefined) split.lastKey = rows[rows.length - 1][split.orderKeyIndex] as JdbcSplit['lastKey'];
    output.collectBatch(batch);
  }

  snapshotState(): JdbcSplit[] {
    const owned = this.current ? [this.current.split, ...this.queue] : this.queue;
    return owned.map((s) => ({ ...s }));
  }

  async close(): Promise<void> {
    await this.current?.stream.close().catch(() => undefined);
    this.current = undefined;
    await this.conn?.close();
    this.conn = undefined;
  }

  private async openSplit(split: JdbcSplit): Promise<RowBatchStream> {
    const conn = this.conn ?? (this.conn = await this.connect());
    try {
      let columns = this.columnsByTable.get(split.tableId);
      if (!columns) {
        columns = await conn.describe(split.query);
        this.columnsByTable.set(split.tableId, columns);
      }
      return await conn.stream(splitStatement(conn, split), columns, this.fetchSize);
    } catch (err) {
      throw externalError(`reading split ${split.splitId}`, err, this.place);
    }
  }
}
