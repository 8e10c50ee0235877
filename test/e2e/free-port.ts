import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive TCP ports free on 127.0.0.1 right now, for a program that
 * takes a base port and counts up from it (deploy/local-cluster.sh). Bases are drawn at random
 * below Linux's ephemeral range (32768 and up), where the kernel's own picks for outgoing
 * connections and port-0 listeners do not land, so parallel runs seldom meet.
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await isFree(p);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports found on 127.0.0.1`);
}
