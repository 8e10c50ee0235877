import * as grpc from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';
import { CHANNEL_OPTIONS } from './server.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (err: grpc.ServiceError | null, res: Res) => void,
) => grpc.ClientUnaryCall;

/** Where to send a call, and what metadata (the leader epoch) goes with it. */
export interface CallContext {
  deadlineMs?: number;
  metadata?: grpc.Metadata;
}

/**
 * Calls a unary method of a ts-proto grpc-js client as a promise. Errors come back as
 * TidewayError (with the peer's code) and `retryable` set when the peer was unreachable.
 */
export function call<Req, Res>(method: UnaryMethod<Req, Res>, client: grpc.Client, request: Req, ctx: CallContext = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const options: Partial<grpc.CallOptions> = {};
    if (ctx.deadlineMs !== undefined) options.deadline = Date.now() + ctx.deadlineMs;
    method.call(client, request, ctx.metadata ?? new grpc.Metadata(), options, (err, res) => {
      if (err) reject(fromServiceError(err));
      else resolve(res);
    });
  });
}

/**
 * Channel options for every Tideway client. Reconnects are tried at least every two seconds:
 * gRPC's default backoff grows to two minutes, during which a channel to a peer that restarted
 * on the same address fails every call at once ("No connection established").
 */
export const clientOptions: grpc.ClientOptions = {
  ...CHANNEL_OPTIONS,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2000,
};

export const insecure = grpc.credentials.createInsecure();
