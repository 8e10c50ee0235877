import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ServerProcess, startOnFreePort } from './server-process.js';
import { makeServerDir, type TestServer } from './test-server.js';

export interface RedisOptions {
  /** requirepass for the `default` user (default: none). */
  readonly password?: string;
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
 * Starts a private redis-server on a free 127.0.0.1 port without persistence, in a temp folder,
 * and waits until it answers PING.
 */
export async function startRedis(opts: RedisOptions = {}): Promise<TestServer> {
  const command = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((c) => existsSync(c));
  if (!command) throw new Error('redis-server is not installed: run scripts/ensure-servers.sh');
  const dir = makeServerDir('redis');
  const password = opts.password ?? '';
  const { port, server } = await startOnFreePort(
    (port) => {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
      if (password) args.push('--requirepass', password);
      return ServerProcess.start({ name: 'Redis', command, args, dir, logFile: join(dir, 'redis.log'), stopSignal: 'SIGTERM' });
    },
    (port) => ping(port, password),
  );
  const auth = password ? `:${encodeURIComponent(password)}@` : '';
  return {
    host: '127.0.0.1',
    port,
    user: 'default',
    password,
    database: '0',
    dir,
    url: `redis://${auth}127.0.0.1:${port}/0`,
    stop: () => server.stop(),
  };
}
