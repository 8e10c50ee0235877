/**
 * A coordinator stand-in for election tests, run as its own process so that tests can SIGKILL
 * or SIGSTOP it: it contends for the lease and, from its first election on, writes to the state
 * store every 100 ms with the epoch it last won, WITHOUT checking that it still leads (a stale
 * leader acting after its lease ran out). It prints one JSON line per event on stdout:
 * {event: 'elected', epoch} | {event: 'lost', reason} | {event: 'write', epoch} |
 * {event: 'refused', epoch, current} | {event: 'error', message}.
 *
 * argv[2]: JSON {nodes, state, address, ttl, retry, prefix, jobId}.
 */
import { RedisStateStore } from '../redis-state-store.js';
import { RedlockElection } from '../redlock-election.js';
import { StaleEpochError } from '../state-store.js';
import { jobState } from './fixtures.js';

const args = JSON.parse(process.argv[2]) as {
  nodes: string[];
  state: string;
  address: string;
  ttl: number;
  retry: number;
  prefix: string;
  jobId: string;
};
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const store = new RedisStateStore({ address: args.state, keyPrefix: args.prefix });
await store.open();
const election = new RedlockElection({
  nodes: args.nodes,
  key: `${args.prefix}leader-lease`,
  leaseTtlMs: args.ttl,
  retryIntervalMs: args.retry,
  store,
  address: args.address,
});
let epoch = 0;
election.start({
  onElected(e) {
    epoch = e;
    say({ event: 'elected', epoch: e });
  },
  onLost(reason) {
    say({ event: 'lost', reason });
  },
});
setInterval(() => {
  if (epoch === 0) return;
  const used = epoch;
  store.updateJob(used, args.jobId, { ...jobState('RUNNING'), epoch: used, updatedAtMs: Date.now() }).then(
    () => say({ event: 'write', epoch: used }),
    (err: unknown) =>
      say(
        err instanceof StaleEpochError ? { event: 'refused', epoch: used, current: err.current } : { event: 'error', message: String(err) },
      ),
  );
}, 100);
