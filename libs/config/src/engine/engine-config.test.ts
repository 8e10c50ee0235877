import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@tideway/common';
import { loadEngineConfig } from '../index.js';

const DEPLOY = fileURLToPath(new URL('../../../../deploy/seatunnel.yaml', import.meta.url));

function failure(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe(ErrorCode.ENGINE_CONFIG);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadEngineConfig', () => {
  it('has SeaTunnel defaults and freezes the result', () => {
    const c = loadEngineConfig();
    expect(c).toMatchObject({
      backupCount: 1,
      queueType: 'BLOCKINGQUEUE',
      historyJobExpireMinutes: 1440,
      jobScheduleStrategy: 'REJECT',
      slotService: { dynamicSlot: true, slotNum: 2, slotAllocateStrategy: 'RANDOM' },
      checkpoint: { interval: 300000, timeout: 30000, storage: { type: 'localfile', maxRetained: 20 } },
      tideway: {
        coordinator: { host: '127.0.0.1', port: 5801, advertisedAddress: '', addresses: ['127.0.0.1:5801'] },
        worker: { advertisedAddress: '', leaderLossTimeout: 30000 },
        stateStore: { type: 'memory', redis: { address: '', password: '', keyPrefix: 'tideway:', waitReplicas: 0, waitTimeout: 1000 } },
        ha: { lockNodes: [], leaseTtl: 5000, retryInterval: 500 },
        heartbeat: { interval: 3000, timeout: 30000 },
        drain: { gracePeriod: 30000, batchTimeout: 600000 },
      },
    });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.slotService)).toBe(true);
  });

  it('reads deploy/seatunnel.yaml to exactly the defaults', () => {
    expect(loadEngineConfig({ file: DEPLOY })).toEqual(loadEngineConfig());
  });

  it('reads a SeaTunnel-shaped file with S3 checkpoint storage', () => {
    const text = `seatunnel:
  engine:
    queue-type: disruptor
    slot-service:
      dynamic-slot: false
      slot-num: 4
    job-schedule-strategy: WAIT
    checkpoint:
      storage:
        type: s3
        plugin-config:
          storage.type: s3
          s3.bucket: s3a://cp
          fs.s3a.path.style.access: true
          fs.s3a.connection.maximum: 10
tideway:
  worker:
    attributes: { group: g1 }
  state-store:
    type: redis
    redis: { address: "127.0.0.1:6379", wait-replicas: 1 }
`;
    const c = loadEngineConfig({ file: 'engine.yaml', text });
    expect(c.queueType).toBe('DISRUPTOR');
    expect(c.slotService).toEqual({ dynamicSlot: false, slotNum: 4, slotAllocateStrategy: 'RANDOM' });
    expect(c.jobScheduleStrategy).toBe('WAIT');
    expect(c.checkpoint.storage.pluginConfig).toMatchObject({
      's3.bucket': 's3a://cp',
      'fs.s3a.path.style.access': true,
      'fs.s3a.connection.maximum': 10,
    });
    expect(c.tideway.worker.attributes).toEqual({ group: 'g1' });
    expect(c.tideway.stateStore.redis).toEqual({
      address: '127.0.0.1:6379',
      password: '',
      keyPrefix: 'tideway:',
      waitReplicas: 1,
      waitTimeout: 1000,
    });
    expect(c.tideway.ha.lockNodes).toEqual(['127.0.0.1:6379']);
  });

  it('forces REJECT with dynamic slots, as SeaTunnel does', () => {
    expect(loadEngineConfig({ sets: ['job-schedule-strategy=WAIT'] }).jobScheduleStrategy).toBe('REJECT');
  });

  it("gives SeaTunnel's jar-storage keys their meaning for plugin packages, and refuses ISOLATED by name", () => {
    const c = loadEngineConfig({
      sets: ['jar-storage.connector-jar-expiry-time=60', 'jar-storage.connector-jar-storage-path=/var/cache/tw'],
    });
    expect(c.jarStorage).toEqual({
      enable: true,
      connectorJarStorageMode: 'SHARED',
      connectorJarStoragePath: '/var/cache/tw',
      connectorJarCleanupTaskInterval: 3600,
      connectorJarExpiryTime: 60,
    });
    expect(() => loadEngineConfig({ sets: ['jar-storage.connector-jar-storage-mode=ISOLATED'] })).toThrow(
      /^seatunnel\.engine\.jar-storage\.connector-jar-storage-mode ISOLATED is not supported: /,
    );
  });

  it('applies --set overrides as typed YAML scalars', () => {
    const c = loadEngineConfig({
      file: DEPLOY,
      sets: ['slot-service.dynamic-slot=false', 'slot-service.slot-num=2', 'checkpoint.storage.plugin-config.namespace=/x'],
    });
    expect(c.slotService).toMatchObject({ dynamicSlot: false, slotNum: 2 });
    expect(c.checkpoint.storage.pluginConfig.namespace).toBe('/x');
  });

  it('rejects unknown keys and wrong types with file:line', () => {
    expect(
      failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    slot-service:\n      slot-nmu: 2\n' })).message,
    ).toMatch(
      /^e\.yaml:4: unknown key 'seatunnel\.engine\.slot-service\.slot-nmu' \(known here: dynamic-slot, slot-num, slot-allocate-strategy\)/,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    backup-count: many\n' })).message).toBe(
      `e.yaml:3: 'seatunnel.engine.backup-count' must be an integer, not "many"`,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'other: 1\n' })).message).toMatch(
      /^e\.yaml:1: unknown top-level key 'other'/,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    queue-type: fast\n' })).message).toMatch(
      /must be one of BLOCKINGQUEUE, DISRUPTOR/,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'a: [\n' })).message).toMatch(/^e\.yaml:\d+: the YAML does not parse/);
  });

  it('reads the request limits and refuses bad values naming the key', () => {
    const c = loadEngineConfig({
      file: 'e.yaml',
      text: 'seatunnel:\n  engine:\n    http: { max-body-bytes: 2048, headers-timeout: 2000, max-connections: 5 }\ntideway:\n  limits: { max-message-bytes: 1048576, max-config-depth: 16 }\n',
    });
    expect(c.http).toMatchObject({
      maxBodyBytes: 2048,
      headersTimeout: 2000,
      requestTimeout: 30000,
      keepAliveTimeout: 5000,
      maxConnections: 5,
    });
    expect(c.tideway.limits).toEqual({ maxMessageBytes: 1048576, maxConfigBytes: 4194304, maxConfigDepth: 16 });
    const limits = (text: string) =>
      failure(() => loadEngineConfig({ file: 'e.yaml', text: `tideway:\n  limits:\n    ${text}\n` })).message;
    expect(limits('max-config-depth: 100000')).toBe("e.yaml:3: 'tideway.limits.max-config-depth' must be at most 256, not 100000");
    expect(limits('max-message-bytes: 10')).toBe("e.yaml:3: 'tideway.limits.max-message-bytes' must be at least 65536, not 10");
    expect(limits('max-config-bytes: big')).toBe('e.yaml:3: \'tideway.limits.max-config-bytes\' must be an integer, not "big"');
    expect(failure(() => loadEngineConfig({ sets: ['http.headers-timeout=40000'] })).message).toBe(
      'seatunnel.engine.http.request-timeout (30000 ms) must not be shorter than seatunnel.engine.http.headers-timeout (40000 ms)',
    );
  });

  it('rejects bad --set texts, naming them', () => {
    expect(failure(() => loadEngineConfig({ sets: ['slot-service.slot-num=two'] })).message).toBe(
      `--set 'slot-service.slot-num=two': 'slot-service.slot-num' must be an integer, not "two"`,
    );
    expect(failure(() => loadEngineConfig({ sets: ['slot-service.nope=1'] })).message).toMatch(
      /unknown key 'seatunnel\.engine\.slot-service\.nope'/,
    );
    expect(failure(() => loadEngineConfig({ sets: ['slot-service=1'] })).message).toMatch(/is a group of settings/);
    expect(failure(() => loadEngineConfig({ sets: ['noequals'] })).message).toMatch(/expected key=value/);
  });

  it('checks rules across settings', () => {
    expect(failure(() => loadEngineConfig({ sets: ['checkpoint.storage.type=s3'] })).message).toMatch(/no s3\.bucket/);
  });
});

