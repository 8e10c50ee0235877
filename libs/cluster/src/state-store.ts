import { ErrorCode, TidewayError } from '@tideway/common';

/**
 * The coordinators' shared state: what a new leader needs to take every job over, and what
 * `tideway list` / `status` show after a fail-over. Local mode keeps it in memory
 * (MemoryStateStore); a cluster with several coordinators keeps it in Redis (RedisStateStore).
 *
 * Safety comes from the fencing epoch: `claimEpoch` hands out a strictly higher epoch to each new
 * leader, and every write names the epoch of its writer and is refused (StaleEpochError) once a
 * higher one was claimed. The check and the write are one atomic step (a Lua script in Redis).
 * Reads are not fenced.
 */
export interface StateStore {
  /** Where the state lives, for messages (e.g. `redis 127.0.0.1:6379`). */
  readonly description: string;

  /** Connects (and checks the server answers); throws one sentence naming the address. */
  open(): Promise<void>;
  close(): Promise<void>;

  /**
   * Takes the next fencing epoch for a new leader at `leaderAddress` and records it as the
   * leader, atomically. Called by the lease holder right after it acquired the lease.
   * `atLeast` (optional): the highest epoch the caller has seen elsewhere (a worker's refusal of a
   * stale epoch); the epoch claimed is higher, even when the store lost its count.
   */
  claimEpoch(leaderAddress: string, atLeast?: number): Promise<number>;
  /** The latest leader record (the highest epoch claimed), or undefined before any. */
  leader(): Promise<LeaderRecord | undefined>;
  /** Throws StaleEpochError unless `epoch` is still the highest claimed. */
  assertEpoch(epoch: number): Promise<void>;

  /**
   * Records a submitted job (immutable info plus its first state) as active. A job id that is
   * active already is refused (TW-CONFIG-004); an ended one with the same id is replaced
   * (restore -r reuses the id). Critical: waits for replicas when configured.
   */
  submitJob(epoch: number, info: StoredJobInfo, state: StoredJobState): Promise<void>;
  /** Replaces the mutable state of an active job (ignored for a job that is not active). */
  updateJob(epoch: number, jobId: string, state: StoredJobState): Promise<void>;
  /** Moves the latest-completed-checkpoint pointer of one pipeline. Critical. */
  putCheckpoint(epoch: number, jobId: string, pointer: CheckpointPointer): Promise<void>;
  /**
   * Ends a job: its final state is kept, with its info and pointers, for `expireMs`, then the
   * store forgets it by itself. Critical.
   */
  endJob(epoch: number, jobId: string, state: StoredJobState, expireMs: number): Promise<void>;

  /** Every active (not ended) job, with its pointers. */
  activeJobs(): Promise<StoredJob[]>;
  /** One job, active or ended and not yet expired. */
  job(jobId: string): Promise<StoredJob | undefined>;
  /**
   * Ended jobs not yet expired, most recently ended first (by expiry time, which with one
   * retention for all is the order they ended; ties by job id, descending).
   */
  endedJobs(page?: { offset: number; limit: number }): Promise<StoredJob[]>;

  /** Every coordinator says it is alive every few seconds (not fenced: followers too). */
  announceCoordinator(address: string, ttlMs: number): Promise<void>;
  /** Coordinators heard from within their ttl, by address. */
  coordinators(): Promise<CoordinatorRecord[]>;
}

export interface LeaderRecord {
  address: string;
  epoch: number;
  /** When the epoch was claimed (ms since epoch). */
  sinceMs: number;
}

export interface CoordinatorRecord {
  address: string;
  lastSeenMs: number;
}

/** What a job was submitted with: never changes after the submit. */
export interface StoredJobInfo {
  jobId: string;
  jobName: string;
  /** The job config as written, secrets included (the state store is trusted; never logged). */
  configText: string;
  configFile: string;
  /** 'hocon', 'json' or '' (from the file name). */
  format: string;
  variables: Record<string, string>;
  /** The job id restored from with -r, or ''. */
  restoreJobId: string;
  /** The ended job whose checkpoint this new job started from (--restore-with-checkpoint); absent otherwise. */
  restoreWithCheckpoint?: string;
  /**
   * The namespace of the token that submitted it (tideway.auth), '' without tokens or for an
   * admin without one. Absent in records written before namespaces were kept: read as ''.
   */
  namespace?: string;
  submitTimeMs: number;
  /** The plan as JSON (describePlan) once planned, '' before: shown, not trusted (re-planned on take-over). */
  planJson: string;
}

