import { TidewayError, ErrorCode } from '@tideway/common';

/** gRPC's UNAVAILABLE and DEADLINE_EXCEEDED: the peer is not there, or does not answer. */
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;

/** The cause in words, from grpc-js's "No connection established. Last error: ... ECONNREFUSED ...". */
function causeOf(message: string, grpcCode: number): string {
  if (grpcCode === DEADLINE_EXCEEDED) return 'it did not answer in time';
  if (/ECONNREFUSED/.test(message)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN|Name resolution failed/i.test(message)) return 'no such host';
  if (/EHOSTUNREACH|ENETUNREACH/.test(message)) return 'no route to the host';
  if (/ETIMEDOUT/.test(message)) return 'the connection timed out';
  return message.replace(/\s*Resolution note:\s*$/, '').trim() || 'unavailable';
}

/**
 * One sentence for a CLI command that found no coordinator at `address`, with how to start one;
 * undefined when `err` is something else (a job that does not exist, a bad config, ...).
 */
export function unreachableCoordinator(addresses: string | readonly string[], err: unknown): TidewayError | undefined {
  const list = typeof addresses === 'string' ? [addresses] : addresses;
  const where = list.length === 1 ? `the coordinator at ${list[0]}` : `any coordinator at ${list.join(', ')}`;
  const grpcCode = err instanceof TidewayError ? err.details?.grpcCode : undefined;
  if (grpcCode !== UNAVAILABLE && grpcCode !== DEADLINE_EXCEEDED) return undefined;
  return new TidewayError(
    ErrorCode.UNREACHABLE,
    `cannot reach ${where}: ${causeOf((err as Error).message, grpcCode)}; start one with 'tideway cluster start --role all' (docs/cluster.md), or point --address or TIDEWAY_ADDRESS at a running one`,
    { retryable: true, cause: err },
  );
}
