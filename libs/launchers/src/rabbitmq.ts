import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort } from './free-port.js';
import { ServerProcess } from './server-process.js';
import { makeServerDir, type TestServer } from './test-server.js';

/** A private RabbitMQ node: AMQP on `port`, user guest/guest (allowed from loopback), vhost `/`. */
export interface RabbitMqServer extends TestServer {
  /** The Erlang node name, e.g. `tideway-41234@localhost`. */
  readonly nodeName: string;
}

/** Debian's broker start script, called directly (the /usr/sbin wrapper switches to the rabbitmq user). */
function brokerScript(): string | undefined {
  const lib = '/usr/lib/rabbitmq/lib';
  if (!existsSync(lib)) return undefined;
  const release = readdirSync(lib)
    .filter((d) => d.startsWith('rabbitmq_server-'))
    .sort()
    .pop();
  const script = release ? join(lib, release, 'sbin', 'rabbitmq-server') : undefined;
  return script && existsSync(script) ? script : undefined;
}

/** Opens AMQP 0-9-1 (the protocol header) and resolves on the broker's first frame (Connection.Start). */
function amqpAnswers(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    const done = (err?: Error) => {
      sock.destroy();
      if (err) reject(err);
      else resolve();
    };
    sock.setTimeout(2000, () => done(new Error('no AMQP answer')));
    sock.on('error', done);
    sock.on('connect', () => sock.write(Buffer.from([65, 77, 81, 80, 0, 0, 9, 1])));
    sock.on('data', (chunk: Buffer) =>
      done(chunk[0] === 1 ? undefined : new Error(`unexpected AMQP answer ${chunk.subarray(0, 8).toString('hex')}`)),
    );
  });
}

/**
 * Starts a private RabbitMQ node from Debian's rabbitmq-server on free 127.0.0.1 ports in a temp
 * folder: its own epmd (on a free port, so the machine's Erlang nodes are never seen), its own
 * Erlang cookie, node name, Mnesia and log folders, no plugins; waits until AMQP answers.
 * `config` holds rabbitmq.conf settings (e.g. max_message_size).
 */
export async function startRabbitMq(config: Record<string, string | number> = {}): Promise<RabbitMqServer> {
  const script = brokerScript();
  if (!script || !existsSync('/usr/bin/epmd')) throw new Error('rabbitmq-server is not installed: run scripts/ensure-servers.sh');
  const dir = makeServerDir('rabbitmq');
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.erlang.cookie'), randomBytes(16).toString('hex'));
  chmodSync(join(home, '.erlang.cookie'), 0o400);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(
    join(dir, 'rabbitmq.conf'),
    Object.entries(config)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join(''),
  );
  const epmdPort = await freePort();
  const epmd = ServerProcess.start({
    name: 'epmd',
    command: '/usr/bin/epmd',
    args: ['-port', String(epmdPort), '-address', '127.0.0.1'],
    dir: join(dir, 'home'),
    logFile: join(dir, 'epmd.log'),
    stopSignal: 'SIGTERM',
  });
  let nodeName = '';
  try {
    const distPort = await freePort();
    const spawnOn = (port: number): ServerProcess => {
      nodeName = `tideway-${port}@localhost`;
      const env = {
        HOME: home,
        ERL_EPMD_PORT: String(epmdPort),
        RABBITMQ_NODENAME: nodeName,
        RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
        RABBITMQ_NODE_PORT: String(port),
        RABBITMQ_DIST_PORT: String(distPort),
        RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
        RABBITMQ_LOG_BASE: join(dir, 'log'),
        RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
        RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
        RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
        RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
        RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
        // Replace the script by the Erlang VM (no signal-forwarding shell): SIGTERM then stops the broker.
        RUNNING_UNDER_SYSTEMD: 'true',
      };
      return ServerProcess.start({
        name: 'RabbitMQ',
        command: '/usr/bin/env',
        args: [...Object.entries(env).map(([k, v]) => `${k}=${v}`), script],
        dir,
        logFile: join(dir, 'rabbitmq.log'),
        stopSignal: 'SIGTERM',
      });
    };
    // The broker boots in 10-20 s on a quiet machine: wait longer than for the other servers.
    const port = await freePort();
    const server = spawnOn(port);
    await server.waitReady(() => amqpAnswers(port), 120_000);
    return {
      host: '127.0.0.1',
      port,
      user: 'guest',
      password: 'guest',
      database: '/',
      dir,
      nodeName,
      url: `amqp://guest:guest@127.0.0.1:${port}/`,
      async stop() {
        await server.stop();
        await epmd.stop();
      },
    };
  } catch (err) {
    await epmd.stop();
    throw err;
  }
}
