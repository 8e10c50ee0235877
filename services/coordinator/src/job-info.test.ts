import { describe, expect, it } from 'vitest';
import { JobInfo } from '@tideway/contracts';
import type { StoredJob } from '@tideway/cluster';
import { storedJobInfo } from './job-info.js';

/** An ended job as the state store holds it, its DAG recorded as `planJson`. */
function stored(planJson: string): StoredJob {
  return {
    info: {
      jobId: '42',
      jobName: 'two-sources',
      configText: '',
      configFile: 'two.conf',
      format: 'hocon',
      variables: {},
      restoreJobId: '',
      submitTimeMs: 1_000,
      planJson,
    },
    state: {
      status: 'FINISHED',
      jobMode: 'BATCH',
      startTimeMs: 1_010,
      finishTimeMs: 2_000,
      pipelines: [],
      failovers: [],
      epoch: 1,
      updatedAtMs: 2_000,
    },
    checkpoints: {},
  };
}

const vertex = (vertexId: number, type: string, pipelineId: number) => ({
  vertexId,
  type,
  pluginName: type === 'source' ? 'FakeSource' : 'Console',
  tablePaths: [`t${pipelineId}`],
  parallelism: 1,
  pipelineId,
});

describe('the DAG of a job known from the state store', () => {
  it("keeps each vertex's block place in the config", () => {
    const dag = {
      vertices: [
        { ...vertex(1, 'source', 1), configIndex: 0 },
        { ...vertex(2, 'source', 2), configIndex: 1 },
        { ...vertex(3, 'sink', 1), configIndex: 0 },
        { ...vertex(4, 'sink', 2), configIndex: 1 },
      ],
      edges: [],
      envOptions: {},
    };
    const info = storedJobInfo(stored(JSON.stringify(dag)));
    expect(info.vertices.map((v) => [v.vertexId, v.configIndex])).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
      [4, 1],
    ]);
  });

  it('gives a DAG recorded before vertices carried it place 0, and it still goes over the wire', () => {
    const dag = { vertices: [vertex(1, 'source', 1), vertex(2, 'source', 2)], edges: [], envOptions: {} };
    const info = storedJobInfo(stored(JSON.stringify(dag)));
    expect(info.vertices.map((v) => v.configIndex)).toEqual([0, 0]);
    expect(JobInfo.decode(JobInfo.encode(info).finish()).vertices).toEqual(info.vertices);
  });
});
