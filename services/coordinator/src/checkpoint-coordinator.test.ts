import { describe, expect, it } from 'vitest';
import { CheckpointCoordinator, type CheckpointParticipants, type CompletedCheckpoint } from './checkpoint-coordinator.js';
import type { CheckpointKind } from '@tideway/runtime';

/** A hand-written fake pipeline: records triggers and lets the test ACK (or not). */
class FakePipeline implements CheckpointParticipants {
  triggered: Array<{ tg: number; id: number; kind: CheckpointKind }> = [];
  completedIds: number[] = [];
  notified: Array<{ tg: number; id: number }> = [];
  aborted: Array<{ tg: number; id: number }> = [];
  failComplete = false;

  constructor(private readonly groups = [0, 1]) {}

  taskGroups(): number[] {
    return this.groups;
  }
  async trigger(tg: number, id: number, kind: CheckpointKind): Promise<void> {
    this.triggered.push({ tg, id, kind });
  }
  async snapshotEnumerators(): Promise<Record<number, unknown>> {
    return { 1: { assigned: [] } };
  }
  async complete(cp: CompletedCheckpoint): Promise<void> {
    if (this.failComplete) throw new Error('storage unavailable');
    this.completedIds.push(cp.checkpointId);
  }
  async notifyComplete(tg: number, id: number): Promise<void> {
    this.notified.push({ tg, id });
  }
  async notifyAborted(tg: number, id: number): Promise<void> {
    this.aborted.push({ tg, id });
  }
}

const settings = { intervalMs: 0, timeoutMs: 200, minPauseMs: 0 };
const state = { readerSplits: {}, writerStates: {} };
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('CheckpointCoordinator', () => {
  it('completes when every task group has acknowledged, then notifies them', async () => {
    const p = new FakePipeline();
    const cc = new CheckpointCoordinator(1, settings, p);
    const done = cc.trigger('CHECKPOINT');
    await tick();
    expect(p.triggered.map((t) => t.id)).toEqual([1, 1]);
    await cc.acknowledge(0, 1, state, { 3: ['a'] });
    expect(p.completedIds).toEqual([]);
    await cc.acknowledge(1, 1, state, { 3: ['b'] });
    expect(await done).toBe(true);
    expect(p.completedIds).toEqual([1]);
    expect(p.notified).toHaveLength(2);
    expect(cc.latestCompleted?.commitInfos).toEqual({ 3: ['a', 'b'] });
  });

  it('aborts on timeout and still completes the next checkpoint (SeaTunnel #10442)', async () => {
    const p = new FakePipeline();
    const cc = new CheckpointCoordinator(1, settings, p);
    const first = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 1, state, {});
    expect(await first).toBe(false); // task group 1 never answers
    expect(p.aborted.map((a) => a.id)).toEqual([1, 1]);
    const second = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 2, state, {});
    await cc.acknowledge(1, 2, state, {});
    expect(await second).toBe(true);
    expect(cc.completed).toBe(1);
    expect(cc.failed).toBe(1);
  });

  it('never aborts for time when checkpoints do not expire (a BATCH job without checkpoint.interval, as SeaTunnel)', async () => {
    const p = new FakePipeline();
    const cc = new CheckpointCoordinator(1, { ...settings, timeoutMs: 10, expires: false }, p);
    const final = cc.trigger('COMPLETED_POINT');
    await tick();
    await cc.acknowledge(0, 1, state, {});
    await new Promise((r) => setTimeout(r, 60)); // six timeouts' worth
    expect(p.aborted).toEqual([]);
    await cc.acknowledge(1, 1, state, {});
    expect(await final).toBe(true);
    expect(cc.failed).toBe(0);
  });

  it('aborts when a task group fails to snapshot or storage fails, and goes on', async () => {
    const p = new FakePipeline();
    const cc = new CheckpointCoordinator(1, settings, p);
    const a = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 1, undefined, undefined, { code: 'TW-TASK-001', message: 'disk full', retryable: true });
    expect(await a).toBe(false);
    p.failComplete = true;
    const b = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 2, state, {});
    await cc.acknowledge(1, 2, state, {});
    expect(await b).toBe(false);
    p.failComplete = false;
    const c = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 3, state, {});
    await cc.acknowledge(1, 3, state, {});
    expect(await c).toBe(true);
  });

  it('ignores late and duplicate ACKs', async () => {
    const p = new FakePipeline([0]);
    const cc = new CheckpointCoordinator(1, settings, p);
    const a = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 99, state, {});
    await cc.acknowledge(0, 1, state, {});
    await cc.acknowledge(0, 1, state, {});
    expect(await a).toBe(true);
    expect(p.completedIds).toEqual([1]);
  });

  it('keeps one checkpoint in flight: a periodic trigger is skipped, a final one waits', async () => {
    const p = new FakePipeline([0]);
    const cc = new CheckpointCoordinator(1, settings, p);
    const a = cc.trigger('CHECKPOINT');
    await tick();
    expect(await cc.trigger('CHECKPOINT')).toBe(false);
    const final = cc.trigger('COMPLETED_POINT');
    await tick();
    expect(p.triggered.map((t) => t.id)).toEqual([1]);
    await cc.acknowledge(0, 1, state, {});
    expect(await a).toBe(true);
    await tick();
    expect(p.triggered.map((t) => [t.id, t.kind])).toEqual([
      [1, 'CHECKPOINT'],
      [2, 'COMPLETED_POINT'],
    ]);
    await cc.acknowledge(0, 2, state, {});
    expect(await final).toBe(true);
  });

  it('continues numbering after a restore, and checkpoints after it complete (SeaTunnel #4985)', async () => {
    const p = new FakePipeline([0]);
    const cc = new CheckpointCoordinator(1, settings, p, 41);
    const a = cc.trigger('CHECKPOINT');
    await tick();
    expect(p.triggered[0].id).toBe(42);
    await cc.acknowledge(0, 42, state, {});
    expect(await a).toBe(true);
  });

  it('triggers periodically when an interval is set, and stops when told', async () => {
    const p = new FakePipeline([0]);
    const cc = new CheckpointCoordinator(1, { ...settings, intervalMs: 20 }, p);
    cc.start();
    await new Promise((r) => setTimeout(r, 35));
    expect(p.triggered.length).toBeGreaterThanOrEqual(1);
    await cc.acknowledge(0, p.triggered[0].id, state, {});
    cc.stop();
    const n = p.triggered.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(p.triggered.length).toBe(n);
  });
});
