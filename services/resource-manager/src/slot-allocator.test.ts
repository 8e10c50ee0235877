import { describe, expect, it } from 'vitest';
import { allocateSlots, matchesTagFilter, type WorkerCapacity } from './slot-allocator.js';

const worker = (id: string, over: Partial<WorkerCapacity> = {}): WorkerCapacity => ({
  workerId: id,
  address: `127.0.0.1:${id}`,
  attributes: {},
  dynamicSlot: false,
  slotNum: 2,
  cpuCores: 2,
  memoryMb: 1024,
  systemLoad: 0,
  usedSlots: 0,
  usedCpu: 0,
  usedMemoryMb: 0,
  ...over,
});
const req = (n: number, tagFilter: Record<string, string> = {}) => ({
  jobId: 'j1',
  slotCount: n,
  cpuPerSlot: 0,
  memoryMbPerSlot: 0,
  tagFilter,
});

describe('allocateSlots', () => {
  it('grants all or nothing and names the numbers when short', () => {
    expect(allocateSlots([worker('a'), worker('b')], req(4), 'RANDOM')).toHaveLength(4);
    expect(() => allocateSlots([worker('a')], req(4), 'RANDOM')).toThrow(/needs 4 slot\(s\).*2 slot\(s\) in all, 2 free/);
  });

  it('matches tag filters key by key', () => {
    expect(matchesTagFilter({ group: 'a', team: 'b' }, { group: 'a' })).toBe(true);
    expect(matchesTagFilter({ group: 'a' }, { group: 'a', team: 'b' })).toBe(false);
    expect(() => allocateSlots([worker('a', { attributes: { group: 'x' } })], req(1, { group: 'error_tag' }), 'RANDOM')).toThrow(
      /NoEnoughResource.*tag_filter \{"group":"error_tag"\} matches none of the 1 worker/,
    );
  });

  it('SLOT_RATIO spreads slots over the least used workers', () => {
    const grants = allocateSlots([worker('a', { usedSlots: 1 }), worker('b')], req(2), 'SLOT_RATIO');
    expect(grants.map((g) => g.workerId).sort()).toEqual(['a', 'b']);
  });

  it('SYSTEM_LOAD prefers the least loaded worker', () => {
    const grants = allocateSlots(
      [worker('a', { systemLoad: 5, slotNum: 10 }), worker('b', { systemLoad: 0, slotNum: 10 })],
      req(1),
      'SYSTEM_LOAD',
    );
    expect(grants[0].workerId).toBe('b');
  });

  it('dynamic slots are bounded by cpu and memory when the request asks for them', () => {
    const w = worker('a', { dynamicSlot: true, cpuCores: 2, usedCpu: 1 });
    expect(allocateSlots([w], { ...req(1), cpuPerSlot: 1 }, 'RANDOM')).toHaveLength(1);
    expect(() => allocateSlots([w], { ...req(2), cpuPerSlot: 1 }, 'RANDOM')).toThrow(/NoEnoughResource/);
    expect(allocateSlots([w], req(50), 'RANDOM')).toHaveLength(50);
  });

  it('grants nothing on a draining worker, and says so when that is why slots are short', () => {
    for (const strategy of ['RANDOM', 'SLOT_RATIO', 'SYSTEM_LOAD'] as const) {
      const grants = allocateSlots([worker('a', { draining: true, systemLoad: 0 }), worker('b', { systemLoad: 3 })], req(2), strategy);
      expect(grants.map((g) => g.workerId)).toEqual(['b', 'b']);
    }
    expect(() => allocateSlots([worker('a', { draining: true }), worker('b')], req(3), 'RANDOM')).toThrow(
      /needs 3 slot\(s\), but 1 worker\(s\) have 2 slot\(s\) in all, 2 free \(1 draining worker\(s\) left out\)/,
    );
    expect(() => allocateSlots([worker('a', { draining: true })], req(1), 'RANDOM')).toThrow(/every one of the 1 worker\(s\) is draining/);
  });
});
