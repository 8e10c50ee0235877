import type { Redis } from 'ioredis';

/**
 * Extends the lease on every node where it is ours, and takes it on every node where it is free.
 * Redlock's own extend only renews nodes that already hold the value, so a node that was down
 * (or not yet connected) when the lease was taken never holds it: the lease then rests on a bare
 * majority, and one more node failure ends it although most nodes are up. Taking a free node is
 * what an acquisition does on that node (SET if absent), and only a holder that still believes
 * its lease valid does it, so no other holder can be displaced.
 */
const EXTEND_OR_TAKE = `local current = redis.call('GET', KEYS[1])
if current == ARGV[1] or not current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

const COMMAND = 'twExtendOrTakeLease';

/** Redlock's clock drift allowance: 1 % of the ttl plus 2 ms for Redis's expiry precision. */
export function leaseValidity(ttlMs: number): number {
  return ttlMs - (Math.round(0.01 * ttlMs) + 2);
}

/**
 * Runs the extension on all nodes at once; resolves with the new expiration (ms, wall clock,
 * counted from before the first request and less the drift) once a majority agreed, or undefined
 * once a majority cannot agree any more (refused, unreachable or timed out).
 */
export function extendLease(clients: readonly Redis[], key: string, value: string, ttlMs: number): Promise<number | undefined> {
  const start = Date.now();
  const quorum = Math.floor(clients.length / 2) + 1;
  return new Promise((resolve) => {
    let yes = 0;
    let no = 0;
    const count = (ok: boolean) => {
      if (ok) yes++;
      else no++;
      if (yes === quorum) resolve(start + leaseValidity(ttlMs));
      else if (no === clients.length - quorum + 1) resolve(undefined);
    };
    for (const client of clients) {
      if (!(COMMAND in client)) client.defineCommand(COMMAND, { numberOfKeys: 1, lua: EXTEND_OR_TAKE });
      const run = (client as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[COMMAND];
      run.call(client, key, value, ttlMs).then(
        (reply) => count(reply === 1),
        () => count(false),
      );
    }
  });
}
