import { describe, expect, it } from 'vitest';
import { planJobText, type PlannedPipeline } from '@tideway/planner';
import type { TaskGroupState } from '@tideway/runtime';
import type { RestorePoint } from './checkpoint-records.js';
import { fitRestorePoint, placementsOf, type RescaleAbilities } from './rescale.js';
import { fitRestorePoints } from './restore-from.js';

/** Sequence (vertex 1) into LocalFile (vertex 2), fused, at `p`; with `shuffle`, the sink runs at 2 behind a shuffle. */
const config = (p: number, shuffle = false) => `
env { job.mode = "STREAMING", parallelism = ${p} }
source { Sequence { plugin_output = "seq", keys = 6 } }
sink { LocalFile { plugin_input = "seq", path = "/tmp/rescale-test", file_format_type = "text"${shuffle ? ', parallelism = 2' : ''} } }
`;

async function pipeline(p: number, shuffle = false): Promise<PlannedPipeline> {
  return (await planJobText(config(p, shuffle), { jobId: 'new', file: 'job.conf' })).pipelines[0];
}

/** A checkpoint of `plan` where reader s holds split `seq-s` and writer s state `w-s` and commit info `c-s`. */
function checkpointOf(plan: PlannedPipeline, withPlacements = true): RestorePoint {
  const taskStates = new Map<number, TaskGroupState>();
  for (const tg of plan.taskGroups) {
    const s = tg.descriptor.subtaskIndex;
    const state: TaskGroupState = { readerSplits: {}, writerStates: {} };
    if (tg.isSource) state.readerSplits[1] = [{ splitId: `seq-${s}`, emitted: 10 * s }];
    const hasSink = JSON.stringify(tg.descriptor.root).includes('"vertexId":2');
    if (hasSink) {
      state.writerStates[2] = [`w-${s}`];
      state.pendingCommits = { 2: [`c-${s}`] };
    }
    taskStates.set(tg.index, state);
  }
  return {
    checkpointId: 7,
    kind: 'CHECKPOINT',
    taskStates,
    enumeratorStates: new Map([[1, { assigned: ['seq-0'] }]]),
    pendingCommits: new Map(),
    placements: withPlacements ? placementsOf(plan) : undefined,
  };
}

const able: RescaleAbilities = {
  source: { name: 'Sequence', rescalable: true },
  sinks: new Map([[2, { name: 'LocalFile', rescalable: true }]]),
};

describe('fitting a checkpoint to other parallelisms', () => {
  it('keeps a checkpoint of the same layout as it is', async () => {
    const point = checkpointOf(await pipeline(2));
    expect(fitRestorePoint(point, await pipeline(2), able, 'old')).toBe(point);
  });

  it('2 -> 3: the splits go back to the enumerator, writer i keeps old writer i state, the new writer starts empty', async () => {
    const fitted = fitRestorePoint(checkpointOf(await pipeline(2)), await pipeline(3), able, 'old');
    expect(fitted.splitsBack).toEqual([
      { subtask: 0, splits: [{ splitId: 'seq-0', emitted: 0 }] },
      { subtask: 1, splits: [{ splitId: 'seq-1', emitted: 10 }] },
    ]);
    expect(fitted.enumeratorStates.get(1)).toEqual({ assigned: ['seq-0'] });
    expect([...fitted.taskStates.values()].map((s) => s.readerSplits[1])).toEqual([[], [], []]);
    expect([...fitted.taskStates.values()].map((s) => s.writerStates[2] ?? [])).toEqual([['w-0'], ['w-1'], []]);
    expect([...fitted.taskStates.values()].map((s) => s.pendingCommits?.[2] ?? [])).toEqual([['c-0'], ['c-1'], []]);
  });

  it('3 -> 1: every old writer state and commit info goes to the one writer; every split to reader 0', async () => {
    const fitted = fitRestorePoint(checkpointOf(await pipeline(3)), await pipeline(1), able, 'old');
    expect(fitted.splitsBack?.map((b) => b.subtask)).toEqual([0, 0, 0]);
    expect(fitted.taskStates.get(0)?.writerStates[2]).toEqual(['w-0', 'w-1', 'w-2']);
    expect(fitted.taskStates.get(0)?.pendingCommits?.[2]).toEqual(['c-0', 'c-1', 'c-2']);
  });

  it('a source parallelism changed behind an unchanged sink behind a shuffle: the sink keeps its states writer by writer', async () => {
    const old = await pipeline(2, true);
    const now = await pipeline(4, true);
    const fitted = fitRestorePoint(checkpointOf(old), now, able, 'old');
    const sinkStates = now.taskGroups.filter((tg) => !tg.isSource).map((tg) => fitted.taskStates.get(tg.index)?.writerStates[2]);
    expect(sinkStates).toEqual([['w-0'], ['w-1']]);
    expect(fitted.splitsBack?.length).toBe(2);
  });

  it('refuses, naming the plugin and both parallelisms, a source that cannot re-assign its splits', async () => {
    const abilities = { ...able, source: { name: 'Sequence', rescalable: false } };
    const [old, now] = [checkpointOf(await pipeline(2)), await pipeline(3)];
    expect(() => fitRestorePoint(old, now, abilities, 'old')).toThrow(
      'checkpoint 7 of job old (pipeline 1) ran source Sequence (vertex 1) at parallelism 2; the new config runs it at 3, but it cannot re-assign its splits to another number of readers: restore with parallelism 2 for it',
    );
  });

  it('refuses a sink that cannot hand its writer states to another number of writers, unless its writers kept none', async () => {
    const abilities = { ...able, sinks: new Map([[2, { name: 'Jdbc', rescalable: false }]]) };
    const [old, one] = [checkpointOf(await pipeline(2)), await pipeline(1)];
    expect(() => fitRestorePoint(old, one, abilities, 'old')).toThrow(
      /ran sink Jdbc \(vertex 2\) at parallelism 2; the new config runs it at 1, but it keeps per-writer state/,
    );
    const stateless = checkpointOf(await pipeline(2));
    for (const s of stateless.taskStates.values()) {
      s.writerStates[2] = [];
      delete s.pendingCommits;
    }
    expect(() => fitRestorePoint(stateless, one, abilities, 'old')).not.toThrow();
  });

  it('a checkpoint stored without placements restores only into as many task groups', async () => {
    const point = checkpointOf(await pipeline(2), false);
    expect(fitRestorePoint(point, await pipeline(2), able, 'old')).toBe(point);
    const one = await pipeline(1);
    expect(() => fitRestorePoint(point, one, able, 'old')).toThrow(
      'checkpoint 7 of job old (pipeline 1) has 2 task group states but the new config plans 1 task groups, and it was written without their placements, so it can only be restored at the parallelism it had',
    );
  });

  it('asks the planned plugins themselves: Sequence and LocalFile may change parallelism', async () => {
    const job = await planJobText(config(3), { jobId: 'new', file: 'job.conf' });
    const fitted = fitRestorePoints(new Map([[1, checkpointOf(await pipeline(2))]]), job, 'old');
    expect(fitted.get(1)?.taskStates.size).toBe(3);
  });
});
