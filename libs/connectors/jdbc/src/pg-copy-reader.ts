import { asError } from '@tideway/common';
import type pg from 'pg';
import type { RowBatchStream } from './jdbc-connection.js';
import { CopyTextRowParser } from './pg-copy-text.js';
import type { ValueDecoder } from './value-codec.js';

/**
 * Turns COPY output (the CopyData payloads, frames stripped) into rows, for PgCopyOutStream.
 */
export interface CopyOutParser<R> {
  /** The COPY statement's options: '' for text, ' (FORMAT binary)'. */
  readonly options: string;
  /**
   * Whether the rows parse() makes keep references into the buffer they were parsed from: the
   * stream then moves the bytes left over to a new buffer instead of over the parsed ones.
   */
  readonly keepsBuffer: boolean;
  /** Parses the complete rows of buf[start, end) into `out`; returns where the first incomplete one begins. */
  parse(buf: Buffer, start: number, end: number, out: R[]): number;
  /**
   * Optional, for parsers that keep buffers: how many bytes of next[0, nextLen) complete the row
   * begun in head[0, headLen), or -1 when they do not (or the parser cannot tell yet). The
   * stream then copies only those bytes, and parses the rest of a socket chunk where it is.
   */
  completes?(head: Buffer, headLen: number, next: Buffer, nextLen: number): number;
  /** Called once the COPY's data has ended with `left` bytes unparsed: throws if the output is cut short. */
  end(left: number): void;
}

/** COPY's text format: complete lines are decoded once and split into fields (pg-copy-text.ts). */
class TextCopyParser implements CopyOutParser<unknown[]> {
  readonly options = '';
  readonly keepsBuffer = false;
  private readonly parser: CopyTextRowParser;

  constructor(decoders: readonly ValueDecoder[]) {
    this.parser = new CopyTextRowParser(decoders);
  }

  parse(buf: Buffer, start: number, end: number, out: unknown[][]): number {
    const last = buf.lastIndexOf(0x0a, end - 1);
    if (last < start) return start;
    this.parser.parseText(buf.toString('utf8', start, last + 1), out);
    return last + 1;
  }

  end(left: number): void {
    if (left > 0) throw new Error('COPY output ended in the middle of a row');
  }
}

/** Protocol message types this reader looks at (PostgreSQL's protocol, message formats). */
const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'

/**
 * Rows parsed ahead of the consumer before the socket is paused (PostgreSQL then waits): at most
 * this many, and at most about READ_AHEAD_BYTES of row text, whichever comes first, so wide rows
 * do not pile up in memory.
 */
const READ_AHEAD_ROWS = 8192;
const READ_AHEAD_BYTES = 16 << 20;

/** What this reader needs of pg's connection (pg has no typings for it). */
interface PgWire {
  readonly stream: {
    listeners(event: 'data'): Array<(chunk: Buffer) => void>;
    removeListener(event: 'data', fn: (chunk: Buffer) => void): void;
    on(event: 'data', fn: (chunk: Buffer) => void): void;
    pause(): void;
    resume(): void;
  };
  query(text: string): void;
}

/**
 * The rows of `COPY (query) TO STDOUT`, in batches, parsed by a CopyOutParser (the text format
 * into values here; PostgreSQL's binary format into undecoded rows in pg-binary-rows.ts). PostgreSQL streams the whole result without
 * round trips, one CopyData message per row. This reader is a pg "submittable" query that takes
 * the socket's bytes while the COPY runs (as pg-copy-streams does) and strips the message frames
 * itself: payloads are copied into one buffer, decoded to text once per socket chunk and parsed
 * per field (pg-copy-text.ts). Per row that is a fraction of the work of pg-copy-streams (a
 * buffer object per message) and of a cursor (a message object and a string per field). Once
 * the COPY ends, or PostgreSQL reports an error, the rest of the bytes go back to pg.
 *
 * Back-pressure: past the read-ahead (rows, bounded by bytes) the socket is paused, so
 * PostgreSQL blocks on its send buffer until the consumer catches up.
 */
