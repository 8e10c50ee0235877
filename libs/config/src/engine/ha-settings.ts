import type { EngineConfig } from './engine-config.js';
import { formatHostPort, parseHostPort } from './host-port.js';

type TidewayConfig = EngineConfig['tideway'];

/**
 * Fills in the address lists left empty: the coordinators are this one alone, at its advertised
 * address or else host:port (none when it picks a free port, which nobody can know in
 * advance), and the Redlock nodes are the state-store Redis alone.
 */
export function resolveHaAddresses(t: TidewayConfig): TidewayConfig {
  const c = t.coordinator;
  const own = c.advertisedAddress ? [c.advertisedAddress] : c.port === 0 ? [] : [formatHostPort(c)];
  const addresses = t.coordinator.addresses.length > 0 ? t.coordinator.addresses : own;
  const address = t.stateStore.redis.address;
  const lockNodes = t.ha.lockNodes.length > 0 ? t.ha.lockNodes : t.stateStore.type === 'redis' && address ? [address] : [];
  return Object.freeze({
    ...t,
    coordinator: Object.freeze({ ...t.coordinator, addresses: Object.freeze([...addresses]) }),
    ha: Object.freeze({ ...t.ha, lockNodes: Object.freeze([...lockNodes]) }),
  });
}

/**
 * The HA rules, each refused with the key named: a redis store needs its address; every
 * address parses as host:port and is listed once; an advertised address is one others can dial
 * (not a wildcard such as 0.0.0.0); Redlock nodes come in an odd count; the lease
 * outlasts a heartbeat interval, a follower retries within a lease, and a worker waits longer
 * than a lease before it gives its leader up. Settings that only type redis reads are refused
 * with type memory instead of being ignored.
 */
export function checkHaSettings(t: TidewayConfig, fail: (message: string) => never): void {
  const redis = t.stateStore.redis;
  const isRedis = t.stateStore.type === 'redis';
  if (isRedis && !redis.address) {
    fail(
      'tideway.state-store.redis.address is empty but tideway.state-store.type is redis: set it to the host:port of the Redis that holds the state',
    );
  }
  if (!isRedis && redis.address) {
    fail(
      `tideway.state-store.redis.address is set (${redis.address}) but tideway.state-store.type is memory: set the type to redis to use it, or remove it`,
    );
  }
  if (!isRedis && t.ha.lockNodes.length > 0) {
    fail('tideway.ha.lock-nodes is set but tideway.state-store.type is memory: leader election needs the redis state store');
  }
  if (redis.address && !parseHostPort(redis.address))
    fail(`tideway.state-store.redis.address '${redis.address}' is not host:port (e.g. 127.0.0.1:6379)`);
  checkAdvertised('tideway.coordinator.advertised-address', t.coordinator.advertisedAddress, fail);
  checkAdvertised('tideway.worker.advertised-address', t.worker.advertisedAddress, fail);
  checkAddresses('tideway.ha.lock-nodes', t.ha.lockNodes, fail);
  checkAddresses('tideway.coordinator.addresses', t.coordinator.addresses, fail);
  if (!isRedis) return;
  const nodes = t.ha.lockNodes.length;
  if (nodes % 2 === 0) {
    fail(
      `tideway.ha.lock-nodes lists ${nodes} nodes: use an odd count (1, 3, 5): a lease needs a majority of the nodes, ` +
        `and ${nodes} nodes survive no more failures than ${nodes - 1} while one more node must answer`,
    );
  }
  const { leaseTtl, retryInterval } = t.ha;
  if (leaseTtl <= t.heartbeat.interval) {
    fail(`tideway.ha.lease-ttl (${leaseTtl} ms) must be longer than tideway.heartbeat.interval (${t.heartbeat.interval} ms)`);
  }
  if (retryInterval >= leaseTtl) {
    fail(
      `tideway.ha.retry-interval (${retryInterval} ms) must be shorter than tideway.ha.lease-ttl (${leaseTtl} ms): a follower must try more than once per lease`,
    );
  }
  if (t.worker.leaderLossTimeout <= leaseTtl) {
    fail(
      `tideway.worker.leader-loss-timeout (${t.worker.leaderLossTimeout} ms) must be longer than tideway.ha.lease-ttl (${leaseTtl} ms): ` +
        'a fail-over takes at least one lease, and workers must not cancel their task groups during one',
    );
  }
}

function checkAddresses(key: string, list: readonly string[], fail: (message: string) => never): void {
  const seen = new Set<string>();
  list.forEach((text, i) => {
    const parsed = parseHostPort(text);
    if (!parsed) fail(`${key}[${i}] '${text}' is not host:port (e.g. 127.0.0.1:6379)`);
    const norm = formatHostPort({ host: parsed.host.toLowerCase(), port: parsed.port });
    if (seen.has(norm)) fail(`${key} lists ${text} twice: each entry must be a different server`);
    seen.add(norm);
  });
}

/** Bind-anywhere hosts: a process may listen on one, but nobody can dial it from elsewhere. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

function checkAdvertised(key: string, text: string, fail: (message: string) => never): void {
  if (!text) return;
  const parsed = parseHostPort(text);
  if (!parsed) fail(`${key} '${text}' is not host:port (e.g. tideway-coordinator-0.tideway-coordinator:5801)`);
  if (WILDCARD_HOSTS.has(parsed.host))
    fail(`${key} '${text}' is a wildcard address that others cannot dial: use this host's DNS name or IP address`);
}
