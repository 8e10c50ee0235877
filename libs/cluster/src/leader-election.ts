import type { StateStore } from './state-store.js';
import { detach } from '@tideway/common';

/** What a coordinator is told by its election. */
export interface LeadershipHandlers {
  /**
   * This process holds the lease and claimed `epoch` (already recorded in the state store as
   * the leader's). It stays leader until `onLost` is called.
   */
  onElected(epoch: number): void | Promise<void>;
  /**
   * The lease is gone (it could not be extended before it expired, a node majority was lost, or
   * stop() was called while leading): stop acting at once. Candidacy goes on by itself.
   */
  onLost(reason: string): void;
}

/**
 * Leader election among coordinators. Timing gives liveness only: a leader that was paused
 * past its lease may still believe it leads for a moment, and the fencing epoch (checked by the
 * state store and by every worker and the resource manager) is what keeps it from acting.
 */
export interface LeaderElection {
  /** Starts contending; handlers are called as leadership comes and goes. */
  start(handlers: LeadershipHandlers): void;
  /**
   * Stops contending and releases the lease if held (calls onLost when it was leading). A
   * stopped election does not start again: contend again with a new one.
   */
  stop(): Promise<void>;
  /**
   * Hands the leadership over (a rolling upgrade): when leading, stops holding the lease, calls
   * onLost, releases the lease (so a follower takes it at its next try, without waiting for it
   * to expire) and resolves; candidacy resumes after `pauseMs`. Absent: the election cannot
   * hand over (a sole coordinator).
   */
  resign?(pauseMs: number): Promise<void>;
  /** Whether this process believes it holds the lease right now. */
  readonly leading: boolean;
  /** For messages: where the lease lives. */
  readonly description: string;
}

/**
 * The election of a single coordinator (local mode, or a cluster without HA): it is leader at
 * once, with the next epoch from its store, and never loses it.
 */
export class SoleLeaderElection implements LeaderElection {
  readonly description = 'sole coordinator';
  private isLeading = false;
  private handlers?: LeadershipHandlers;

  constructor(
    private readonly store: StateStore,
    private readonly address: string,
  ) {}

  get leading(): boolean {
    return this.isLeading;
  }

  start(handlers: LeadershipHandlers): void {
    this.handlers = handlers;
    detach(
      this.store.claimEpoch(this.address).then(async (epoch) => {
        this.isLeading = true;
        await handlers.onElected(epoch);
      }),
      'claiming the leadership',
    );
  }

  async stop(): Promise<void> {
    if (this.isLeading) {
      this.isLeading = false;
      this.handlers?.onLost('stopped');
    }
  }
}
