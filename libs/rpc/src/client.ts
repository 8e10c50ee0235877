import * as grpc from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';
import { CHANNEL_OPTIONS } from './server.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (err: grpc.ServiceError | null, res: Res) => void,
) => grpc.ClientUnaryCall;

/** The names of a ts-proto grpc-js client's unary methods (their last overload takes a callback). */
export type UnaryMethodName<C> = {
  [K in keyof C]: C[K] extends UnaryMethod<infer _Req, infer _Res> ? K : never;
}[keyof C] &
  string;

/** The request and response types of the unary method `K` of client `C`. */
export type RequestOf<C, K extends keyof C> = C[K] extends UnaryMethod<infer Req, infer _Res> ? Req : never;
export type ResponseOf<C, K extends keyof C> = C[K] extends UnaryMethod<infer _Req, infer Res> ? Res : never;

/** Where to send a call, and what metadata (the leader epoch) goes with it. */
export interface CallContext {
  deadlineMs?: number;
  metadata?: grpc.Metadata;
}

/**
 * Calls the unary method `method` of a ts-proto grpc-js client as a promise. Errors come back as
 * TidewayError (with the peer's code) and `retryable` set when the peer was unreachable. The
 * method goes by name, so it is always called on its client (no method taken off its object).
 */
export function call<C extends grpc.Client, K extends UnaryMethodName<C>>(
  client: C,
  method: K,
  request: RequestOf<C, K>,
  ctx: CallContext = {},
): Promise<ResponseOf<C, K>> {
  const fn = client[method] as UnaryMethod<RequestOf<C, K>, ResponseOf<C, K>>;
  return new Promise((resolve, reject) => {
    const options: Partial<grpc.CallOptions> = {};
    if (ctx.deadlineMs !== undefined) options.deadline = Date.now() + ctx.deadlineMs;
    fn.call(client, request, ctx.metadata ?? new grpc.Metadata(), options, (err, res) => {
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
