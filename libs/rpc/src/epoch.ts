import * as grpc from '@grpc/grpc-js';
import { ErrorCode, TidewayError } from '@tideway/common';

/** Metadata key carrying the leader epoch (fencing token) on every coordinator RPC. */
export const EPOCH_HEADER = 'x-tideway-epoch';
/**
 * Metadata key with the leader's own address: sent beside the epoch on every coordinator RPC,
 * and in the trailers of a follower's UNAVAILABLE answer, so callers find the leader.
 */
export const LEADER_HEADER = 'x-tideway-leader';

export function epochMetadata(epoch: number, leaderAddress?: string): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set(EPOCH_HEADER, String(epoch));
  if (leaderAddress) m.set(LEADER_HEADER, leaderAddress);
  return m;
}

/**
 * Remembers the highest leader epoch seen (and that leader's address) and rejects calls from
 * lower ones: a coordinator that lost its lease (paused, partitioned) can no longer act. Calls
 * without an epoch are accepted (clients, tests); coordinators always send one.
 */
export class EpochGuard {
  private highest = 0;
  private leader = '';
  /** When a call from the current leader was last accepted (ms since epoch; 0: never). */
  lastLeaderCallMs = 0;

  /** Told when a higher epoch (a new leader) is seen. */
  constructor(private readonly onNewLeader?: (epoch: number, address: string) => void) {}

  get current(): number {
    return this.highest;
  }

  /** The address of the leader of the highest epoch seen ('' when it sent none). */
  get leaderAddress(): string {
    return this.leader;
  }

  check(metadata: grpc.Metadata): void {
    const raw = metadata.get(EPOCH_HEADER)[0];
    if (raw === undefined) return;
    // Digits of a safe integer only: '1e300' or 2^64 would be accepted as a huge epoch and
    // fence off every real leader from then on.
    const epoch = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(epoch)) throw new TidewayError(ErrorCode.STALE_EPOCH, `malformed leader epoch '${String(raw)}'`);
    if (epoch < this.highest) {
      throw new TidewayError(
        ErrorCode.STALE_EPOCH,
        `rejected a call from a stale coordinator: epoch ${epoch} is lower than ${this.highest}`,
      );
    }
    const address = metadata.get(LEADER_HEADER)[0];
    const isNew = epoch > this.highest;
    this.highest = epoch;
    if (typeof address === 'string' && address) this.leader = address;
    this.lastLeaderCallMs = Date.now();
    if (isNew) this.onNewLeader?.(epoch, this.leader);
  }
}
