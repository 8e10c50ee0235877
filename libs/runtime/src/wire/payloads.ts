import { deserialize, serialize } from 'node:v8';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { CommitInfos, TaskGroupDescriptor, TaskGroupState } from '../descriptor.js';

/**
 * The payloads that cross the wire as opaque `bytes` inside proto messages, with their typed
 * encode/decode. Each is a 4-byte header followed by the value serialized with node:v8
 * (structured clone: bigint, Map and Uint8Array survive, as connectors' splits and states need):
 *
 * | offset | size | content                                                              |
 * |--------|------|----------------------------------------------------------------------|
 * | 0      | 2    | magic `TW`                                                           |
 * | 2      | 1    | payload kind: 1 descriptor, 2 state, 3 commit infos, 4 split, 5 event |
 * | 3      | 1    | that payload's format version                                        |
 * | 4      | n    | v8 serialization of the value                                        |
 *
 * A payload that does not decode (another format version, a header that is not there, bytes
 * v8 cannot read, a value of the wrong shape) throws WirePayloadError (TW-WIRE-001) naming the
 * payload, so that two versions meeting during a rolling upgrade fail with one clear sentence.
 * docs/wire-format.md keeps the changelog of these versions and of the proto contracts.
 */

const MAGIC_0 = 0x54; // 'T'
const MAGIC_1 = 0x57; // 'W'
const HEADER_SIZE = 4;
/** The first byte of a bare v8 serialization: what versions before these headers sent. */
const V8_VERSION_TAG = 0xff;

/** A payload's name, as errors and logs give it. */
export type PayloadName = 'task group descriptor' | 'task group state' | 'commit infos' | 'split' | 'source event';

const NAME_OF_KIND: Record<number, PayloadName> = {
  1: 'task group descriptor',
  2: 'task group state',
  3: 'commit infos',
  4: 'split',
  5: 'source event',
};

/** A wire payload that does not decode; `payload` names which one. */
export class WirePayloadError extends TidewayError {
  override readonly name = 'WirePayloadError';
  readonly payload: PayloadName;
  constructor(payload: PayloadName, reason: string, cause?: unknown) {
    super(ErrorCode.WIRE_PAYLOAD, `A ${payload} that crossed the wire does not decode: ${reason}.`, {
      details: { payload },
      cause,
    });
    this.payload = payload;
  }
}

/** Typed encode/decode of one payload. */
export interface PayloadCodec<T> {
  readonly payload: PayloadName;
  /** The format version this process writes, and the only one it reads. */
  readonly version: number;
  encode(value: T): Buffer;
  /** Throws WirePayloadError when `bytes` is not this payload in this version and shape. */
  decode(bytes: Uint8Array): T;
  /** Nothing (a failed checkpoint has no state) as no bytes. */
  encodeOptional(value: T | undefined): Buffer;
  /** No bytes as nothing; anything else as decode() reads it. */
  decodeOptional(bytes: Uint8Array): T | undefined;
}

/** Says what is wrong with a decoded value's shape, or undefined when it fits. */
type ShapeCheck = (value: unknown) => string | undefined;

