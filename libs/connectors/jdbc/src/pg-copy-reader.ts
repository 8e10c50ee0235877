import type pg from 'pg';
import type { Readable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import type { RowBatchStream } from './jdbc-connection.js';
import { CopyTextRowParser } from './pg-copy-text.js';
import type { ValueDecoder } from './value-codec.js';

/** Bytes of COPY output read ahead of the rows handed out: PostgreSQL keeps sending meanwhile. */
const READ_AHEAD_BYTES = 1 << 20;

/**
 * The rows of `COPY (query) TO STDOUT`, in batches. PostgreSQL streams the whole result without
 * waiting for round trips, and its text output is parsed per chunk (pg-copy-text.ts): about half
 * the client CPU of a cursor, whose every row is a protocol message decoded field by field.
 * Back-pressure is the socket's: when nobody reads, the read-ahead buffer fills and pg stops
 * reading, and PostgreSQL waits on its send buffer.
 */
export class PgCopyRowStream implements RowBatchStream {
  private readonly copy: Readable;
  private readonly parser: CopyTextRowParser;
  private rows: unknown[][] = [];
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;
  private readonly notify = (): void => {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  };

  constructor(
    private readonly client: pg.Client,
    sql: string,
    decoders: readonly ValueDecoder[],
    private readonly cancel: () => Promise<void>,
  ) {
    this.parser = new CopyTextRowParser(decoders);
    this.copy = client.query(copyTo(`COPY (${sql}) TO STDOUT`, { highWaterMark: READ_AHEAD_BYTES }));
    const notify = this.notify;
    this.copy.on('readable', notify);
    this.copy.on('end', () => {
      this.ended = true;
      notify();
    });
    this.copy.on('error', (err) => {
      this.error ??= err;
      notify();
    });
  }

  async read(max: number): Promise<unknown[][]> {
    for (;;) {
      // Parse what has arrived, up to a batch; hand out what there is rather than wait for more.
      let chunk: Buffer | null;
      while (this.rows.length < max && (chunk = this.copy.read() as Buffer | null) !== null) this.parser.push(chunk, this.rows);
      if (this.error !== undefined) throw this.error;
      if (this.rows.length > 0) return this.take(max);
      if (this.ended) {
        this.parser.end();
        return [];
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private take(max: number): unknown[][] {
    if (this.rows.length <= max) {
      const out = this.rows;
      this.rows = [];
      return out;
    }
    const out = this.rows.slice(0, max);
    this.rows = this.rows.slice(max);
    return out;
  }

  /** Stops a COPY still running (a cancel request), and waits until the session is free again. */
  async close(): Promise<void> {
    if (this.ended || this.error !== undefined) return;
    const done = new Promise<void>((resolve) => {
      this.copy.once('end', resolve);
      this.copy.once('error', () => resolve());
      this.copy.once('close', resolve);
    });
    const cancelled = this.cancel();
    // Drain until PostgreSQL reports the cancel (or the end, had it just finished); a stream
    // with a 'readable' listener does not flow. Waiting for the cancel request too keeps it from
    // reaching the session's next statement.
    this.copy.removeListener('readable', this.notify);
    this.copy.resume();
    await Promise.all([cancelled, done]);
    this.rows = [];
  }
}
