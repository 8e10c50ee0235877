import { describe, expect, it } from 'vitest';
import { planJob } from './job-plan.js';
import { pluginFactory } from './test-plugins.js';

describe('buildPhysicalPlan', () => {
  it('fuses Source(4) -> Transform(4) -> Sink(4) into 4 task groups', () => {
    const { source, transform, sink } = pluginFactory();
    const plan = planJob([source('FakeSource'), transform('Sql'), sink('Console')], { envParallelism: 4 });
    const [p] = plan.physical.pipelines;
    expect(p.stages).toHaveLength(1);
    expect(p.shuffles).toEqual([]);
    expect(p.taskGroups.map((g) => [g.id, g.stageId, g.subtaskIndex, g.slots])).toEqual([
      [1, 1, 0, 1],
      [2, 1, 1, 1],
      [3, 1, 2, 1],
      [4, 1, 3, 1],
    ]);
    expect(p.taskGroups[0].tasks).toEqual([
      { index: 0, kind: 'source-reader', vertexId: 1, next: [1] },
      { index: 1, kind: 'transform-chain', vertexIds: [2], next: [2] },
      { index: 2, kind: 'sink-writer', vertexId: 3, next: [] },
    ]);
    expect(p.slots).toBe(4);
    expect(plan.physical.slots).toBe(4);
    expect(p.enumerators).toEqual([{ vertexId: 1, name: 'FakeSource', readers: 4 }]);
    expect(p.aggregatedCommitters).toEqual([{ vertexId: 3, name: 'Console', writers: 4 }]);
  });

  it('puts a shuffle edge where the parallelism changes', () => {
    const { source, transform, sink } = pluginFactory();
    const plan = planJob([
      source('FakeSource', { output: 'a', parallelism: 4 }),
      transform('Sql', { inputs: ['a'], output: 'b', parallelism: 2 }),
      sink('Console', { inputs: ['b'] }),
    ]);
    const [p] = plan.physical.pipelines;
    expect(p.stages.map((s) => [s.id, s.parallelism, s.vertexIds, s.inputShuffleId])).toEqual([
      [1, 4, [1], undefined],
      [2, 2, [2, 3], 1],
    ]);
    expect(p.shuffles).toEqual([
      {
        id: 1,
        table: 'a',
        upstream: { stageId: 1, vertexId: 1, parallelism: 4, taskGroupIds: [1, 2, 3, 4] },
        downstream: { stageId: 2, vertexId: 2, parallelism: 2, taskGroupIds: [5, 6] },
        partitioning: { strategy: 'primary-key-hash', withoutPrimaryKey: 'round-robin' },
      },
    ]);
    expect(p.stages[0].tasks).toEqual([
      { index: 0, kind: 'source-reader', vertexId: 1, next: [1] },
      { index: 1, kind: 'shuffle-writer', shuffleId: 1, next: [] },
    ]);
    expect(p.stages[1].tasks).toEqual([
      { index: 0, kind: 'shuffle-reader', shuffleId: 1, next: [1] },
      { index: 1, kind: 'transform-chain', vertexIds: [2], next: [2] },
      { index: 2, kind: 'sink-writer', vertexId: 3, next: [] },
    ]);
    expect(p.slots).toBe(6);
    expect(p.aggregatedCommitters).toEqual([{ vertexId: 3, name: 'Console', writers: 2 }]);
  });

  it('chains consecutive transforms and fans out inside one task group', () => {
    const { source, transform, sink } = pluginFactory();
    const plan = planJob([
      source('FakeSource', { output: 'a' }),
      transform('Copy', { inputs: ['a'], output: 'b' }),
      transform('Copy', { inputs: ['b'], output: 'c' }),
      sink('Assert', { inputs: ['c'] }),
      sink('Console', { inputs: ['c'] }),
    ]);
    const [p] = plan.physical.pipelines;
    expect(p.taskGroups).toHaveLength(1);
    expect(p.stages[0].tasks).toEqual([
      { index: 0, kind: 'source-reader', vertexId: 1, next: [1] },
      { index: 1, kind: 'transform-chain', vertexIds: [2, 3], next: [2, 3] },
      { index: 2, kind: 'sink-writer', vertexId: 4, next: [] },
      { index: 3, kind: 'sink-writer', vertexId: 5, next: [] },
    ]);
  });

  it('keeps a fused branch and shuffles only the branch whose parallelism differs', () => {
    const { source, sink } = pluginFactory();
    const plan = planJob([
      source('FakeSource', { output: 'a', parallelism: 2 }),
      sink('Console', { inputs: ['a'] }),
      sink('Assert', { inputs: ['a'], parallelism: 1 }),
    ]);
    const [p] = plan.physical.pipelines;
    expect(p.stages[0].tasks).toEqual([
      { index: 0, kind: 'source-reader', vertexId: 1, next: [1, 2] },
      { index: 1, kind: 'sink-writer', vertexId: 2, next: [] },
      { index: 2, kind: 'shuffle-writer', shuffleId: 1, next: [] },
    ]);
    expect(p.shuffles[0].downstream).toEqual({ stageId: 2, vertexId: 3, parallelism: 1, taskGroupIds: [3] });
  });

  it('lists only the aggregated committers the sinks have', () => {
    const { source, sink } = pluginFactory();
    const plan = planJob(
      [source('FakeSource', { output: 'a' }), sink('Console', { inputs: ['a'] }), sink('LocalFile', { inputs: ['a'] })],
      {
        sinkHasAggregatedCommitter: (v) => v.plugin.name === 'LocalFile',
      },
    );
    expect(plan.physical.pipelines[0].aggregatedCommitters).toEqual([{ vertexId: 3, name: 'LocalFile', writers: 1 }]);
  });
});
