import { connect, type Socket } from 'node:net';
import { ErrorCode, TidewayError } from '@tideway/common';
import { describeConnection, type Command, type RedisConnection } from './client.js';

/** How long a batch may wait for its replies before the connection is given up. */
const REPLY_TIMEOUT_MS = 30_000;

/**
 * The sink's write connection to a single server: commands encoded as RESP arrays straight into
 * one socket write per batch, replies counted as they arrive (docs/decisions/0050: ioredis'
 * per-command objects and promises cost more than Redis' own work on the write path).
 *
 * Only for commands whose every reply is one line: simple strings (+OK), integers and errors.
 * That holds for everything the sink sends (AUTH, SELECT, SET, HSET, HDEL, LPUSH, LREM, SADD,
 * SREM, ZADD, ZREM, DEL, EXPIRE), so counting line ends counts replies; a bulk or array reply
 * would break the count and must never be asked for here.
 */
export class RespWriter {
  private pending = 0;
  private atLineStart = true;
  private errorLine: string | undefined;
  private firstError: string | undefined;
  private failure: Error | undefined;
  private waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly where: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('the connection closed')));
    socket.on('timeout', () => {
      if (this.pending > 0) socket.destroy(new Error(`no reply within ${REPLY_TIMEOUT_MS / 1000} s`));
    });
  }

  /** Connects, sends AUTH and SELECT, and waits for their answers. */
  static async open(c: RedisConnection): Promise<RespWriter> {
    const where = describeConnection(c);
    const socket = connect({ host: c.host, port: c.port });
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
    const writer = new RespWriter(socket, where);
    const hello: Command[] = [];
    if (c.auth !== undefined) hello.push(c.user !== undefined ? ['AUTH', c.user, c.auth] : ['AUTH', c.auth]);
    if (c.db !== 0) hello.push(['SELECT', c.db]);
    await writer.run(hello);
    return writer;
  }

  /** Sends the commands in one write and resolves when every reply came; rejects with the first error reply. */
  async run(commands: readonly Command[]): Promise<void> {
    if (commands.length === 0) return;
    if (this.failure) throw this.failure;
    let text = '';
    for (const cmd of commands) {
      text += `*${cmd.length}\r\n`;
      for (const arg of cmd) {
        const s = typeof arg === 'string' ? arg : String(arg);
        text += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
      }
    }
    this.pending += commands.length;
    const done = new Promise<void>((resolve, reject) => (this.waiter = { resolve, reject }));
    this.socket.setTimeout(REPLY_TIMEOUT_MS);
    this.socket.write(text);
    await done;
    this.socket.setTimeout(0);
    const error = this.firstError;
    this.firstError = undefined;
    if (error !== undefined) throw new TidewayError(ErrorCode.CONNECTOR_IO, `${this.where} answered ${error}`, { retryable: true });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.atLineStart) {
        this.atLineStart = false;
        if (b === 45 /* - */) this.errorLine = '';
      }
      if (b === 10 /* \n */) {
        if (this.errorLine !== undefined) {
          this.firstError ??= this.errorLine.replace(/^-/, '').replace(/\r$/, '');
          this.errorLine = undefined;
        }
        this.atLineStart = true;
        this.pending--;
      } else if (this.errorLine !== undefined && this.errorLine.length < 500) {
        this.errorLine += String.fromCharCode(b);
      }
    }
    if (this.pending === 0 && this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve();
    }
  }

  private fail(err: Error): void {
    this.failure ??= new TidewayError(ErrorCode.CONNECTOR_IO, `writing to ${this.where} failed: ${err.message}`, {
      retryable: true,
      cause: err,
    });
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(this.failure);
  }
}
