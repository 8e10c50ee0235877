import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { startRedis, type RedisServer } from './redis.js';

const run = promisify(execFile);

/** A private Redis Cluster: every node a master owning a share of the 16384 slots. */
export interface RedisClusterServer {
  readonly nodes: readonly RedisServer[];
  /** `host:port` of every node, as SeaTunnel's `nodes` option lists them. */
  readonly addresses: readonly string[];
  readonly password: string;
  stop(): Promise<void>;
}

/** Sends `CLUSTER INFO` (after AUTH when a password is set) and resolves with its text. */
function clusterInfo(port: number, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    let reply = '';
    sock.setTimeout(2000, () => {
      sock.destroy();
      reject(new Error('no reply to CLUSTER INFO'));
    });
    sock.on('error', reject);
    sock.on('connect', () => sock.write(`${password ? `AUTH ${password}\r\n` : ''}CLUSTER INFO\r\n`));
    sock.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('cluster_known_nodes')) {
        sock.destroy();
        resolve(reply);
      }
    });
  });
}

/**
 * Starts `size` (at least 3) redis-server nodes with cluster mode on, on free 127.0.0.1 ports,
 * joins them with `redis-cli --cluster create` (no replicas) and waits until every node reports
 * `cluster_state:ok`, so keys spread over all of them and clients meet MOVED redirections.
 */
export async function startRedisCluster(opts: { size?: number; password?: string } = {}): Promise<RedisClusterServer> {
  const size = opts.size ?? 3;
  const password = opts.password ?? '';
  const cli = ['/usr/bin/redis-cli', '/usr/local/bin/redis-cli'].find((c) => existsSync(c));
  if (!cli) throw new Error('redis-cli is not installed: run scripts/ensure-servers.sh');
  const nodes: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < size; i++) nodes.push(await startRedis({ password, clusterBusPort: await freePort() }));
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    const auth = password ? ['-a', password, '--no-auth-warning'] : [];
    await run(cli, [...auth, '--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 60_000 });
    const deadline = Date.now() + 30_000;
    for (const n of nodes) {
      for (;;) {
        const info = await clusterInfo(n.port, password).catch(() => '');
        if (info.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`Redis Cluster node 127.0.0.1:${n.port} did not reach cluster_state:ok within 30 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return { nodes, addresses, password, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
