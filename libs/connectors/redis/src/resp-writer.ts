import { connect, type Socket } from 'node:net';
import type { Row } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { describeConnection, type Command, type RedisConnection } from './client.js';
import { commandName, RespEncoder } from './resp-encoder.js';

/** How long sent commands may wait for their replies before the connection is given up. */
const REPLY_TIMEOUT_MS = 30_000;

/**
 * The sink's write connection to a single server: RESP bytes go out as they are given, replies
 * are counted as they arrive (docs/decisions/0050: ioredis' per-command objects and promises
 * cost more than Redis' own work on the write path).
 *
 * Only for commands whose every reply is one line: simple strings (+OK), integers and errors.
 * That holds for everything the sink sends (AUTH, SELECT, SET, HSET, HDEL, LPUSH, LREM, SADD,
 * SREM, ZADD, ZREM, DEL, EXPIRE), so counting line ends counts replies; a bulk or array reply
 * would break the count and must never be asked for here.
 *
 * An error reply fails the connection for good (it is reported once every reply of its batch
 * came, and by every later call): the task fails and its restore replays from the checkpoint.
 * With `rowLevel` (the sink's handleRowErrors), an error reply it accepts is instead kept with
 * its place in the batch (`takeRowErrors`) and the connection goes on.
 */
export class RespConnection {
  private pending = 0;
  private atLineStart = true;
  private errorLine: string | undefined;
  private replyError: string | undefined;
  private failure: TidewayError | undefined;
  private waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** Replies the last send asked for: an error reply's place in its batch is this minus those still awaited. */
  private batchReplies = 0;
  /** Which error replies are a command's own, not the connection's (set by acceptRowErrors). */
  private rowLevel: ((message: string) => boolean) | undefined;
  /** Error replies `rowLevel` accepted since the last takeRowErrors: [place in the batch, message]. */
  private rowErrors: [number, string][] = [];

  private constructor(
    private readonly socket: Socket,
    private readonly where: string,
    replies: { read?: (buf: Uint8Array, n: number) => void },
  ) {
    socket.setNoDelay(true);
    replies.read = (buf, n) => this.onData(buf, n);
    socket.on('error', (err) => this.fail(`writing to ${where} failed: ${err.message}`, err));
    socket.on('close', () => this.fail(`writing to ${where} failed: the connection closed`));
    // Idle time with no reply: only a failure while replies are awaited.
    socket.setTimeout(REPLY_TIMEOUT_MS);
    socket.on('timeout', () => {
      if (this.pending > 0) socket.destroy(new Error(`no reply within ${REPLY_TIMEOUT_MS / 1000} s`));
    });
  }

