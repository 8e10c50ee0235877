import * as grpc from '@grpc/grpc-js';
import { ErrorCode, TidewayError } from '@tideway/common';

/** Metadata key carrying the leader epoch (fencing token) on every coordinator RPC. */
export const EPOCH_HEADER = 'x-tideway-epoch';

export function epochMetadata(epoch: number): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set(EPOCH_HEADER, String(epoch));
  return m;
}

/**
 * Remembers the highest leader epoch seen and rejects calls from lower ones: a coordinator
 * that lost its lease (paused, partitioned) can no longer act. Calls without an epoch are
 * accepted (clients, tests); coordinators always send one.
 */
export class EpochGuard {
  private highest = 0;

  get current(): number {
    return this.highest;
  }

  check(metadata: grpc.Metadata): void {
    const raw = metadata.get(EPOCH_HEADER)[0];
    if (raw === undefined) return;
    const epoch = Number(raw);
    if (!Number.isFinite(epoch)) throw new TidewayError(ErrorCode.STALE_EPOCH, `malformed leader epoch '${String(raw)}'`);
    if (epoch < this.highest) {
      throw new TidewayError(ErrorCode.STALE_EPOCH, `rejected a call from a stale coordinator: epoch ${epoch} is lower than ${this.highest}`);
    }
    this.highest = epoch;
  }
}
