import type { StoredCheckpointRecord } from '@tideway/cluster';
import type { CheckpointOutcome } from './checkpoint-coordinator.js';

/** Checkpoints a pipeline's history keeps when tideway.checkpoint-history.size is not set. */
export const DEFAULT_CHECKPOINT_HISTORY = 32;

/**
 * The last N checkpoints of one pipeline, newest first, over every attempt. It is written with
 * the job's state (StoredPipeline.checkpointHistory), so a new leader goes on from it.
 */
export class CheckpointHistory {
  private records: StoredCheckpointRecord[] = [];

  constructor(private readonly size: number = DEFAULT_CHECKPOINT_HISTORY) {}

  /** The history recorded by an earlier leader (before any checkpoint of this one). */
  resume(recorded: readonly StoredCheckpointRecord[] | undefined): void {
    this.records = [...(recorded ?? [])].slice(0, this.size);
  }

  /** A checkpoint ended; `stateBytes` is what storage holds of it (0 unless completed). */
  add(outcome: CheckpointOutcome, stateBytes: number): StoredCheckpointRecord {
    const record: StoredCheckpointRecord = {
      checkpointId: outcome.checkpointId,
      kind: outcome.kind,
      triggerTimeMs: outcome.triggeredAt,
      durationMs: Math.max(0, outcome.endedAt - outcome.triggeredAt),
      stateBytes: outcome.state === 'COMPLETED' ? stateBytes : 0,
      alignmentMs: outcome.alignedAt === undefined ? 0 : Math.max(0, outcome.alignedAt - outcome.triggeredAt),
      state: outcome.state,
      failureReason: outcome.reason,
    };
    this.records.unshift(record);
    if (this.records.length > this.size) this.records.length = this.size;
    return record;
  }

  /** Newest first. */
  list(): StoredCheckpointRecord[] {
    return [...this.records];
  }
}