  /** Connects, sends AUTH and SELECT, and waits for their answers. */
  static async open(c: RedisConnection): Promise<RespConnection> {
    const where = describeConnection(c);
    // Replies are read into one reused buffer (no Buffer and no stream event per read).
    const replies: { read?: (buf: Uint8Array, n: number) => void } = {};
    const socket = connect({
      host: c.host,
      port: c.port,
      onread: {
        buffer: Buffer.allocUnsafe(64 * 1024),
        callback: (n, buf) => {
          replies.read?.(buf, n);
          return true; // keep reading
        },
      },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
    } catch (err) {
      socket.destroy();
      throw new TidewayError(ErrorCode.CONNECTOR_IO, `cannot connect to ${where}: ${(err as Error).message}`, {
        retryable: true,
        cause: err,
      });
    }
    const conn = new RespConnection(socket, where, replies);
    const hello: Command[] = [];
    if (c.auth !== undefined) hello.push(c.user !== undefined ? ['AUTH', c.user, c.auth] : ['AUTH', c.auth]);
    if (c.db !== 0) hello.push(['SELECT', c.db]);
    try {
      await conn.run(hello);
    } catch (err) {
      conn.close();
      throw err;
    }
    return conn;
  }

  /** From now on, an error reply `rowLevel` accepts is kept for takeRowErrors instead of failing the connection. */
  acceptRowErrors(rowLevel: (message: string) => boolean): void {
    this.rowLevel = rowLevel;
  }

  /** The error replies accepted since the last call, each with its place in its batch (0 its first command). */
  takeRowErrors(): [number, string][] {
    const out = this.rowErrors;
    if (out.length > 0) this.rowErrors = [];
    return out;
  }

  /** Throws the connection's failure, if it has one. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * Sends encoded commands expecting `replies` replies. The bytes must stay untouched until
   * idle() resolves (every reply came, so the server has read them all).
   */
  send(bytes: Uint8Array, replies: number): void {
    this.check();
    if (replies === 0) return;
    this.pending += replies;
    this.batchReplies = this.pending;
    this.socket.write(bytes);
  }

  /** Resolves when every command sent has its reply; rejects with the connection's failure. */
  idle(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** Sends commands in one write and waits for all their replies. */
  async run(commands: readonly Command[]): Promise<void> {
    if (commands.length === 0) return;
    const enc = new RespEncoder();
    for (const cmd of commands) {
      enc.begin(commandName(cmd[0]), cmd.length);
      for (let i = 1; i < cmd.length; i++) {
        const arg = cmd[i];
        if (typeof arg === 'string') enc.string(arg);
        else if (typeof arg === 'number') enc.string(String(arg));
        else enc.binary(arg);
      }
    }
    await this.idle();
    this.send(enc.bytes(), enc.commands);
    await this.idle();
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Uint8Array, length: number): void {
    let lineStart = this.atLineStart;
    let pending = this.pending;
    for (let i = 0; i < length; i++) {
      const b = chunk[i];
      if (lineStart) {
        lineStart = false;
        if (b === 45 /* - */) this.errorLine = '';
      }
      if (b === 10 /* \n */) {
        if (this.errorLine !== undefined) {
          const message = this.errorLine.replace(/^-/, '').replace(/\r$/, '');
          if (this.rowLevel?.(message)) this.rowErrors.push([this.batchReplies - pending, message]);
          else this.replyError ??= message;
          this.errorLine = undefined;
        }
        lineStart = true;
        pending--;
      } else if (this.errorLine !== undefined && this.errorLine.length < 500) {
        this.errorLine += String.fromCharCode(b);
      }
    }
    this.atLineStart = lineStart;
    this.pending = pending;
    if (pending > 0) return;
    if (this.replyError !== undefined) {
      this.fail(`${this.where} answered ${this.replyError}`);
      return;
    }
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve();
  }

  private fail(message: string, cause?: Error): void {
    this.failure ??= new TidewayError(ErrorCode.CONNECTOR_IO, message, { retryable: true, cause });
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(this.failure);
  }
}

/** How long rows short of a full batch wait for more before they are sent anyway. */
export const LINGER_MS = 5;

/**
 * Pipelined batches on one connection, at most one batch in flight: the commands of the next
 * batch are encoded (into the other of two reused buffers) while the server works through the
 * batch in flight and answers it; the next batch goes out once every reply of that one came and
 * was checked. Rows short of a full batch wait for the next rows, LINGER_MS at most, or for
 * flush() (a checkpoint barrier, close), which also waits for every reply.
 */
export class RespPipeline {
  /** The batch being encoded. */
  private encoding = new RespEncoder();
  /** The batch sent last (its bytes stay untouched until its replies came). */
  private sent = new RespEncoder();
  /** Rows in `encoding`. */
  private rows = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  private lingering: Promise<void> | undefined;
  /** With row-level errors: the rows of `encoding` and of `sent`, each with the number of commands up to its end. */
  private encodingRows: { rows: Row[]; ends: number[] } = { rows: [], ends: [] };
  private sentRows: { rows: Row[]; ends: number[] } = { rows: [], ends: [] };
  /** The rows whose commands Redis refused for themselves, with its answer: handed on by `rejectRows`. */
  private refused: [Row, string][] = [];

  constructor(
    private readonly conn: RespConnection,
    private readonly batchSize: number,
    /** Set for row-level errors (the sink's handleRowErrors): which error replies are a row's own. */
    private readonly rowLevel?: (message: string) => boolean,
  ) {
    if (rowLevel) conn.acceptRowErrors(rowLevel);
  }

  /**
   * The rows of the batches answered so far whose commands Redis refused for themselves, each
   * once with the first such answer; called within the writer's calls (begin, flush).
   */
  takeRefused(): [Row, string][] {
    const out = this.refused;
    if (out.length > 0) this.refused = [];
    return out;
  }

  /** After every reply of `sent` came: its refused rows, found by each error reply's place. */
  private collect(): void {
    if (!this.rowLevel) return;
    const errors = this.conn.takeRowErrors();
    if (errors.length === 0) return;
    const { rows, ends } = this.sentRows;
    let last = -1;
    for (const [at, message] of errors) {
      // the first row whose commands end after `at`
      let lo = 0;
      let hi = ends.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid] > at) hi = mid;
        else lo = mid + 1;
      }
      if (lo === last || rows[lo] === undefined) continue; // a row's second refused command
      last = lo;
      this.refused.push([rows[lo], message]);
    }
  }

  /**
   * Before rows are encoded: stops the linger timer and waits for a lingering send; throws the
   * connection's failure. Returns the encoder to write the rows' commands into.
   */
  async begin(): Promise<RespEncoder> {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (this.lingering) await this.lingering;
    this.conn.check();
    return this.encoding;
  }

  /** After a row's commands were encoded: whether the batch is full (then call next()). */
  rowDone(row: Row): boolean {
    if (this.rowLevel) {
      this.encodingRows.rows.push(row);
      this.encodingRows.ends.push(this.encoding.commands);
    }
    return ++this.rows >= this.batchSize;
  }

  /**
   * At a full batch: waits for the batch in flight, sends this one, and returns the encoder for
   * the next rows.
   */
  async next(): Promise<RespEncoder> {
    await this.ship();
    return this.encoding;
  }

  /** After write()'s rows: rows short of a batch are sent after LINGER_MS unless more come. */
  end(): void {
    if (this.rows === 0 || this.lingerTimer) return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      // A failure stays on the connection: the next call throws it.
      this.lingering = this.ship()
        .catch(() => undefined)
        .finally(() => (this.lingering = undefined));
    }, LINGER_MS);
  }

  /** Sends what is encoded and waits for every reply. */
  async flush(): Promise<void> {
    await this.begin();
    if (this.rows > 0) await this.ship();
    await this.conn.idle();
    this.collect();
  }

  /** Drops rows encoded and not sent (a failed task: its restore replays them). */
  discard(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.encoding.reset();
    this.encodingRows = { rows: [], ends: [] };
    this.rows = 0;
  }

  close(): void {
    this.discard();
    this.conn.close();
  }

  private async ship(): Promise<void> {
    await this.conn.idle();
    this.collect();
    const full = this.encoding;
    this.encoding = this.sent;
    this.encoding.reset();
    this.sent = full;
    if (this.rowLevel) {
      this.sentRows = this.encodingRows;
      this.encodingRows = { rows: [], ends: [] };
    }
    this.rows = 0;
    this.conn.send(full.bytes(), full.commands);
  }
}
