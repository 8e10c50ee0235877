import type { PluginOptions } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { type ChannelModel, connect, type Options } from 'amqplib';

/** Where and how to connect, from the options (a `url` wins over host/port/user/vhost). */
export interface RabbitConnection {
  readonly target: Options.Connect;
  /** host:port/vhost, for messages (never the password). */
  readonly address: string;
  readonly tls: boolean;
  readonly timeoutMs: number;
  readonly queue: string;
  readonly queueOptions: Options.AssertQueue;
}

export function connectionOf(o: PluginOptions): RabbitConnection {
  const tuning = {
    ...(o.has('requested_channel_max') ? { channelMax: o.get<number>('requested_channel_max') } : {}),
    ...(o.has('requested_frame_max') ? { frameMax: o.get<number>('requested_frame_max') } : {}),
    ...(o.has('requested_heartbeat') ? { heartbeat: o.get<number>('requested_heartbeat') } : {}),
  };
  const queue = o.get<string>('queue_name');
  const queueOptions = {
    durable: o.get<boolean>('durable'),
    exclusive: o.get<boolean>('exclusive'),
    autoDelete: o.get<boolean>('auto_delete'),
  };
  const timeoutMs = o.get<number>('connection_timeout');
  const url = o.get<string | undefined>('url');
  if (url !== undefined) {
    const u = new URL(url);
    const tls = u.protocol === 'amqps:';
    const port = u.port === '' ? (tls ? 5671 : 5672) : Number(u.port);
    // An AMQP URI's path is the vhost, percent-encoded; no path means the default vhost '/'.
    const vhost = u.pathname === '' || u.pathname === '/' ? '/' : decodeURIComponent(u.pathname.slice(1));
    return {
      target: {
        protocol: tls ? 'amqps' : 'amqp',
        hostname: u.hostname,
        port,
        username: u.username === '' ? 'guest' : decodeURIComponent(u.username),
        password: u.password === '' ? 'guest' : decodeURIComponent(u.password),
        vhost,
        ...tuning,
      },
      address: `${u.hostname}:${port}${vhost === '/' ? '' : `/${vhost}`}`,
      tls,
      timeoutMs,
      queue,
      queueOptions,
    };
  }
  const host = o.get<string>('host');
  const port = o.get<number>('port');
  const vhost = o.get<string>('virtual_host');
  return {
    target: {
      protocol: 'amqp',
      hostname: host,
      port,
      username: o.get<string | undefined>('username') ?? 'guest',
      password: o.get<string | undefined>('password') ?? 'guest',
      vhost,
      ...tuning,
    },
    address: `${host}:${port}${vhost === '/' ? '' : `/${vhost}`}`,
    tls: false,
    timeoutMs,
    queue,
    queueOptions,
  };
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}

/** A failure talking to the broker: retryable (the task fails and the job restores). */
export function brokerError(c: RabbitConnection, what: string, err: unknown): TidewayError {
  if (err instanceof TidewayError) return err;
  return new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `RabbitMQ at ${c.address}: ${what} failed: ${firstLine(err)}`, {
    retryable: true,
    cause: err,
  });
}

/**
 * Opens a connection (no automatic recovery: see options.ts) within `connection_timeout`, and
 * turns the broker closing it into a rejected `closed` promise the caller races its waits against.
 */
export async function openConnection(c: RabbitConnection): Promise<{ model: ChannelModel; closed: Promise<never> }> {
  let model: ChannelModel;
  try {
    model = await connect(c.target, {
      timeout: c.timeoutMs > 0 ? c.timeoutMs : undefined,
      noDelay: true,
      clientProperties: { product: 'Tideway' },
    });
  } catch (err) {
    throw brokerError(c, 'connecting', err);
  }
  const closed = new Promise<never>((_, reject) => {
    model.on('close', (err?: Error) => reject(brokerError(c, 'the connection', err ?? new Error('closed by the broker'))));
    model.on('error', () => {
      /* 'close' follows with the error */
    });
  });
  closed.catch(() => {
    /* observed by whoever races it */
  });
  return { model, closed };
}