function payloadCodec<T>(kind: number, version: number, shapeProblem: ShapeCheck): PayloadCodec<T> {
  const payload = NAME_OF_KIND[kind];
  const fail = (reason: string, cause?: unknown): never => {
    throw new WirePayloadError(payload, reason, cause);
  };
  const codec: PayloadCodec<T> = {
    payload,
    version,
    encode(value: T): Buffer {
      const body = serialize(value);
      const out = Buffer.allocUnsafe(HEADER_SIZE + body.length);
      out[0] = MAGIC_0;
      out[1] = MAGIC_1;
      out[2] = kind;
      out[3] = version;
      body.copy(out, HEADER_SIZE);
      return out;
    },
    decode(bytes: Uint8Array): T {
      if (bytes.length === 0) fail('it is empty');
      if (bytes[0] === V8_VERSION_TAG) fail('it has no format version header (a Tideway from before wire format versions sent it)');
      if (bytes.length < HEADER_SIZE || bytes[0] !== MAGIC_0 || bytes[1] !== MAGIC_1) {
        fail(`it does not start with the TW header (first bytes ${Buffer.from(bytes.subarray(0, HEADER_SIZE)).toString('hex')})`);
      }
      if (bytes[2] !== kind) {
        const other = NAME_OF_KIND[bytes[2]];
        fail(other ? `it holds a ${other}` : `it holds payload kind ${bytes[2]}, which this version does not know`);
      }
      if (bytes[3] !== version) {
        fail(
          `it is format version ${bytes[3]}, and this process reads version ${version} (versions of Tideway that differ here cannot work together)`,
        );
      }
      let value: unknown;
      try {
        value = deserialize(bytes.subarray(HEADER_SIZE));
      } catch (err) {
        fail(`its bytes are not a v8 serialization (${(err as Error).message})`, err);
      }
      const problem = shapeProblem(value);
      if (problem !== undefined) fail(`it has the wrong shape: ${problem}`);
      return value as T;
    },
    encodeOptional(value: T | undefined): Buffer {
      return value === undefined ? Buffer.alloc(0) : codec.encode(value);
    },
    decodeOptional(bytes: Uint8Array): T | undefined {
      return bytes.length === 0 ? undefined : codec.decode(bytes);
    },
  };
  return codec;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first of `fields` (name: typeof) that `v` lacks, or undefined. */
function missingField(v: Record<string, unknown>, fields: Record<string, 'string' | 'number' | 'object'>): string | undefined {
  for (const [name, type] of Object.entries(fields)) {
    const value = v[name];
    if (typeof value !== type || value === null) return `it has no ${type} ${name}`;
  }
  return undefined;
}

/** Record<number, unknown[]>: readerSplits, writerStates, commit infos. */
function arraysByVertex(v: unknown, what: string): string | undefined {
  if (!isRecord(v)) return `${what} is not an object`;
  for (const [vertex, list] of Object.entries(v)) if (!Array.isArray(list)) return `${what} of vertex ${vertex} is not a list`;
  return undefined;
}

/** DeployTaskRequest.descriptor: what a worker needs to run one task group. */
export const descriptorCodec = payloadCodec<TaskGroupDescriptor>(1, 1, (v) => {
  if (!isRecord(v)) return 'it is not an object';
  const missing = missingField(v, {
    jobId: 'string',
    jobName: 'string',
    jobMode: 'string',
    pipelineId: 'number',
    taskGroupIndex: 'number',
    attempt: 'number',
    subtaskIndex: 'number',
    rowsPerSecond: 'number',
    root: 'object',
  });
  if (missing) return missing;
  const root = v.root as Record<string, unknown>;
  if (typeof root.vertexId !== 'number' || !isRecord(root.plugin) || !Array.isArray(root.children)) {
    return 'its root is not a chain node (vertexId, plugin, children)';
  }
  return undefined;
});

/** AcknowledgeCheckpointRequest.state and NotifyTaskRestoreRequest.state: a task group's snapshot. */
export const taskGroupStateCodec = payloadCodec<TaskGroupState>(2, 1, (v) => {
  if (!isRecord(v)) return 'it is not an object';
  return arraysByVertex(v.readerSplits, 'readerSplits') ?? arraysByVertex(v.writerStates, 'writerStates');
});

/** AcknowledgeCheckpointRequest.commit_infos: commit infos prepared at a checkpoint, by sink vertex. */
export const commitInfosCodec = payloadCodec<CommitInfos>(3, 1, (v) => arraysByVertex(v, 'the commit infos'));

/** RequestSplitsResponse.splits: one source split each, of the connector's own shape. */
export const splitCodec = payloadCodec<unknown>(4, 1, () => undefined);

/** RequestSplitsRequest.events: one reader event for its enumerator each, of the connector's own shape. */
export const sourceEventCodec = payloadCodec<unknown>(5, 1, () => undefined);
