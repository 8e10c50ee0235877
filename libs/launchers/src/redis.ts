import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ServerProcess, startOnFreePort } from './server-process.js';
import { makeServerDir, type TestServer } from './test-server.js';

export interface RedisOptions {
  /** requirepass for the `default` user (default: none); also the masterauth of a replica. */
  readonly password?: string;
  /**
   * Append-only file on (`appendonly yes`, fsync on every write), so that restart() brings the
   * data back; off by default (nothing on disk).
   */
  readonly appendOnly?: boolean;
  /** Starts the server as a replica of this one (`--replicaof host port`). */
  readonly replicaOf?: { readonly host: string; readonly port: number };
  /**
   * Starts the server as a Redis Cluster node (`--cluster-enabled yes`) with its cluster bus on
   * this port (drawn by the caller from freePort); startRedisCluster joins such nodes.
   */
  readonly clusterBusPort?: number;
}

/** A private redis-server that can also be restarted in place. */
export interface RedisServer extends TestServer {
  /**
   * Stops the server (SIGTERM) and starts it again on the same port and folder: with
   * appendOnly its data comes back, without it the server starts empty.
   */
  restart(): Promise<void>;
  /** The server process id (for SIGSTOP / SIGCONT in tests). */
  readonly pid: number | undefined;
}

/** Sends PING (after AUTH when a password is set) and resolves on +PONG. */
function ping(port: number, password: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (err?: Error) => {
      sock.destroy();
      if (err) reject(err);
      else resolve();
    };
    sock.setTimeout(2000, () => done(new Error('no reply to PING')));
    sock.on('error', done);
    sock.on('connect', () => {
      const auth = password ? `AUTH ${password}\r\n` : '';
      sock.write(`${auth}PING\r\n`);
    });
    sock.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('+PONG')) done();
      else if (reply.startsWith('-')) done(new Error(reply.trim()));
    });
  });
}

/**
 * Starts a private redis-server on a free 127.0.0.1 port in a temp folder (without persistence
 * unless `appendOnly`) and waits until it answers PING.
 */
export async function startRedis(opts: RedisOptions = {}): Promise<RedisServer> {
  const command = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((c) => existsSync(c));
  if (!command) throw new Error('redis-server is not installed: run scripts/ensure-servers.sh');
  const dir = makeServerDir('redis');
  const password = opts.password ?? '';
  const spawnOn = (port: number): ServerProcess => {
    // A replica's first sync starts at once instead of after the default 5 s batching delay.
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--repl-diskless-sync-delay',
      '0',
    ];
    args.push(...(opts.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
    if (password) args.push('--requirepass', password);
    if (opts.replicaOf) args.push('--replicaof', opts.replicaOf.host, String(opts.replicaOf.port));
    if (password && opts.replicaOf) args.push('--masterauth', password);
    if (opts.clusterBusPort !== undefined) {
      args.push('--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'));
      args.push('--cluster-port', String(opts.clusterBusPort), '--cluster-node-timeout', '5000');
      if (password && !opts.replicaOf) args.push('--masterauth', password);
    }
    return ServerProcess.start({ name: 'Redis', command, args, dir, logFile: join(dir, 'redis.log'), stopSignal: 'SIGTERM' });
  };
  const started = await startOnFreePort(spawnOn, (port) => ping(port, password));
  const port = started.port;
  let server = started.server;
  const auth = password ? `:${encodeURIComponent(password)}@` : '';
  return {
    host: '127.0.0.1',
    port,
    user: 'default',
    password,
    database: '0',
    dir,
    url: `redis://${auth}127.0.0.1:${port}/0`,
    get pid() {
      return server.pid;
    },
    stop: () => server.stop(),
    async restart() {
      await server.stop({ keepDir: true });
      server = spawnOn(port);
      await server.waitReady(() => ping(port, password));
    },
  };
}
