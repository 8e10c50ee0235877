import { serialize } from 'node:v8';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { WirePayloadError, descriptorCodec, taskGroupStateCodec } from '@tideway/runtime';
import { TaskExecutionService } from './task-execution-service.js';

const location = { jobId: 'job-1', pipelineId: 1, taskGroupIndex: 0, attempt: 1 };
const slot = { slotId: 's-1', workerId: 'w-1', workerAddress: '127.0.0.1:1', jobId: 'job-1', cpu: 1, memoryMb: 0, owner: '1/0' };

describe('TaskExecutionService, given a descriptor of another wire format', () => {
  // No coordinator is called: a deploy that does not decode fails before any report.
  const tasks = new TaskExecutionService(['127.0.0.1:1']);
  afterAll(() => tasks.stop());

  it.each([
    ['a bare v8 descriptor (a version before format headers)', serialize({ jobId: 'job-1', pipelineId: 1 }), /no format version header/],
    ['a task group state', taskGroupStateCodec.encode({ readerSplits: {}, writerStates: {} }), /it holds a task group state/],
    [
      'another format version',
      Buffer.from([0x54, 0x57, 1, descriptorCodec.version + 1]),
      new RegExp(`format version ${descriptorCodec.version + 1},`),
    ],
  ])('refuses %s with TW-WIRE-001 and runs nothing', async (_what, bytes, reason) => {
    const deploy = tasks.deploy(location, slot, bytes, () => new grpc.Metadata());
    await expect(deploy).rejects.toBeInstanceOf(WirePayloadError);
    await expect(deploy).rejects.toMatchObject({ code: 'TW-WIRE-001', payload: 'task group descriptor' });
    await expect(deploy).rejects.toThrow(reason);
    expect(tasks.runningCount()).toBe(0);
    expect(tasks.get(location)).toBeUndefined();
  });
});
