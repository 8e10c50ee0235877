import type { Cluster, Redis } from 'ioredis';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { PluginOptions } from '@tideway/api';

/** How to reach Redis, from the options (RedisParameters in SeaTunnel). */
export interface RedisConnection {
  readonly mode: 'single' | 'cluster';
  readonly host?: string;
  readonly port: number;
  /** host:port seeds of a cluster (host/port first when set). */
  readonly nodes: readonly { host: string; port: number }[];
  readonly user?: string;
  readonly auth?: string;
  readonly db: number;
}

export function connectionOf(o: PluginOptions): RedisConnection {
  const port = o.get<number>('port');
  const host = o.get<string | undefined>('host');
  const nodes: { host: string; port: number }[] = host ? [{ host, port }] : [];
  for (const n of o.get<string[] | undefined>('nodes') ?? []) {
    const at = n.lastIndexOf(':');
    nodes.push({ host: n.slice(0, at), port: Number(n.slice(at + 1)) });
  }
  return {
    mode: o.get<'single' | 'cluster'>('mode'),
    host,
    port,
    nodes,
    user: o.get<string | undefined>('user') || undefined,
    auth: o.get<string | undefined>('auth') || undefined,
    db: o.get<number>('db_num'),
  };
}

/** Where a connection goes, for messages (never the password). */
export function describeConnection(c: RedisConnection): string {
  return c.mode === 'cluster'
    ? `Redis Cluster ${c.nodes.map((n) => `${n.host}:${n.port}`).join(', ')}`
    : `Redis ${c.host}:${c.port}/${c.db}`;
}

/** A single server or a cluster, both with ioredis' command methods. */
export type RedisClient = Redis | Cluster;

/** Whether a client is a cluster's (ioredis sets `isCluster`; the module itself is loaded only when a client is opened). */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/**
 * Connects and waits until the server (every slot of a cluster) answers. Failing to connect is
 * a retryable connector error naming the address. Cluster clients follow MOVED and ASK
 * redirections (ioredis refreshes its slot map on MOVED and sends ASKING on ASK).
 */
export async function openClient(c: RedisConnection): Promise<RedisClient> {
  // Loaded here, not with the plugin: a single-server sink never needs it (it writes RESP itself).
  const { Cluster, Redis } = await import('ioredis');
  const common = {
    username: c.user,
    password: c.auth,
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    connectTimeout: 10_000,
  };
  const client: RedisClient =
    c.mode === 'cluster'
      ? new Cluster([...c.nodes], {
          redisOptions: common,
          lazyConnect: true,
          enableAutoPipelining: true,
          maxRedirections: 16,
          slotsRefreshTimeout: 5_000,
        })
      : new Redis({ ...common, host: c.host, port: c.port, db: c.db, retryStrategy: (n) => (n > 5 ? null : n * 200) });
  // Errors reach the commands that fail; the client's own 'error' events would otherwise crash.
  // The last one says why a connection failed (connect() itself only says it closed).
  let lastError: Error | undefined;
  client.on('error', (err: Error) => (lastError = err));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    const why = lastError?.message ?? (err as Error).message;
    throw new TidewayError(ErrorCode.CONNECTOR_IO, `cannot connect to ${describeConnection(c)}: ${why}`, {
      retryable: true,
      cause: err,
    });
  }
  return client;
}

/** One command: its name, then its arguments. */
export type Command = [string, ...(string | number | Buffer)[]];

/**
 * Runs commands in order and throws the first command error (a pipeline reports them per
 * command). A single server gets them as one pipeline (one round trip). In cluster mode every
 * command goes on its own, routed by its key's slot (the first argument of every command here)
 * and grouped per node by auto-pipelining, since one pipeline may only hold keys of one node.
 */
export async function execAll(
  client: RedisClient,
  commands: readonly Command[],
  /** Errors it accepts are answers (the command's Error in its place), not failures. */
  keep?: (err: Error) => boolean,
): Promise<unknown[]> {
  if (commands.length === 0) return [];
  if (isCluster(client)) {
    // Keys in parallel, each key's commands one after the other: a redirected command (MOVED,
    // ASK) is answered before the next one on its key is sent, so none overtakes another.
    const byKey = new Map<string, Command[]>();
    for (const c of commands) {
      const key = String(c[1]);
      const list = byKey.get(key);
      if (list) list.push(c);
      else byKey.set(key, [c]);
    }
    const results = new Map<Command, unknown>();
    await Promise.all(
      [...byKey.values()].map(async (list) => {
        for (const c of list) {
          try {
            results.set(c, await client.call(c[0], ...c.slice(1)));
          } catch (err) {
            if (!(err instanceof Error && keep?.(err))) throw err;
            results.set(c, err);
          }
        }
      }),
    );
    return commands.map((c) => results.get(c));
  }
  const results = (await client.pipeline(commands.map((c) => [...c])).exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) {
      if (keep?.(err)) return err;
      throw err;
    }
    return value;
  });
}

/** The masters of a cluster as host:port (each holds its own keyspace to SCAN). */
export function clusterMasters(client: Cluster): string[] {
  return client.nodes('master').map((n) => `${n.options.host}:${n.options.port}`);
}
