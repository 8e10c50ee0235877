import { serialize } from 'node:v8';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { WirePayloadError, descriptorCodec, taskGroupStateCodec, type TaskGroupDescriptor } from '@tideway/runtime';
import { TaskExecutionService } from './task-execution-service.js';

const location = { jobId: 'job-1', pipelineId: 1, taskGroupIndex: 0, attempt: 1 };
const slot = { slotId: 's-1', workerId: 'w-1', workerAddress: '127.0.0.1:1', jobId: 'job-1', cpu: 1, memoryMb: 0, owner: '1/0' };
const descriptor: TaskGroupDescriptor = {
  jobId: 'job-1',
  jobName: 'j',
  jobMode: 'BATCH',
  pipelineId: 1,
  taskGroupIndex: 0,
  attempt: 1,
  subtaskIndex: 0,
  rowsPerSecond: 0,
  root: {
    vertexId: 1,
    plugin: { type: 'source', name: 'FakeSource', index: 0, file: 'job.conf', line: 1, options: {}, optionLines: {} },
    parallelism: 1,
    inputTables: [],
    children: [],
  },
};

describe('TaskExecutionService, given a descriptor of another wire format', () => {
  // No coordinator is called: a deploy that does not decode fails before any report.
  const tasks = new TaskExecutionService(['127.0.0.1:1']);
  afterAll(() => tasks.stop());

  it.each([
    ['a bare v8 descriptor (a version before format headers)', serialize(descriptor), /no format version header/],
    ['a task group state', taskGroupStateCodec.encode({ readerSplits: {}, writerStates: {} }), /it holds a task group state/],
    ['another format version', Buffer.from([...descriptorCodec.encode(descriptor).subarray(0, 3), 9]), /format version 9/],
  ])('refuses %s with TW-WIRE-001 and runs nothing', async (_what, bytes, reason) => {
    const deploy = tasks.deploy(location, slot, bytes, () => new grpc.Metadata());
    await expect(deploy).rejects.toBeInstanceOf(WirePayloadError);
    await expect(deploy).rejects.toMatchObject({ code: 'TW-WIRE-001', payload: 'task group descriptor' });
    await expect(deploy).rejects.toThrow(reason);
    expect(tasks.runningCount()).toBe(0);
    expect(tasks.get(location)).toBeUndefined();
  });
});
