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
      tideway: { stateStore: { type: 'memory', redis: { nodes: [] } }, heartbeat: { interval: 3000, timeout: 30000 } },
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
    redis: { nodes: ["127.0.0.1:6379"] }
`;
    const c = loadEngineConfig({ file: 'engine.yaml', text });
    expect(c.queueType).toBe('DISRUPTOR');
    expect(c.slotService).toEqual({ dynamicSlot: false, slotNum: 4, slotAllocateStrategy: 'RANDOM' });
    expect(c.jobScheduleStrategy).toBe('WAIT');
    expect(c.checkpoint.storage.pluginConfig).toMatchObject({ 's3.bucket': 's3a://cp', 'fs.s3a.path.style.access': true, 'fs.s3a.connection.maximum': 10 });
    expect(c.tideway.worker.attributes).toEqual({ group: 'g1' });
    expect(c.tideway.stateStore.redis.nodes).toEqual(['127.0.0.1:6379']);
  });

  it('forces REJECT with dynamic slots, as SeaTunnel does', () => {
    expect(loadEngineConfig({ sets: ['job-schedule-strategy=WAIT'] }).jobScheduleStrategy).toBe('REJECT');
  });

  it('applies --set overrides as typed YAML scalars', () => {
    const c = loadEngineConfig({ file: DEPLOY, sets: ['slot-service.dynamic-slot=false', 'slot-service.slot-num=2', 'checkpoint.storage.plugin-config.namespace=/x'] });
    expect(c.slotService).toMatchObject({ dynamicSlot: false, slotNum: 2 });
    expect(c.checkpoint.storage.pluginConfig.namespace).toBe('/x');
  });

  it('rejects unknown keys and wrong types with file:line', () => {
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    slot-service:\n      slot-nmu: 2\n' })).message).toMatch(
      /^e\.yaml:4: unknown key 'seatunnel\.engine\.slot-service\.slot-nmu' \(known here: dynamic-slot, slot-num, slot-allocate-strategy\)/,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    backup-count: many\n' })).message).toBe(
      `e.yaml:3: 'seatunnel.engine.backup-count' must be an integer, not "many"`,
    );
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'other: 1\n' })).message).toMatch(/^e\.yaml:1: unknown top-level key 'other'/);
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'seatunnel:\n  engine:\n    queue-type: fast\n' })).message).toMatch(/must be one of BLOCKINGQUEUE, DISRUPTOR/);
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'a: [\n' })).message).toMatch(/^e\.yaml:\d+: the YAML does not parse/);
  });

  it('rejects bad --set texts, naming them', () => {
    expect(failure(() => loadEngineConfig({ sets: ['slot-service.slot-num=two'] })).message).toBe(`--set 'slot-service.slot-num=two': 'slot-service.slot-num' must be an integer, not "two"`);
    expect(failure(() => loadEngineConfig({ sets: ['slot-service.nope=1'] })).message).toMatch(/unknown key 'seatunnel\.engine\.slot-service\.nope'/);
    expect(failure(() => loadEngineConfig({ sets: ['slot-service=1'] })).message).toMatch(/is a group of settings/);
    expect(failure(() => loadEngineConfig({ sets: ['noequals'] })).message).toMatch(/expected key=value/);
  });

  it('checks rules across settings', () => {
    expect(failure(() => loadEngineConfig({ file: 'e.yaml', text: 'tideway:\n  state-store:\n    type: redis\n' })).message).toMatch(/redis.nodes lists no host:port/);
    expect(failure(() => loadEngineConfig({ sets: ['checkpoint.storage.type=s3'] })).message).toMatch(/no s3\.bucket/);
  });
});
