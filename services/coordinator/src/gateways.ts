import type { SlotProfile, TaskGroupLocation } from '@tideway/contracts';
import type { CheckpointKind } from '@tideway/runtime';

/** The coordinator's view of the workers: the WorkerService RPCs it sends (with its epoch). */
export interface WorkerGateway {
  /** DeployTask; with `restoreCheckpointId` the task group waits for restore() (WAITING_RESTORE). */
  deploy(address: string, location: TaskGroupLocation, slot: SlotProfile, descriptor: Buffer, restoreCheckpointId?: number): Promise<void>;
  /** NotifyTaskRestore: the task group's state from the checkpoint it restores from. */
  restore(address: string, location: TaskGroupLocation, checkpointId: number, state: Buffer): Promise<void>;
  trigger(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void>;
  notifyComplete(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void>;
  notifyAborted(address: string, location: TaskGroupLocation, checkpointId: number): Promise<void>;
  cancel(address: string, location: TaskGroupLocation, reason: string): Promise<void>;
}

/** The coordinator's view of the resource manager. */
export interface ResourceGateway {
  apply(jobId: string, owners: string[], tagFilter: Record<string, string>): Promise<SlotProfile[]>;
  release(jobId: string, slotIds: string[]): Promise<void>;
  /**
   * Checks now whether a worker answers; one refusing connections is declared lost. Without
   * it (unit-test fakes), every worker counts as alive.
   */
  probe?(address: string): Promise<{ alive: boolean; lost: boolean; reason: string }>;
}
