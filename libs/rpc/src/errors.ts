import * as grpc from '@grpc/grpc-js';
import { ErrorCode, TidewayError, serializeError } from '@tideway/common';
import { LEADER_HEADER } from './epoch.js';

const CODE_HEADER = 'x-tideway-error-code';
const RETRYABLE_HEADER = 'x-tideway-retryable';

function statusFor(code: string): grpc.status {
  switch (code) {
    case ErrorCode.NOT_FOUND:
      return grpc.status.NOT_FOUND;
    case ErrorCode.NO_ENOUGH_RESOURCE:
      return grpc.status.RESOURCE_EXHAUSTED;
    case ErrorCode.STALE_EPOCH:
    case ErrorCode.ILLEGAL_TRANSITION:
      return grpc.status.FAILED_PRECONDITION;
    case ErrorCode.INTERNAL:
      return grpc.status.INTERNAL;
    case ErrorCode.NOT_LEADER:
      return grpc.status.UNAVAILABLE;
    case ErrorCode.PERMISSION_DENIED:
      return grpc.status.PERMISSION_DENIED;
    case ErrorCode.BAD_REQUEST:
    case ErrorCode.WIRE_PAYLOAD:
      return grpc.status.INVALID_ARGUMENT;
    default:
      return code.startsWith('TW-CONFIG') || code.startsWith('TW-SQL') || code.startsWith('TW-SCHEMA')
        ? grpc.status.INVALID_ARGUMENT
        : grpc.status.UNKNOWN;
  }
}

/** Turns anything thrown in a handler into a gRPC error carrying Tideway's code. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const e = serializeError(err);
  const metadata = new grpc.Metadata();
  metadata.set(CODE_HEADER, e.code);
  metadata.set(RETRYABLE_HEADER, String(e.retryable));
  const leader = leaderOf(err);
  if (leader) metadata.set(LEADER_HEADER, leader);
  return { code: statusFor(e.code), details: e.message, metadata };
}

/** Turns a gRPC client error back into a TidewayError (keeping the code when the peer sent one). */
export function fromServiceError(err: unknown): TidewayError {
  if (err instanceof TidewayError) return err;
  const se = err as grpc.ServiceError;
  if (se && typeof se.code === 'number' && se.metadata) {
    const code = se.metadata.get(CODE_HEADER)[0];
    const retryable = se.metadata.get(RETRYABLE_HEADER)[0] === 'true';
    const leader = se.metadata.get(LEADER_HEADER)[0];
    if (typeof code === 'string') {
      return new TidewayError(code as ErrorCode, se.details, {
        retryable,
        details: typeof leader === 'string' && leader ? { leaderAddress: leader } : undefined,
      });
    }
    const unreachable = se.code === grpc.status.UNAVAILABLE || se.code === grpc.status.DEADLINE_EXCEEDED;
    return new TidewayError(ErrorCode.INTERNAL, se.details || se.message, { retryable: unreachable, details: { grpcCode: se.code } });
  }
  return new TidewayError(ErrorCode.INTERNAL, err instanceof Error ? err.message : String(err));
}

/** Whether a client error means the peer could not be reached (retry elsewhere or later). */
export function isUnavailable(err: unknown): boolean {
  const code = (err as grpc.ServiceError)?.code;
  return code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED;
}

/**
 * A call only the leader serves reached a follower: UNAVAILABLE on the wire, with the leader's
 * address (when one is known) in the trailers, so that callers go there.
 */
export class NotLeaderError extends TidewayError {
  override readonly name = 'NotLeaderError';

  constructor(
    readonly self: string,
    readonly leaderAddress: string | undefined,
  ) {
    super(
      ErrorCode.NOT_LEADER,
      leaderAddress
        ? `the coordinator at ${self} is a follower; the leader is ${leaderAddress}`
        : `the coordinator at ${self} is a follower and no leader is elected yet`,
      { retryable: true, details: leaderAddress ? { leaderAddress } : undefined },
    );
  }
}

/** The leader address a NotLeader error carries (sent or received), if any. */
export function leaderOf(err: unknown): string | undefined {
  const d = (err as TidewayError | undefined)?.details as { leaderAddress?: unknown } | undefined;
  return typeof d?.leaderAddress === 'string' && d.leaderAddress ? d.leaderAddress : undefined;
}

/**
 * A message field the request must carry (protobuf leaves a missing message field undefined):
 * its value, or INVALID_ARGUMENT naming the field.
 */
export function required<T>(value: T | undefined | null, field: string): T {
  if (value === undefined || value === null) throw new TidewayError(ErrorCode.BAD_REQUEST, `the request has no ${field}`);
  return value;
}
