import type { CheckpointPointer, StoredPipeline } from '@tideway/cluster';
import type { SlotProfile } from '@tideway/contracts';
import type { CallLimits } from '@tideway/runtime';
import type { CheckpointSettings } from './checkpoint-coordinator.js';
import type { RetrySettings } from './failover-policy.js';

export interface PipelineSettings extends RetrySettings {
  checkpoint: CheckpointSettings;
  /** Time limits of plugin packages' calls in the pipeline's plugin thread (tideway.plugin-call-timeout); absent: none. */
  pluginCallTimeout?: CallLimits;
}

/** What a pipeline records in the coordinators' state store, through its job. */
export interface PipelineRecords {
  /** Moves the latest-checkpoint pointer (fenced: throws, aborting the checkpoint, unless leading). */
  checkpointCompleted(pipelineId: number, pointer: CheckpointPointer): Promise<void>;
  /** The pointer of the pipeline's latest completed checkpoint, if one is recorded. */
  latestPointer(pipelineId: number): CheckpointPointer | undefined;
  /** Writes the job's state now (resolves once stored). */
  persist(): Promise<void>;
  /**
   * Throws unless this coordinator still leads (checked against the store): called before
   * effects that are not RPCs (commits on the coordinator, save modes, dropping uncommitted work).
   */
  fence(): Promise<void>;
}

/** How a new leader resumes a pipeline that an earlier leader was running. */
export interface PipelineResume {
  stored: StoredPipeline;
  /** Where each task group restarts: the slots it held when the worker still holds them. */
  slots: Array<SlotProfile | undefined>;
}
