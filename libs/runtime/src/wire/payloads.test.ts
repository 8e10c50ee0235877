import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { ErrorCode } from '@tideway/common';
import { toServiceError } from '@tideway/rpc';
import type { TaskGroupDescriptor, TaskGroupState } from '../descriptor.js';
import {
  WirePayloadError,
  commitInfosCodec,
  descriptorCodec,
  sourceEventCodec,
  splitCodec,
  taskGroupStateCodec,
  type PayloadCodec,
} from './payloads.js';

const descriptor: TaskGroupDescriptor = {
  jobId: 'job-1',
  jobName: 'j',
  jobMode: 'BATCH',
  pipelineId: 1,
  taskGroupIndex: 0,
  attempt: 2,
  subtaskIndex: 0,
  rowsPerSecond: 0,
  root: {
    vertexId: 1,
    plugin: { type: 'source', name: 'FakeSource', index: 0, file: 'job.conf', line: 1, options: {}, optionLines: {} },
    parallelism: 1,
    inputTables: [],
    children: [],
  },
  peers: { 0: '127.0.0.1:1' },
};
const state: TaskGroupState = {
  readerSplits: { 1: [{ splitId: 's-0', offset: 12n, seen: new Map([['a', 1]]) }] },
  writerStates: { 3: [new Uint8Array([1, 2, 3])] },
};

const codecs: Array<[PayloadCodec<never>, unknown]> = [
  [descriptorCodec as PayloadCodec<never>, descriptor],
  [taskGroupStateCodec as PayloadCodec<never>, state],
  [commitInfosCodec as PayloadCodec<never>, { 3: ['file-1', { txn: 7n }] }],
  [splitCodec as PayloadCodec<never>, { table: 'public.orders', range: [0n, 1000n] }],
  [sourceEventCodec as PayloadCodec<never>, { type: 'snapshot-done', tables: new Set(['a']) }],
];

/** The WirePayloadError decoding throws (fails the test if it decodes). */
function decodeError(codec: PayloadCodec<unknown>, bytes: Uint8Array): WirePayloadError {
  try {
    codec.decode(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(WirePayloadError);
    return err as WirePayloadError;
  }
  throw new Error(`${codec.payload} decoded`);
}

describe('wire payloads', () => {
  it.each(codecs.map(([c, v]) => [c.payload, c, v] as const))('%s: round trip keeps bigint, Map, Set and bytes', (_name, codec, value) => {
    const bytes = codec.encode(value as never);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('TW');
    expect(bytes[3]).toBe(codec.version);
    expect(codec.decode(bytes)).toEqual(value);
  });

  it('encodes nothing as no bytes and reads no bytes as nothing', () => {
    expect(taskGroupStateCodec.encodeOptional(undefined)).toHaveLength(0);
    expect(taskGroupStateCodec.decodeOptional(Buffer.alloc(0))).toBeUndefined();
    expect(taskGroupStateCodec.decodeOptional(taskGroupStateCodec.encodeOptional(state))).toEqual(state);
    expect(commitInfosCodec.decodeOptional(Buffer.alloc(0))).toBeUndefined();
  });

  it('names the payload and gives TW-WIRE-001 when it does not decode', () => {
    const err = decodeError(descriptorCodec, Buffer.from('hello world'));
    expect(err.code).toBe(ErrorCode.WIRE_PAYLOAD);
    expect(err.code).toBe('TW-WIRE-001');
    expect(err.payload).toBe('task group descriptor');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      'A task group descriptor that crossed the wire does not decode: it does not start with the TW header (first bytes 68656c6c).',
    );
  });

  it('crosses gRPC as INVALID_ARGUMENT with its code and sentence', () => {
    const err = decodeError(commitInfosCodec, Buffer.from([0x54, 0x57, 3, 99]));
    const status = toServiceError(err);
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(status.details).toBe(err.message);
    expect(status.metadata?.get('x-tideway-error-code')).toEqual(['TW-WIRE-001']);
  });

  it('refuses an empty payload where one is required', () => {
    expect(decodeError(splitCodec, Buffer.alloc(0)).message).toMatch(/^A split that crossed the wire does not decode: it is empty\.$/);
  });

  it('refuses a bare v8 payload, as versions before the format header sent it', () => {
    const err = decodeError(taskGroupStateCodec, serialize(state));
    expect(err.payload).toBe('task group state');
    expect(err.message).toMatch(/no format version header \(a Tideway from before wire format versions sent it\)/);
  });

  it('refuses another format version, saying both', () => {
    const bytes = commitInfosCodec.encode({ 1: [] });
    bytes[3] = commitInfosCodec.version + 1;
    expect(decodeError(commitInfosCodec, bytes).message).toMatch(
      new RegExp(
        `commit infos .* it is format version ${commitInfosCodec.version + 1}, and this process reads version ${commitInfosCodec.version}`,
      ),
    );
  });

  it('refuses one payload read as another, naming both', () => {
    expect(decodeError(descriptorCodec, taskGroupStateCodec.encode(state)).message).toMatch(
      /^A task group descriptor that crossed the wire does not decode: it holds a task group state\.$/,
    );
    const unknownKind = splitCodec.encode('x');
    unknownKind[2] = 77;
    expect(decodeError(splitCodec, unknownKind).message).toMatch(/payload kind 77, which this version does not know/);
  });

  it('refuses a header followed by bytes v8 cannot read', () => {
    const bytes = sourceEventCodec.encode({ a: 1 }).subarray(0, 6);
    const err = decodeError(sourceEventCodec, bytes);
    expect(err.payload).toBe('source event');
    expect(err.message).toMatch(/its bytes are not a v8 serialization/);
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('refuses a value of the wrong shape, saying what is missing', () => {
    const asDescriptor = (v: unknown): Buffer => (descriptorCodec as PayloadCodec<unknown>).encode(v);
    expect(decodeError(descriptorCodec, asDescriptor([1, 2])).message).toMatch(/wrong shape: it is not an object\.$/);
    expect(decodeError(descriptorCodec, asDescriptor({ ...descriptor, attempt: '2' })).message).toMatch(
      /wrong shape: it has no number attempt\.$/,
    );
    expect(decodeError(descriptorCodec, asDescriptor({ ...descriptor, root: { vertexId: 1 } })).message).toMatch(
      /its root is not a chain node/,
    );
    const asState = (v: unknown): Buffer => (taskGroupStateCodec as PayloadCodec<unknown>).encode(v);
    expect(decodeError(taskGroupStateCodec, asState({ readerSplits: {} })).message).toMatch(/writerStates is not an object/);
    expect(decodeError(taskGroupStateCodec, asState({ readerSplits: { 1: 'x' }, writerStates: {} })).message).toMatch(
      /readerSplits of vertex 1 is not a list/,
    );
    expect(decodeError(commitInfosCodec, (commitInfosCodec as PayloadCodec<unknown>).encode(null)).message).toMatch(
      /the commit infos is not an object/,
    );
  });
});
