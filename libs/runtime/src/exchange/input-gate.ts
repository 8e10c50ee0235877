import type { CheckpointKind } from '../protocol.js';

/**
 * Batches a new channel may send before the receiving task group has processed any: what each
 * input channel of a task group holds (a credit comes back for each batch processed).
 */
export const INITIAL_CREDITS = 16;

/** A batch waiting behind a barrier, with the channel it came from. */
export interface BufferedBatch {
  channel: number;
  rows: Uint8Array;
}

/**
 * The receiving side of a shuffle in one task group: one channel per upstream task group.
 * Barrier alignment (Chandy-Lamport): once a channel has delivered the barrier of a checkpoint,
 * its later batches are held back until every channel has delivered it; then the task group
 * snapshots, and the held batches are released in arrival order.
 */
export class InputGate {
  private readonly arrived = new Set<number>();
  private barrier?: { checkpointId: number; kind: CheckpointKind };
  private held: BufferedBatch[] = [];
  private readonly ended = new Set<number>();

  constructor(private readonly channels: readonly number[]) {}

  /** Returns true when the batch may be processed now; false when it was held back. */
  offer(channel: number, rows: Uint8Array): boolean {
    if (!this.arrived.has(channel)) return true;
    this.held.push({ channel, rows });
    return false;
  }

  /** Records a channel's barrier; returns the checkpoint once every channel has delivered it. */
  onBarrier(channel: number, checkpointId: number, kind: CheckpointKind): { checkpointId: number; kind: CheckpointKind } | undefined {
    if (this.barrier && this.barrier.checkpointId !== checkpointId) {
      throw new Error(`barrier ${checkpointId} on channel ${channel} while aligning checkpoint ${this.barrier.checkpointId}`);
    }
    this.barrier ??= { checkpointId, kind };
    this.arrived.add(channel);
    return this.arrived.size === this.channels.length ? this.barrier : undefined;
  }

  /** After the snapshot: every channel flows again; returns what was held back, in order. */
  release(): BufferedBatch[] {
    this.arrived.clear();
    this.barrier = undefined;
    const held = this.held;
    this.held = [];
    return held;
  }

  /** Records a channel's end of data; true once every channel has ended. */
  onEnd(channel: number): boolean {
    this.ended.add(channel);
    return this.ended.size === this.channels.length;
  }
}
