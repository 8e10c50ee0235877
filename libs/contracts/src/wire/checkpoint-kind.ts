import { CheckpointType } from '../gen/tideway/v1/common.pb.js';

/**
 * Why a checkpoint was taken (SeaTunnel's CheckpointType), and the one place it meets the wire.
 * The coordinator's checkpoint coordinator, the worker's RPCs (TriggerCheckpoint,
 * NotifyCheckpointComplete), the shuffle's Barrier and stored checkpoints all use these names;
 * the proto enum `CheckpointType` is only read and written here.
 */
export const CheckpointKind = {
  /** Periodic checkpoint (checkpoint.interval). */
  CHECKPOINT: 'CHECKPOINT',
  /** Taken on request (stop-with-savepoint); a job may be restored from it with -r. */
  SAVEPOINT: 'SAVEPOINT',
  /** The final checkpoint of a finished bounded pipeline, so its sinks commit. */
  COMPLETED_POINT: 'COMPLETED_POINT',
} as const;
export type CheckpointKind = (typeof CheckpointKind)[keyof typeof CheckpointKind];

const TO_WIRE: Record<CheckpointKind, CheckpointType> = {
  CHECKPOINT: CheckpointType.CHECKPOINT,
  SAVEPOINT: CheckpointType.SAVEPOINT,
  COMPLETED_POINT: CheckpointType.COMPLETED_POINT,
};

/** The proto value of a checkpoint kind. */
export function checkpointKindToWire(kind: CheckpointKind): CheckpointType {
  return TO_WIRE[kind];
}

/**
 * The checkpoint kind of a proto value. Unset (0) and values this version does not know read as
 * a periodic CHECKPOINT: the task group snapshots and commits, and does not end on it.
 */
export function checkpointKindFromWire(type: CheckpointType): CheckpointKind {
  return type === CheckpointType.SAVEPOINT ? 'SAVEPOINT' : type === CheckpointType.COMPLETED_POINT ? 'COMPLETED_POINT' : 'CHECKPOINT';
}