/** An engine config whose tideway block is `tideway` (YAML flow text per key). */
function ha(tideway: string): ReturnType<typeof loadEngineConfig> {
  return loadEngineConfig({ file: 'e.yaml', text: `tideway:\n${tideway}` });
}
const REDIS = '  state-store: { type: redis, redis: { address: "10.0.0.1:6379" } }\n';

describe('HA settings', () => {
  it('defaults the lock nodes to the state Redis and the coordinators to this one', () => {
    const c = ha(REDIS + '  coordinator: { host: 10.0.0.9, port: 6000 }\n');
    expect(c.tideway.ha.lockNodes).toEqual(['10.0.0.1:6379']);
    expect(c.tideway.coordinator.addresses).toEqual(['10.0.0.9:6000']);
    expect(ha('  coordinator: { port: 0 }\n').tideway.coordinator.addresses).toEqual([]);
    const listed = ha(
      REDIS +
        '  ha: { lock-nodes: [a:1, b:2, "[::1]:3"], lease-ttl: 9000, retry-interval: 100 }\n  coordinator: { addresses: [c1:5801, c2:5801] }\n',
    );
    expect(listed.tideway.ha).toEqual({ lockNodes: ['a:1', 'b:2', '[::1]:3'], leaseTtl: 9000, retryInterval: 100 });
    expect(listed.tideway.coordinator.addresses).toEqual(['c1:5801', 'c2:5801']);
    expect(Object.isFrozen(listed.tideway.ha.lockNodes)).toBe(true);
  });

  it('takes advertised addresses for processes that bind a wildcard, and lists the coordinator by its own', () => {
    const c = ha(
      REDIS +
        '  coordinator: { host: 0.0.0.0, port: 5801, advertised-address: "tideway-coordinator-0.tideway-coordinator:5801" }\n' +
        '  worker: { host: 0.0.0.0, advertised-address: "10.1.2.3:5803" }\n',
    );
    expect(c.tideway.coordinator.advertisedAddress).toBe('tideway-coordinator-0.tideway-coordinator:5801');
    expect(c.tideway.coordinator.addresses).toEqual(['tideway-coordinator-0.tideway-coordinator:5801']);
    expect(c.tideway.worker.advertisedAddress).toBe('10.1.2.3:5803');
    // A listed cluster wins over the own address.
    expect(ha('  coordinator: { advertised-address: "c1:5801", addresses: [c1:5801, c2:5801] }\n').tideway.coordinator.addresses).toEqual([
      'c1:5801',
      'c2:5801',
    ]);
    // A coordinator on a free port has no address to list, unless it advertises one.
    expect(ha('  coordinator: { port: 0, advertised-address: "lb:5801" }\n').tideway.coordinator.addresses).toEqual(['lb:5801']);
  });

  it('refuses advertised addresses nobody can dial, naming the key', () => {
    expect(failure(() => ha('  coordinator: { advertised-address: "coordinator-0" }\n')).message).toBe(
      "tideway.coordinator.advertised-address 'coordinator-0' is not host:port (e.g. tideway-coordinator-0.tideway-coordinator:5801)",
    );
    expect(failure(() => ha('  worker: { advertised-address: "0.0.0.0:5803" }\n')).message).toBe(
      "tideway.worker.advertised-address '0.0.0.0:5803' is a wildcard address that others cannot dial: use this host's DNS name or IP address",
    );
    expect(failure(() => ha('  worker: { advertised-address: "[::]:5803" }\n')).message).toMatch(
      /^tideway\.worker\.advertised-address '\[::\]:5803' is a wildcard/,
    );
  });

  it('refuses a redis store without its address, and redis-only settings with the memory store', () => {
    expect(failure(() => ha('  state-store:\n    type: redis\n')).message).toBe(
      'tideway.state-store.redis.address is empty but tideway.state-store.type is redis: set it to the host:port of the Redis that holds the state',
    );
    expect(failure(() => ha('  state-store: { redis: { address: "a:1" } }\n')).message).toMatch(
      /^tideway\.state-store\.redis\.address is set \(a:1\) but tideway\.state-store\.type is memory/,
    );
    expect(failure(() => ha('  ha: { lock-nodes: [a:1] }\n')).message).toMatch(
      /^tideway\.ha\.lock-nodes is set but tideway\.state-store\.type is memory/,
    );
  });

  it('refuses addresses that do not parse or repeat, naming the key and entry', () => {
    expect(failure(() => ha('  state-store: { type: redis, redis: { address: "redis" } }\n')).message).toBe(
      "tideway.state-store.redis.address 'redis' is not host:port (e.g. 127.0.0.1:6379)",
    );
    expect(failure(() => ha(REDIS + '  ha: { lock-nodes: [a:1, "b:99999", c:3] }\n')).message).toBe(
      "tideway.ha.lock-nodes[1] 'b:99999' is not host:port (e.g. 127.0.0.1:6379)",
    );
    expect(failure(() => ha(REDIS + '  ha: { lock-nodes: [a:1, b:2, A:1] }\n')).message).toBe(
      'tideway.ha.lock-nodes lists A:1 twice: each entry must be a different server',
    );
    expect(failure(() => ha('  coordinator: { addresses: [c1:5801, "c2"] }\n')).message).toMatch(
      /^tideway\.coordinator\.addresses\[1\] 'c2' is not host:port/,
    );
  });

  it('refuses an even number of lock nodes, saying why', () => {
    expect(failure(() => ha(REDIS + '  ha: { lock-nodes: [a:1, b:2] }\n')).message).toMatch(
      /^tideway\.ha\.lock-nodes lists 2 nodes: use an odd count \(1, 3, 5\): a lease needs a majority/,
    );
    expect(ha(REDIS + '  ha: { lock-nodes: [a:1, b:2, c:3, d:4, e:5] }\n').tideway.ha.lockNodes).toHaveLength(5);
  });

  it('refuses timings that cannot work together', () => {
    expect(failure(() => ha(REDIS + '  ha: { lease-ttl: 3000 }\n')).message).toBe(
      'tideway.ha.lease-ttl (3000 ms) must be longer than tideway.heartbeat.interval (3000 ms)',
    );
    expect(failure(() => ha(REDIS + '  ha: { retry-interval: 5000 }\n')).message).toMatch(
      /^tideway\.ha\.retry-interval \(5000 ms\) must be shorter than tideway\.ha\.lease-ttl \(5000 ms\)/,
    );
    expect(failure(() => ha(REDIS + '  worker: { leader-loss-timeout: 5000 }\n')).message).toMatch(
      /^tideway\.worker\.leader-loss-timeout \(5000 ms\) must be longer than tideway\.ha\.lease-ttl \(5000 ms\)/,
    );
    expect(failure(() => ha('  state-store: { type: redis, redis: { address: "a:1", wait-timeout: 0 } }\n')).message).toMatch(
      /wait-timeout' must be at least 1/,
    );
    // The memory store has no lease: its timings are not held against one.
    expect(ha('  heartbeat: { interval: 8000 }\n').tideway.heartbeat.interval).toBe(8000);
  });

  it('names the keys that replaced the old state-store.redis.nodes', () => {
    expect(failure(() => ha('  state-store:\n    redis:\n      nodes: [a:1]\n')).message).toBe(
      "e.yaml:4: 'tideway.state-store.redis.nodes' is no longer read: use tideway.state-store.redis.address (the Redis holding the state) and tideway.ha.lock-nodes (the Redlock nodes)",
    );
  });

  it('refuses client certificates without tideway.tls, and keeps the table as written with it', () => {
    expect(failure(() => ha('  auth:\n    certificates: { alice: "admin" }\n')).message).toBe(
      'tideway.auth.certificates needs tideway.tls: client certificates are only seen, and checked against the CA, over TLS',
    );
    const tls = '  tls: { ca-file: ca.pem, cert-file: c.pem, key-file: k.pem }\n';
    expect(ha(`${tls}  auth:\n    certificates: { alice: "operator t" }\n`).tideway.auth.certificates).toEqual({ alice: 'operator t' });
  });

  it('reads namespace limits and refuses a bad key, a bad namespace name and a prefix that is not an absolute folder', () => {
    const auth = (lines: string) => loadEngineConfig({ file: 'e.yaml', text: `tideway:\n  auth:\n    namespaces:\n${lines}` });
    const ok = auth('      team-a:\n        allowed-plugins: [FakeSource, Console]\n        local-file-path-prefixes: [/data/team-a/]\n');
    expect(ok.tideway.auth.namespaces).toEqual({
      'team-a': { allowedPlugins: ['FakeSource', 'Console'], localFilePathPrefixes: ['/data/team-a/'], maxRunningJobs: 0, maxSlots: 0 },
    });
    expect(auth('      team-b: {}\n').tideway.auth.namespaces['team-b']).toEqual({
      allowedPlugins: [],
      localFilePathPrefixes: [],
      maxRunningJobs: 0,
      maxSlots: 0,
    });
    expect(auth('      team-c:\n        max-running-jobs: 2\n        max-slots: 4\n').tideway.auth.namespaces['team-c']).toMatchObject({
      maxRunningJobs: 2,
      maxSlots: 4,
    });
    expect(failure(() => auth('      team-a:\n        allowed-plugin: [FakeSource]\n')).message).toBe(
      "e.yaml:5: unknown key 'tideway.auth.namespaces.team-a.allowed-plugin' (known here: allowed-plugins, local-file-path-prefixes, max-running-jobs, max-slots)",
    );
    expect(failure(() => auth('      team-a:\n        allowed-plugins: FakeSource\n')).message).toMatch(
      /^e\.yaml:5: 'tideway\.auth\.namespaces\.team-a\.allowed-plugins' must be a list of strings/,
    );
    expect(failure(() => auth('      "team a": {}\n')).message).toBe(
      "tideway.auth.namespaces.team a: a namespace name has letters, digits, '.', '_' and '-' only",
    );
    expect(failure(() => auth('      team-a: { local-file-path-prefixes: [data/team-a] }\n')).message).toContain(
      "tideway.auth.namespaces.team-a.local-file-path-prefixes: 'data/team-a' is not an absolute folder",
    );
    expect(failure(() => auth('      team-a: { local-file-path-prefixes: [/data/../etc] }\n')).message).toContain(
      "'/data/../etc' is not an absolute folder",
    );
  });
});
