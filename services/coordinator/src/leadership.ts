import type * as grpc from '@grpc/grpc-js';
import { ErrorCode, logger, type TidewayError } from '@tideway/common';
import { NotLeaderError, epochMetadata } from '@tideway/rpc';

const log = logger('coordinator');

/**
 * The fence every outgoing effect of a coordinator passes: RPCs to workers and the resource
 * manager, state-store writes, sink commits. While this coordinator leads, calls carry its
 * epoch; the moment it stops leading (lease lost, or an answer shows a higher epoch) every
 * further call is refused here, before it leaves the process.
 */
export class Leadership {
  private epochValue = 0;
  private isLeading = false;
  /** Leader address as last read from the state store (for followers' redirects). */
  knownLeader = '';
  /**
   * The highest epoch a worker or the resource manager refused us with: a state Redis that
   * lost its data may hand out an epoch they have already seen, so the next claim must pass it.
   */
  highestSeenEpoch = 0;

  constructor(
    /** This coordinator's address (set once it listens). */
    public address: string,
    /** Whether the lease is still held by wall-clock (the election's view). */
    private readonly leaseHeld: () => boolean,
    /** Called once when this coordinator must step down. */
    private readonly onStale: (reason: string) => void,
  ) {}

  get epoch(): number {
    return this.epochValue;
  }

  get leading(): boolean {
    return this.isLeading && this.leaseHeld();
  }

  begin(epoch: number): void {
    this.epochValue = epoch;
    this.isLeading = true;
    this.knownLeader = this.address;
  }

  end(): void {
    this.isLeading = false;
    if (this.knownLeader === this.address) this.knownLeader = '';
  }

  /** Throws NotLeaderError unless this coordinator leads right now. */
  check(): void {
    if (this.leading) return;
    if (this.isLeading) {
      // The lease ran out by the clock before any timer noticed (a paused process).
      this.stale('the leader lease expired');
    }
    throw new NotLeaderError(this.address, this.knownLeader && this.knownLeader !== this.address ? this.knownLeader : undefined);
  }

  /** The metadata of an outgoing RPC (after check()). */
  metadata(): grpc.Metadata {
    this.check();
    return epochMetadata(this.epochValue, this.address);
  }

  /** An answer (RPC or store) showed a higher epoch: step down. Returns the error for rethrow. */
  noteError<E>(err: E): E {
    if ((err as TidewayError | undefined)?.code !== ErrorCode.STALE_EPOCH) return err;
    // EpochGuard's refusal names the epoch it has seen ("... is lower than N").
    const seen = /lower than (\d+)/.exec((err as Error).message);
    if (seen) this.highestSeenEpoch = Math.max(this.highestSeenEpoch, Number(seen[1]));
    if (this.isLeading) this.stale((err as Error).message);
    return err;
  }

  private stale(reason: string): void {
    if (!this.isLeading) return;
    log.warn({ epoch: this.epochValue, reason }, 'stepping down: this coordinator no longer leads');
    this.isLeading = false;
    this.onStale(reason);
  }

  /** Runs a fenced effect: refused unless leading; a stale-epoch answer steps down. */
  async run<T>(fn: (epoch: number) => Promise<T>): Promise<T> {
    this.check();
    try {
      return await fn(this.epochValue);
    } catch (err) {
      throw this.noteError(err);
    }
  }
}
