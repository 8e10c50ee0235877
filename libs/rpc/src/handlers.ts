import type * as grpc from '@grpc/grpc-js';
import { logger, runForJob } from '@tideway/common';
import { toServiceError } from './errors.js';

const log = logger('rpc');

/**
 * Adapts an async function to a grpc-js unary handler: its result is the response, a throw
 * becomes a gRPC error with Tideway's code.
 */
export function unaryHandler<Req, Res>(
  fn: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res> | Res,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    // A request that names a job is work of that job: its log lines carry the job's id.
    runForJob(jobIdOf(call.request), () => Promise.resolve().then(() => fn(call.request, call))).then(
      (res) => callback(null, res),
      (err: unknown) => {
        log.debug({ err, path: call.getPath() }, 'rpc failed');
        callback(toServiceError(err));
      },
    );
  };
}

/** The job a request names (`jobId`, or `location.jobId` of a task group), '' for none. */
function jobIdOf(request: unknown): string {
  const r = request as { jobId?: unknown; location?: { jobId?: unknown } } | null;
  const id = r?.jobId ?? r?.location?.jobId;
  return typeof id === 'string' ? id : '';
}

/**
 * Ends a server stream with an error status: a TidewayError with its code, or an error that
 * carries a gRPC `code`. grpc-js sends the status when the stream emits 'error';
 * `call.destroy(err)` tears the stream down without one, and the caller waits for its deadline
 * (for ever without one).
 */
export function failStream(
  call: grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>,
  err: unknown,
): void {
  const given = err as { code?: unknown; message?: string };
  const status =
    typeof given.code === 'number'
      ? { code: given.code as grpc.status, details: given.message ?? '' }
      : (toServiceError(err) as { code: grpc.status; details: string; metadata: grpc.Metadata });
  call.emit('error', Object.assign(new Error(status.details), status));
}
