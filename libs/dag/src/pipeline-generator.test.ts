import { describe, expect, it } from 'vitest';
import { buildLogicalDag } from './logical-dag.js';
import { generatePipelines } from './pipeline-generator.js';
import { pluginFactory } from './test-plugins.js';

describe('generatePipelines', () => {
  it('makes two pipelines of two disconnected source->sink chains, ids from 1', () => {
    const { source, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'fake1' }),
      source('FakeSource', { output: 'fake2' }),
      sink('Console', { inputs: ['fake1'] }),
      sink('Console', { inputs: ['fake2'] }),
    ]);
    const pipelines = generatePipelines(dag);
    expect(pipelines.map((p) => p.id)).toEqual([1, 2]);
    expect(pipelines.map((p) => p.vertices.map((v) => v.id))).toEqual([
      [1, 3],
      [2, 4],
    ]);
    expect(pipelines.every((p) => p.vertices.every((v) => !v.cloned))).toBe(true);
    expect(pipelines[1].edges).toEqual([{ from: 2, to: 4, table: 'fake2' }]);
  });

  it('splits a sink that reads two sources into one pipeline per source, with cloned vertices', () => {
    const { source, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'a', parallelism: 2 }),
      source('Jdbc', { output: 'b', parallelism: 3 }),
      sink('Console', { inputs: ['a', 'b'] }),
    ]);
    const pipelines = generatePipelines(dag);
    expect(pipelines).toHaveLength(2);
    const [p1, p2] = pipelines;
    expect(p1.vertices.map((v) => [v.id, v.logicalId, v.plugin.name, v.parallelism, v.cloned])).toEqual([
      [4, 1, 'FakeSource', 2, true],
      [5, 3, 'Console', 2, true],
    ]);
    expect(p2.vertices.map((v) => [v.id, v.logicalId, v.plugin.name, v.parallelism, v.cloned])).toEqual([
      [6, 2, 'Jdbc', 3, true],
      [7, 3, 'Console', 3, true],
    ]);
    expect(p1.edges).toEqual([{ from: 4, to: 5, table: 'a' }]);
    expect(p2.edges).toEqual([{ from: 6, to: 7, table: 'b' }]);
    expect(p2.vertices[1].inputTables).toEqual(['b']);
    expect(p1.sourceVertexId).toBe(4);
  });

  it('keeps a fan-out without multi-input vertices in one pipeline', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'fake' }),
      transform('Filter', { inputs: ['fake'], output: 'a' }),
      sink('Console', { inputs: ['a'] }),
      sink('Assert', { inputs: ['fake'] }),
    ]);
    const pipelines = generatePipelines(dag);
    expect(pipelines).toHaveLength(1);
    expect(pipelines[0].vertices.map((v) => v.id)).toEqual([1, 2, 3, 4]);
  });

  it('copies everything downstream of a union into each source’s pipeline', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'a' }),
      source('FakeSource', { output: 'b' }),
      transform('Sql', { inputs: ['a', 'b'], output: 'u' }),
      sink('Console', { inputs: ['u'] }),
      sink('Assert', { inputs: ['u'] }),
    ]);
    const pipelines = generatePipelines(dag);
    expect(pipelines.map((p) => p.vertices.map((v) => v.logicalId))).toEqual([
      [1, 3, 4, 5],
      [2, 3, 4, 5],
    ]);
    const ids = pipelines.flatMap((p) => p.vertices.map((v) => v.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.min(...ids)).toBeGreaterThan(5);
    // Each pipeline is a tree: every vertex but the source has exactly one input.
    for (const p of pipelines) {
      for (const v of p.vertices.slice(1)) expect(p.edges.filter((e) => e.to === v.id)).toHaveLength(1);
    }
  });
});
