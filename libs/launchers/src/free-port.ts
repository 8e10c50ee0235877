import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/**
 * Ports handed out by this process: never handed out twice, so two servers a test starts one
 * after the other (neither listening yet) cannot be given the same port.
 */
const handedOut = new Set<number>();

/**
 * Where test servers' ports are drawn from: below the kernel's ephemeral range. A port the kernel
 * picks for `listen(0)` lies inside that range, and so does the local port of every outgoing
 * connection; a port picked there, free a moment ago, can be the local end of a client socket by
 * the time the server binds it (EADDRINUSE in CI, with hundreds of connections open). Below the
 * range only listeners that chose their port take one. Starts at 20000, above the well-known
 * ports where the machine's own servers run (5432, 3306, 6379, 5672, 1883, 4222).
 */
function testPortRange(): [number, number] | undefined {
  let low = 32768;
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (first !== undefined && Number.isInteger(Number(first))) low = Number(first);
  } catch {
    // Not Linux: keep Linux's default range.
  }
  return low - 20_000 >= 1_000 ? [20_000, low] : undefined;
}

/** How many slices the test range is cut into, one per vitest worker (the suite runs 3 at a time). */
const POOL_SLICES = 8;

/**
 * The part of the test range this process draws from: under vitest, the slice of its worker
 * (VITEST_POOL_ID, unique among the workers running at once), so that test files running side by
 * side never draw the same port, which each of them may hand out long before its server binds it
 * (a cluster test's ports are chosen when it starts, a worker restarted later binds its own then).
 * Processes a test starts inherit the slice; they bind at once what they draw. Elsewhere the whole
 * range.
 */
function poolSlice(whole: [number, number] | undefined): [number, number] | undefined {
  const id = Number(process.env.VITEST_POOL_ID);
  if (whole === undefined || !Number.isInteger(id) || id < 1) return whole;
  const width = Math.floor((whole[1] - whole[0]) / POOL_SLICES);
  const low = whole[0] + ((id - 1) % POOL_SLICES) * width;
  return [low, low + width];
}

const range = poolSlice(testPortRange());

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('the kernel gave no free port on 127.0.0.1'))));
    });
  });
}

/**
 * The first of `count` consecutive TCP ports on 127.0.0.1 that nothing listens on right now and
 * that this process has not handed out before, for a program that takes a base port and counts
 * up from it (deploy/local-cluster.sh). Drawn at random below the ephemeral range (see
 * testPortRange), so parallel runs seldom meet; another process may still take one before the
 * caller binds it, and callers that can retry on a new port do (startOnFreePort).
 */
export async function freePortRange(count: number): Promise<number> {
  if (range === undefined) {
    if (count !== 1) throw new Error('consecutive free ports need a port range below the ephemeral range; this machine has none');
    for (;;) {
      const p = await kernelPort();
      if (!handedOut.has(p)) return take(p, 1);
    }
  }
  const [low, high] = range;
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low - count));
    let free = true;
    for (let p = base; p < base + count && free; p++) free = !handedOut.has(p) && (await canBind(p));
    if (free) return take(base, count);
  }
  throw new Error(`no ${count} consecutive free ports found on 127.0.0.1 between ${low} and ${high}`);
}

function take(base: number, count: number): number {
  for (let p = base; p < base + count; p++) handedOut.add(p);
  return base;
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (see freePortRange). */
export function freePort(): Promise<number> {
  return freePortRange(1);
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (e.g. a server that should be gone). */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