export class PgCopyOutStream<R> {
  /** The query text pg's Client#query sees (it is sent by submit()). */
  readonly text: string;
  private wire: PgWire | undefined;
  private pgOnData: ((chunk: Buffer) => void) | undefined;
  /** Unparsed CopyData payload bytes: rows not yet complete. */
  private acc = Buffer.allocUnsafe(1 << 16);
  private accLen = 0;
  /** The message being read: its type and the payload bytes still to come. */
  private code = -1;
  private remaining = 0;
  /** Header bytes of a message split across socket chunks. */
  private readonly header = Buffer.alloc(5);
  private headerLen = 0;
  private rows: R[] = [];
  /** How many parsed rows may wait for the consumer (READ_AHEAD_*, by the rows' mean width). */
  private readAhead = READ_AHEAD_ROWS;
  private parsedRows = 0;
  private parsedBytes = 0;
  private paused = false;
  private discard = false;
  private copyDone = false;
  private finished = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer): void => this.consume(chunk);

  constructor(
    client: pg.Client,
    sql: string,
    private readonly parser: CopyOutParser<R>,
    private readonly cancel: () => Promise<void>,
  ) {
    this.text = `COPY (${sql}) TO STDOUT${parser.options}`;
    // pg queues the query and calls submit() when the session is free.
    void client.query(this as unknown as pg.Submittable);
  }

  /** pg: the session is ours; send the statement and take the socket's bytes (an Error returned fails the query). */
  submit(connection: unknown): Error | undefined {
    if (this.discard) return new Error('the COPY was closed before it started');
    const wire = connection as PgWire;
    this.wire = wire;
    const handlers = wire.stream.listeners('data');
    if (handlers.length !== 1)
      return new Error(
        `pg's connection has ${handlers.length} data listeners where this reader expects 1: has pg changed how it reads its socket?`,
      );
    this.pgOnData = handlers[0];
    wire.stream.removeListener('data', this.pgOnData);
    wire.stream.on('data', this.onData);
    wire.query(this.text);
    return undefined;
  }

  /** pg: the COPY's CommandComplete (after CopyDone). */
  handleCommandComplete(): void {}

  /** pg: the session is free again. */
  handleReadyForQuery(): void {
    this.finished = true;
    this.notify();
  }

  /** pg: PostgreSQL reported an error (the session is freed right after). */
  handleError(err: unknown): void {
    this.error ??= asError(err);
    this.finished = true;
    this.notify();
  }

  async read(max: number): Promise<R[]> {
    for (;;) {
      if (this.error !== undefined) throw this.error;
      if (this.rows.length > 0) {
        const out = this.take(max);
        if (this.paused && this.rows.length < this.readAhead) {
          this.paused = false;
          this.wire!.stream.resume();
        }
        return out;
      }
      if (this.finished) {
        this.parser.end(this.accLen);
        return [];
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Stops a COPY still running (a cancel request) and waits until the session is free again. */
  async close(): Promise<void> {
    if (this.finished) return;
    this.discard = true;
    this.rows = [];
    if (this.paused) {
      this.paused = false;
      this.wire?.stream.resume();
    }
    // Not sent yet (queued behind another statement): submit() refuses it, nothing to cancel.
    // Waiting for a cancel request too keeps it from reaching the session's next statement.
    const cancelled = this.wire ? this.cancel() : Promise.resolve();
    while (!this.finished) await new Promise<void>((resolve) => (this.wake = resolve));
    await cancelled;
    this.error = undefined;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private take(max: number): R[] {
    if (this.rows.length <= max) {
      const out = this.rows;
      this.rows = [];
      return out;
    }
    const out = this.rows.slice(0, max);
    this.rows = this.rows.slice(max);
    return out;
  }

  /** Strips the frames of one socket chunk, keeps CopyData payloads, parses the complete rows. */
  private consume(chunk: Buffer): void {
    let i = 0;
    const len = chunk.length;
    // The chunk's CopyData payloads are moved together at its start, over the frames already
    // read (the chunk is this listener's alone), and appended in one copy: a copy per row cost
    // a view object per call in Node's Buffer#copy.
    let w = 0;
    while (i < len) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, len - i);
        if (this.code === COPY_DATA && !this.discard) {
          if (w !== i) chunk.copyWithin(w, i, i + n);
          w += n;
        }
        this.remaining -= n;
        i += n;
        continue;
      }
      // A message header: type byte, then a length that counts itself but not the type.
      let code: number;
      let size: number;
      let split = false;
      if (this.headerLen > 0 || len - i < 5) {
        const n = Math.min(5 - this.headerLen, len - i);
        chunk.copy(this.header, this.headerLen, i, i + n);
        this.headerLen += n;
        i += n;
        if (this.headerLen < 5) break;
        this.headerLen = 0;
        split = true;
        code = this.header[0]!;
        size = this.header.readUInt32BE(1) - 4;
      } else {
        code = chunk[i]!;
        size = chunk.readUInt32BE(i + 1) - 4;
        i += 5;
      }
      if (code === COPY_DONE || code === ERROR_RESPONSE) {
        // The COPY's data ends here. After CopyDone come CommandComplete and ReadyForQuery; an
        // ErrorResponse, header included, is pg's to read.
        this.copyDone = true;
        if (w > 0) this.append(chunk, 0, w);
        this.parseComplete();
        if (code === COPY_DONE) this.handBack(chunk.subarray(i + size));
        else this.handBack(split ? Buffer.concat([this.header, chunk.subarray(i)]) : chunk.subarray(i - 5));
        return;
      }
      // CopyData; or CopyOutResponse, NoticeResponse, ParameterStatus: skipped.
      this.code = code;
      this.remaining = size;
    }
    this.takePayload(chunk, w);
  }

  /**
   * Takes a chunk's payload bytes, chunk[0, w). A parser whose rows point into their buffer
   * (the binary format) parses the chunk where it is: only a row begun in the previous chunk is
   * completed in the reader's own buffer, and the bytes of the row the chunk ends in are kept
   * there for the next one. Otherwise the bytes are appended and parsed there.
   */
  private takePayload(chunk: Buffer, w: number): void {
    const need = this.parser.completes?.(this.acc, this.accLen, chunk, w) ?? -1;
    if (need < 0 || this.error !== undefined) {
      if (w > 0) this.append(chunk, 0, w);
      this.parseComplete();
      return;
    }
    if (need > 0) {
      this.append(chunk, 0, need);
      this.parseComplete();
    }
    if (this.accLen > 0 || this.error !== undefined) {
      // Not parsed whole after all (its bytes were wrong): the rest goes the plain way.
      if (w > need) this.append(chunk, need, w);
      this.parseComplete();
      return;
    }
    const used = this.parseRows(chunk, need, w);
    if (used < w) this.append(chunk, used, w);
  }

  private append(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (this.accLen + n > this.acc.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.acc.length * 2, this.accLen + n));
      this.acc.copy(bigger, 0, 0, this.accLen);
      this.acc = bigger;
    }
    chunk.copy(this.acc, this.accLen, from, to);
    this.accLen += n;
  }

  /** Parses the complete rows gathered so far; keeps a partial row's bytes for the next chunk. */
  private parseComplete(): void {
    if (this.accLen === 0) return;
    const used = this.parseRows(this.acc, 0, this.accLen);
    if (used === 0) return;
    const left = this.accLen - used;
    if (this.parser.keepsBuffer) {
      // The parsed rows point into this buffer: the rest starts a new one (small: with
      // takePayload it holds one row at a time; append() grows it for a longer one).
      const next = Buffer.allocUnsafe(Math.max(1024, left * 2));
      this.acc.copy(next, 0, used, this.accLen);
      this.acc = next;
    } else {
      this.acc.copy(this.acc, 0, used, this.accLen);
    }
    this.accLen = left;
  }

  /**
   * Parses the complete rows of buf[start, end); returns where the rest begins (`start` after an
   * error, which read() then throws).
   */
  private parseRows(buf: Buffer, start: number, end: number): number {
    const before = this.rows.length;
    let used: number;
    try {
      used = this.parser.parse(buf, start, end, this.rows);
    } catch (err) {
      this.error ??= asError(err);
      this.notify();
      return start;
    }
    if (used > start) this.parsed(before, used - start);
    return used;
  }

  /** After a parse: the read-ahead bound by the rows' mean width, the consumer woken, the socket paused past the bound. */
  private parsed(before: number, bytes: number): void {
    this.parsedRows += this.rows.length - before;
    this.parsedBytes += bytes;
    if (this.parsedRows > 0)
      this.readAhead = Math.max(16, Math.min(READ_AHEAD_ROWS, Math.floor(READ_AHEAD_BYTES / (this.parsedBytes / this.parsedRows))));
    this.notify();
    if (!this.paused && !this.copyDone && this.rows.length >= this.readAhead) {
      this.paused = true;
      this.wire!.stream.pause();
    }
  }

  /** Gives the socket back to pg, with the bytes it has to read first. */
  private handBack(rest: Buffer): void {
    const wire = this.wire!;
    wire.stream.removeListener('data', this.onData);
    wire.stream.on('data', this.pgOnData!);
    if (this.paused) {
      this.paused = false;
      wire.stream.resume();
    }
    if (rest.length > 0) this.pgOnData!(rest);
  }
}

/** `COPY (query) TO STDOUT` in the text format, each row decoded into values. */
export class PgCopyRowStream extends PgCopyOutStream<unknown[]> implements RowBatchStream {
  constructor(client: pg.Client, sql: string, decoders: readonly ValueDecoder[], cancel: () => Promise<void>) {
    super(client, sql, new TextCopyParser(decoders), cancel);
  }
}
