import type { Redis } from 'ioredis';
import { ErrorCode, onFirstUse, TidewayError, type Logger } from '@tideway/common';
import { parseHostPort } from '@tideway/config';

/** ioredis, loaded by the first connection: a process with the memory state store never needs it. */
const ioredis = onFirstUse<typeof import('ioredis')>('ioredis', import.meta.url);

/** How to reach one Redis server. */
export interface RedisConnectionOptions {
  /** host:port. */
  readonly address: string;
  readonly password?: string;
  /** TCP connect (and the first ready check) must finish within this. */
  readonly connectTimeoutMs: number;
  /** A command that gets no reply within this fails (a paused or wedged server). */
  readonly commandTimeoutMs: number;
  /**
   * Commands issued while a reconnect is under way wait for it (the state store) or fail at once
   * (a lock node: its vote must come quickly, and a majority decides without it).
   */
  readonly queueWhileReconnecting: boolean;
  /** What the server is, for log lines: `state store`, `lock node`. */
  readonly role: string;
  readonly log: Logger;
}

/**
 * One ioredis client that never hangs a caller for long and never retries a command by itself:
 * `maxRetriesPerRequest: 0` fails every command that waits on a connection attempt that failed,
 * `autoResendUnfulfilledCommands: false` keeps a write that was sent before the connection
 * dropped from running twice (the caller gets an error saying its outcome is unknown), and
 * `commandTimeout` bounds a server that accepted the connection but answers nothing. After open()
 * the client reconnects by itself, forever, logging the outage once and the recovery once (info).
 */
export class RedisConnection {
  readonly client: Redis;
  readonly address: string;
  /** While opening, a failed attempt is not retried: open() fails at the first error, with its reason. */
  private opening = false;
  private down = false;

  constructor(private readonly opts: RedisConnectionOptions) {
    const hostPort = parseHostPort(opts.address);
    if (!hostPort)
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `the Redis ${opts.role} address '${opts.address}' is not host:port (e.g. 127.0.0.1:6379)`,
      );
    this.address = opts.address;
    this.client = new (ioredis().Redis)({
      host: hostPort.host,
      port: hostPort.port,
      password: opts.password || undefined,
      lazyConnect: true,
      connectTimeout: opts.connectTimeoutMs,
      commandTimeout: opts.commandTimeoutMs,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      enableOfflineQueue: opts.queueWhileReconnecting,
      retryStrategy: (times) => (this.opening ? null : Math.min(100 * times, 1000)),
    });
    this.client.on('error', (err: Error) => this.onError(err));
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      opts.log.info({ address: this.address }, `the Redis ${opts.role} at ${this.address} answers again`);
    });
  }

  private onError(err: Error): void {
    if (this.opening || this.down) return;
    this.down = true;
    this.opts.log.warn(
      { address: this.address, reason: err.message },
      `the Redis ${this.opts.role} at ${this.address} is unreachable (${err.message}); reconnecting quietly`,
    );
  }

  /**
   * Connects and checks the server answers PING, within `timeoutMs` in all (a server that
   * accepts TCP but never answers, e.g. SIGSTOPped, is caught too). Throws the first failure's
   * reason; the client is left disconnected then.
   */
  async open(timeoutMs: number): Promise<void> {
    let firstError: Error | undefined;
    const onError = (err: Error) => {
      firstError ??= err;
    };
    this.opening = true;
    this.client.on('error', onError);
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      const attempt = (async () => {
        if (this.client.status === 'wait' || this.client.status === 'end') await this.client.connect();
        await this.client.ping();
      })();
      attempt.catch(() => {}); // the deadline may win; the attempt's own failure is reported below
      await Promise.race([attempt, deadline]);
    } catch (err) {
      this.client.disconnect();
      throw firstError ?? err;
    } finally {
      clearTimeout(timer);
      this.client.off('error', onError);
      this.opening = false;
    }
  }

  /**
   * Starts connecting in the background (a lock node: the election's loop copes with it being
   * down). Resolves true once the server is ready, false at the first failure or after `timeoutMs`.
   */
  connectInBackground(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        resolve(ok);
      };
      const onReady = () => settle(true);
      const onError = () => settle(false);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.client.once('ready', onReady);
      this.client.once('error', onError);
      this.client.connect().catch(() => {
        // Reported by the 'error' listener, once per outage; the client keeps reconnecting.
      });
    });
  }

  /** Closes politely (QUIT), or drops the connection when the server does not answer. */
  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Dropped below.
      }
    }
    this.client.disconnect();
  }
}

/** Whether an error is the server's own reply (so the command ran, or was refused whole). */
export function isServerReply(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError';
}