/** A slot a task group holds, as the resource manager granted it. */
export interface StoredSlot {
  slotId: string;
  workerId: string;
  workerAddress: string;
  owner: string;
}

/** Counters of one table, summed over a pipeline's task groups and attempts. */
export interface StoredTableCounters {
  table: string;
  sourceReceivedCount: number;
  sinkWriteCount: number;
  sourceReceivedBytes: number;
  sinkWriteBytes: number;
}

export interface StoredTaskGroup {
  index: number;
  /** ExecutionState name. */
  state: string;
  slot?: StoredSlot;
  error?: StoredError;
}

export interface StoredError {
  code: string;
  message: string;
  retryable: boolean;
}

export interface StoredPipeline {
  pipelineId: number;
  /** PipelineStatus name. */
  status: string;
  attempt: number;
  restarts: number;
  completedCheckpoints: number;
  failedCheckpoints: number;
  lastCheckpointTimeMs: number;
  /** Whether the sinks' save modes ran (they never run twice: a take-over skips them). */
  sinksPrepared: boolean;
  taskGroups: StoredTaskGroup[];
  /** Counters so far, every attempt included. */
  counters: StoredTableCounters[];
  /**
   * The pipeline's last checkpoints, newest first (bounded by tideway.checkpoint-history.size).
   * Absent in records written before the history was kept: read as none.
   */
  checkpointHistory?: StoredCheckpointRecord[];
}

/** One checkpoint of a pipeline's history (issue 35): what became of it and what it cost. */
export interface StoredCheckpointRecord {
  checkpointId: number;
  /** CHECKPOINT, SAVEPOINT or COMPLETED_POINT. */
  kind: string;
  triggerTimeMs: number;
  /** From its trigger to its end. */
  durationMs: number;
  /** Bytes of its stored data (0 unless completed). */
  stateBytes: number;
  /** From its trigger until the last task group acknowledged (0 when not every one did). */
  alignmentMs: number;
  state: 'COMPLETED' | 'FAILED' | 'ABORTED';
  /** Why it failed or was aborted ('' when completed). */
  failureReason: string;
}

/** A fail-over or take-over, for status and the dashboard. */
export interface StoredFailover {
  timeMs: number;
  pipelineId: number;
  reason: string;
  epoch: number;
}

/** The mutable state of a job, written whole. */
export interface StoredJobState {
  /** JobStatus name. */
  status: string;
  jobMode: string;
  startTimeMs: number;
  finishTimeMs: number;
  error?: StoredError;
  pipelines: StoredPipeline[];
  /** The last few fail-overs (bounded). */
  failovers: StoredFailover[];
  /** The sequence of the job's last event pushed to receivers (absent in older records: 0). */
  eventSequence?: number;
  /** The epoch of the leader that wrote this state. */
  epoch: number;
  updatedAtMs: number;
}

/** Where a pipeline's latest completed checkpoint is (its data stays in checkpoint storage). */
export interface CheckpointPointer {
  pipelineId: number;
  checkpointId: number;
  /** The storage key of its data. */
  key: string;
  timestamp: number;
  /** CHECKPOINT, SAVEPOINT or COMPLETED_POINT. */
  kind: string;
  /**
   * The pipeline's counters when the checkpoint completed (absent in pointers written before
   * they were kept). A take-over goes on from at least these: the job state's own counters are
   * written a moment later and may be older than the checkpoint the pipeline restores from.
   */
  counters?: StoredTableCounters[];
}

export interface StoredJob {
  info: StoredJobInfo;
  state: StoredJobState;
  /** Latest completed checkpoint per pipeline id. */
  checkpoints: Record<number, CheckpointPointer>;
}

/** A write from a leader whose epoch is no longer the highest: it must stop acting at once. */
export class StaleEpochError extends TidewayError {
  override readonly name = 'StaleEpochError';

  constructor(
    readonly epoch: number,
    readonly current: number,
  ) {
    super(ErrorCode.STALE_EPOCH, `leader epoch ${epoch} is stale: epoch ${current} was claimed by another coordinator`);
  }
}

/** The state store could not be reached or failed the operation (retryable). */
export class StateStoreError extends TidewayError {
  override readonly name = 'StateStoreError';
}

/** Bounded history of fail-overs kept per job. */
export const MAX_STORED_FAILOVERS = 20;
