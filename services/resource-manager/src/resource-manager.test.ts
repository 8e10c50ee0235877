import { describe, expect, it } from 'vitest';
import type { WorkerProfile } from '@tideway/contracts';
import { ResourceManager } from './resource-manager.js';

const profile = (id: string, over: Partial<WorkerProfile> = {}): WorkerProfile => ({
  workerId: id,
  address: `127.0.0.1:${id.length + 5800}`,
  cpuCores: 2,
  memoryMb: 1024,
  systemLoad: 0,
  attributes: {},
  dynamicSlot: false,
  slotNum: 2,
  assignedSlots: [],
  freeMemoryMb: 512,
  draining: false,
  stopping: false,
  heapUsedBytes: 0,
  heapTotalBytes: 0,
  heapMaxBytes: 0,
  health: {},
  ...over,
});

const manager = (lost: string[] = []) =>
  new ResourceManager({
    strategy: 'RANDOM',
    heartbeatTimeoutMs: 60_000,
    heartbeatIntervalMs: 1000,
    onWorkerLost: (w) => lost.push(w.workerId),
  });
const apply = (m: ResourceManager, n: number) =>
  m.apply({ jobId: 'j', slotCount: n, cpuPerSlot: 0, memoryMbPerSlot: 0, tagFilter: {}, owners: [] });

describe('ResourceManager drains', () => {
  it('a drained worker gets no slot, answers draining in its heartbeats, and undrain gives its slots again', () => {
    const m = manager();
    m.register(profile('a', { address: '10.0.0.1:5803' }));
    m.register(profile('b', { address: '10.0.0.2:5803' }));
    expect(m.setDraining('10.0.0.1:5803', true)).toMatchObject({ workerId: 'a', draining: true });
    expect(m.heartbeat(profile('a', { address: '10.0.0.1:5803' }))).toEqual({ known: true, draining: true });
    expect(apply(m, 2).map((s) => s.workerId)).toEqual(['b', 'b']);
    expect(() => apply(m, 1)).toThrow(/1 draining worker\(s\) left out/);
    expect(m.listWorkers().find((w) => w.workerId === 'a')?.draining).toBe(true);
    m.setDraining('a', false);
    expect(m.heartbeat(profile('a', { address: '10.0.0.1:5803' }))).toEqual({ known: true, draining: false });
    expect(apply(m, 2).map((s) => s.workerId)).toEqual(['a', 'a']);
    expect(() => m.setDraining('nope', true)).toThrow(
      /no registered worker has the id or address 'nope'; registered: a \(10.0.0.1:5803\), b \(10.0.0.2:5803\)/,
    );
  });

  it('a stopping worker drains until it is gone, whatever undrain says; a restarted resource manager takes the drain from the worker', () => {
    const m = manager();
    m.register(profile('a'));
    m.heartbeat(profile('a', { draining: true, stopping: true }));
    m.setDraining('a', false);
    expect(m.listWorkers()[0].draining).toBe(true);
    expect(() => apply(m, 1)).toThrow(/every one of the 1 worker\(s\) is draining/);
    const restarted = manager();
    restarted.register(profile('b', { draining: true }));
    expect(restarted.heartbeat(profile('b', { draining: true }))).toEqual({ known: true, draining: true });
  });

  it('a worker registering at the address of another replaces it: forgotten when it held no slot, lost when it did', () => {
    const lost: string[] = [];
    const m = manager(lost);
    m.register(profile('old', { address: '10.0.0.1:5803' }));
    m.setDraining('old', true);
    m.register(profile('new', { address: '10.0.0.1:5803' }));
    expect(m.listWorkers().map((w) => [w.workerId, w.draining])).toEqual([['new', false]]);
    expect(lost).toEqual([]);
    apply(m, 1);
    m.register(profile('newer', { address: '10.0.0.1:5803' }));
    expect(lost).toEqual(['new']);
    expect(m.listWorkers().map((w) => w.workerId)).toEqual(['newer']);
  });
});
