import type * as grpc from '@grpc/grpc-js';
import { logger } from '@tideway/common';
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
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => callback(null, res),
        (err: unknown) => {
          log.debug({ err, path: call.getPath() }, 'rpc failed');
          callback(toServiceError(err));
        },
      );
  };
}
