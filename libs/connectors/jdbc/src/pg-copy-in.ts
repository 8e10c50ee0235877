import { asError } from '@tideway/common';
import type pg from 'pg';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER } from './pg-copy-binary.js';

/**
 * One `COPY ... FROM STDIN` statement left open while batches are written into it. PostgreSQL
 * pays a fixed cost per COPY statement that, at 1,000-row batches, halves its rate (measured
 * here: 1,000-row COPYs 130-155k rows/s, one COPY 180-310k rows/s on the same data); streaming
 * the batches into one statement leaves the server only the per-row work. Writes wait only for
 * the socket to take the data (back-pressure), never for a round trip.
 *
 * Binary runs get the format's header when they open and its trailer when they end, so each
 * batch is just tuples. An error the server reports mid-stream (a constraint, a bad value)
 * fails the next write or the end; PostgreSQL drops whatever data follows it.
 */
export class CopyIn {
  private error: Error | undefined;
  private readonly done: Promise<void>;

  private constructor(
    private readonly stream: ReturnType<typeof copyFrom>,
    private readonly format: 'text' | 'binary',
  ) {
    stream.on('error', (err) => {
      this.error ??= asError(err);
    });
    this.done = finished(stream);
    this.done.catch(() => undefined);
  }

  static async open(client: pg.Client, sql: string, format: 'text' | 'binary'): Promise<CopyIn> {
    const copy = new CopyIn(client.query(copyFrom(sql)), format);
    if (format === 'binary') await copy.write(COPY_BINARY_HEADER);
    return copy;
  }

  /** Throws what failed the COPY, if anything has. */
  private throwIfFailed(): void {
    if (this.error !== undefined) throw this.error;
  }

  /** Sends data; resolves once the socket has taken it, rejects if the COPY has failed. */
  async write(data: Buffer): Promise<void> {
    this.throwIfFailed();
    if (!this.stream.write(data)) {
      await Promise.race([once(this.stream, 'drain'), this.done]);
      this.throwIfFailed();
    }
  }

  /** Ends the statement and waits for PostgreSQL to complete it (rows inserted, or its error). */
  async end(): Promise<void> {
    this.throwIfFailed();
    if (this.format === 'binary') this.stream.write(COPY_BINARY_TRAILER);
    this.stream.end();
    await this.done;
  }

  /** Abandons the statement (CopyFail): nothing of it is inserted. */
  async abort(): Promise<void> {
    if (this.error === undefined && !this.stream.destroyed) this.stream.destroy(new Error('the COPY was abandoned'));
    await this.done.catch(() => undefined);
  }
}
