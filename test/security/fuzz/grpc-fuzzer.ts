import * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceService,
  DataExchangeService,
  JobServiceService,
  ResourceManagerServiceService,
  WorkerServiceService,
} from '@tideway/contracts';
import { invalidWireMessage, mutateMessage, randomWireMessage } from './wire-messages.js';
import type { SeededRandom } from './seeded-random.js';

/** One RPC of a Tideway service, as ts-proto describes it. */
export interface RpcMethod {
  service: string;
  name: string;
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  serialize: (value: any) => Buffer;
  deserialize: (bytes: Buffer) => any;
}

function methodsOf(service: string, definition: Record<string, any>): RpcMethod[] {
  return Object.entries(definition).map(([name, d]) => ({
    service,
    name,
    path: d.path,
    requestStream: d.requestStream,
    responseStream: d.responseStream,
    serialize: d.requestSerialize,
    deserialize: d.requestDeserialize,
  }));
}

/** Where each service is served: JobService and CoordinatorService on coordinators, and so on. */
export type ServiceRole = 'coordinator' | 'resource-manager' | 'worker';

export const FUZZED_SERVICES: ReadonlyArray<{ role: ServiceRole; methods: RpcMethod[] }> = [
  { role: 'coordinator', methods: methodsOf('JobService', JobServiceService) },
  { role: 'coordinator', methods: methodsOf('CoordinatorService', CoordinatorServiceService) },
  { role: 'resource-manager', methods: methodsOf('ResourceManagerService', ResourceManagerServiceService) },
  { role: 'worker', methods: methodsOf('WorkerService', WorkerServiceService) },
  { role: 'worker', methods: methodsOf('DataExchange', DataExchangeService) },
];

/** JobService methods that change something (refused to a viewer). */
export const MUTATING_JOB_METHODS = new Set(['submitJob', 'cancelJob', 'savepointJob']);

/** What a fuzzed call sent, for the report of a failure. */
export interface FuzzCall {
  method: RpcMethod;
  kind: 'raw' | 'invalid' | 'wire' | 'mutated';
  bytes: Buffer[];
  metadata: Record<string, string>;
  /** The job id of the running job was put into the request (only with a viewer token or none). */
  usesKnownJob: boolean;
}

export interface FuzzAnswer {
  /** gRPC status code; -1 when no status came before the test's own deadline. */
  code: number;
  details: string;
  /** Messages the server answered with before its status. */
  responses: number;
}

const identity = (b: Buffer) => b;

/** Builds one malformed call of `method`; `tokens` are bearer tokens to try (and none). */
export function fuzzCall(rng: SeededRandom, method: RpcMethod, tokens: { viewer: string; operator: string }, knownJobId: string): FuzzCall {
  const kind = rng.pick(['raw', 'invalid', 'wire', 'mutated'] as const);
  const viewerOrNone = rng.chance(0.5) ? tokens.viewer : '';
  let usesKnownJob = false;
  const one = (): Buffer => {
    if (kind === 'raw') return rng.bytes(rng.int(rng.chance(0.05) ? 100_000 : 300));
    if (kind === 'invalid') return invalidWireMessage(rng);
    if (kind === 'wire') return randomWireMessage(rng);
    // The running job's id goes only into JobService calls, and only where the token may not change it.
    const mayUseKnown = method.service === 'JobService';
    const message = mutateMessage(method.deserialize(Buffer.alloc(0)), rng, mayUseKnown ? knownJobId : undefined);
    if (Object.values(message).includes(knownJobId)) usesKnownJob = true;
    try {
      return method.serialize(message);
    } catch {
      // A value the encoder itself refuses (a number past int64): send other nonsense instead.
      return randomWireMessage(rng);
    }
  };
  const bytes = method.requestStream ? Array.from({ length: rng.int(5) }, one) : [one()];
  const metadata: Record<string, string> = {};
  if (method.service === 'JobService') {
    const token = usesKnownJob ? viewerOrNone : rng.pick([tokens.viewer, tokens.operator, '', 'tw_not-a-token']);
    if (token) metadata.authorization = rng.chance(0.9) ? `Bearer ${token}` : rng.pick([token, 'Bearer', `Basic ${token}`]);
  } else if (rng.chance(0.3)) {
    // Leader epochs that are not numbers, or past what a number holds exactly.
    metadata['x-tideway-epoch'] = rng.pick(['abc', '-1', '1e300', 'Infinity', '99999999999999999999', '0x10', '', ' 1']);
  }
  return { method, kind, bytes, metadata, usesKnownJob };
}

/**
 * Sends a call with Buffers in and out (no serialization by grpc-js), a deadline of
 * `deadlineMs`, and resolves with the status, or code -1 if none came `deadlineMs` + 5 s later.
 */
export function sendCall(client: grpc.Client, call: FuzzCall, deadlineMs: number): Promise<FuzzAnswer> {
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(call.metadata)) metadata.set(k, v);
  const options = { deadline: Date.now() + deadlineMs };
  const m = call.method;
  return new Promise((resolve) => {
    let responses = 0;
    let done = false;
    const finish = (code: number, details: string) => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      resolve({ code, details, responses });
    };
    const guard = setTimeout(() => finish(-1, 'no status arrived'), deadlineMs + 5000);
    if (!m.requestStream && !m.responseStream) {
      client.makeUnaryRequest(m.path, identity, identity, call.bytes[0]!, metadata, options, (err) => {
        if (err) finish(err.code, err.details);
        else finish(grpc.status.OK, '');
      });
      return;
    }
    const stream: grpc.ClientReadableStream<Buffer> | grpc.ClientDuplexStream<Buffer, Buffer> = m.requestStream
      ? client.makeBidiStreamRequest(m.path, identity, identity, metadata, options)
      : client.makeServerStreamRequest(m.path, identity, identity, call.bytes[0]!, metadata, options);
    stream.on('data', () => {
      responses++;
    });
    stream.on('error', () => {});
    stream.on('status', (s: grpc.StatusObject) => finish(s.code, s.details));
    if (m.requestStream) {
      const duplex = stream as grpc.ClientDuplexStream<Buffer, Buffer>;
      for (const b of call.bytes) duplex.write(b);
      duplex.end();
    }
  });
}
