import type { SourceSplit } from '@tideway/api';
import type { CheckpointStorage } from '@tideway/checkpoint';
import { detach, logger, sleep } from '@tideway/common';
import type { StoredCheckpointRecord, StoredPipeline } from '@tideway/cluster';
import type { TaskGroupLocation } from '@tideway/contracts';
import { CheckpointCoordinator, type CheckpointSettings, type CompletedCheckpoint } from './checkpoint-coordinator.js';
import { CheckpointHistory } from './checkpoint-history.js';
import { restorePointOf, toStored, type RestorePoint, type TaskGroupPlacement } from './checkpoint-records.js';
import type { CommitterHost } from './committer-host.js';
import type { SplitEnumeration } from './enumerator-host.js';
import type { WorkerGateway } from './gateways.js';
import type { PipelineRecords } from './pipeline-deps.js';

const log = logger('pipeline');

/** What a pipeline lends its checkpoints: its task groups, enumerator and committers of the moment. */
export interface CheckpointSide {
  jobId: string;
  pipelineId: number;
  sourceVertexId: number;
  settings: CheckpointSettings;
  workers: WorkerGateway;
  storage: CheckpointStorage;
  records?: PipelineRecords;
  committers: CommitterHost;
  /** Task groups of the attempt that have not stopped. */
  liveTaskGroups(): number[];
  isSource(taskGroup: number): boolean;
  address(taskGroup: number): string;
  location(taskGroup: number): TaskGroupLocation;
  enumerator(): SplitEnumeration | undefined;
  /** A checkpoint completed (the restart budget starts again). */
  onCompleted(): void;
  /**
   * The aggregated commit of a completed checkpoint threw: the checkpoint stays complete (its
   * pointer is recorded), and the pipeline fails, so that a restart from it commits again (the
   * restart budget bounds how often) instead of every later checkpoint carrying the failing
   * commit and aborting, which would hang a bounded job at its final checkpoint.
   */
  onCommitFailed(err: unknown): void;
  /** A checkpoint ended and was added to the history (the job's state is written soon). */
  onRecorded?(record: StoredCheckpointRecord): void;
  /** Where each task group runs, stored with its state (a restore at another parallelism reads it). */
  placements?: ReadonlyMap<number, TaskGroupPlacement>;
  /**
   * What the job was restored from (-r, or --restore-with-checkpoint from another job): where
   * a restart restores from until the job's own first checkpoint completes.
   */
  restoredFrom?: RestorePoint;
}

/**
 * The checkpoints of one pipeline over all its attempts: the CheckpointCoordinator of the
 * current attempt (wired to the workers, the enumerator and the committers), the counters of
 * earlier attempts, and the completed checkpoints it stored, which the next attempt restores.
 */
export class PipelineCheckpoints {
  coordinator: CheckpointCoordinator;
  /** Checkpoints completed and failed by earlier attempts (and earlier leaders). */
  private completedBefore = 0;
  private failedBefore = 0;
  /** Time of the latest completed checkpoint (ms since epoch, 0 if none). */
  lastCheckpointTime = 0;
  private lastStored?: RestorePoint;
  /** Splits assigned but not yet delivered when the enumerator was last snapshotted. */
  private undelivered: Record<number, SourceSplit[]> = {};
  /** The last checkpoints, newest first, over every attempt (and earlier leaders). */
  readonly history: CheckpointHistory;
  /** Bytes storage holds of the checkpoint being completed (for its history record). */
  private storedBytes = new Map<number, number>();

  constructor(
    private readonly side: CheckpointSide,
    startAfterId: number,
  ) {
    this.history = new CheckpointHistory(side.settings.historySize);
    this.coordinator = this.newCoordinator(startAfterId);
  }

  get completed(): number {
    return this.completedBefore + this.coordinator.completed;
  }

  get failed(): number {
    return this.failedBefore + this.coordinator.failed;
  }

  /** A take-over: the counters go on from the recorded ones (before any checkpoint of this leader). */
  resume(s: StoredPipeline): void {
    this.completedBefore = s.completedCheckpoints;
    this.failedBefore = s.failedCheckpoints;
    this.lastCheckpointTime = s.lastCheckpointTimeMs;
    this.history.resume(s.checkpointHistory);
  }

  /** A new attempt: its own coordinator, numbering after `startAfterId` (or the last id). */
  renew(startAfterId?: number): void {
    this.completedBefore += this.coordinator.completed;
    this.failedBefore += this.coordinator.failed;
    this.coordinator = this.newCoordinator(startAfterId ?? this.coordinator.lastId);
  }

  /** Where a restart restores from: the latest checkpoint this leader stored, or the recorded one. */
  async latest(): Promise<RestorePoint | undefined> {
    return this.lastStored ?? (await this.latestRecorded());
  }

  /**
   * The latest checkpoint recorded in the state store (in storage, without a state store); the
   * restore point the job started from while none is.
   */
  async latestRecorded(): Promise<RestorePoint | undefined> {
    const { records, storage, jobId, pipelineId, restoredFrom } = this.side;
    const pointer = records?.latestPointer(pipelineId);
    // With a state store, only a checkpoint whose pointer was recorded counts as completed:
    // data a deposed leader wrote later was never confirmed.
    if (records && !pointer) return restoredFrom;
    const latest = await storage.readLatest(jobId, pipelineId, pointer && { checkpointId: pointer.checkpointId, key: pointer.key });
    if (latest?.warning) log.warn({ jobId, pipelineId }, latest.warning);
    return latest ? restorePointOf(latest.checkpoint) : restoredFrom;
  }

  /** The final checkpoint of a bounded pipeline, tried again with backoff while `running` says so. */
  async triggerFinal(running: () => boolean): Promise<void> {
    for (let i = 0; running(); i++) {
      if (await this.coordinator.trigger('COMPLETED_POINT')) return;
      await sleep(Math.min(5000, 200 * 2 ** i));
    }
  }

  private newCoordinator(startAfterId: number): CheckpointCoordinator {
    const side = this.side;
    const w = side.workers;
    return new CheckpointCoordinator(
      side.pipelineId,
      side.settings,
      {
        taskGroups: () => side.liveTaskGroups(),
        // Barriers start at the sources; task groups behind a shuffle get them in-band.
        trigger: async (tg, id, kind) => {
          if (side.isSource(tg)) await w.trigger(side.address(tg), side.location(tg), id, kind);
        },
        snapshotEnumerators: async (id) => {
          const snap = await side.enumerator()!.snapshot(id);
          this.undelivered = snap.undelivered;
          return { [side.sourceVertexId]: snap.state };
        },
        complete: (cp) => this.persistAndCommit(cp),
        notifyComplete: (tg, id, kind) => w.notifyComplete(side.address(tg), side.location(tg), id, kind),
        notifyAborted: (tg, id) => w.notifyAborted(side.address(tg), side.location(tg), id),
        onCompleted: (cp) => {
          const enumerator = side.enumerator();
          enumerator?.thaw();
          if (enumerator) detach(enumerator.notifyCheckpointComplete(cp.checkpointId), 'notifying the enumerator of a checkpoint');
          side.onCompleted();
        },
        onAborted: () => side.enumerator()?.thaw(),
        onEnded: (outcome) => {
          const bytes = this.storedBytes.get(outcome.checkpointId) ?? 0;
          this.storedBytes.delete(outcome.checkpointId);
          side.onRecorded?.(this.history.add(outcome, bytes));
        },
      },
      startAfterId,
    );
  }

  /**
   * Completes a checkpoint on the coordinator: the data goes to storage first (so a restore
   * finds what was committed), then the aggregated committers commit.
   */
  private async persistAndCommit(cp: CompletedCheckpoint): Promise<void> {
    const { jobId, pipelineId } = this.side;
    const stored = toStored(jobId, pipelineId, cp, this.side.sourceVertexId, this.undelivered, this.side.placements);
    const ref = await this.side.storage.write(stored);
    this.storedBytes.set(cp.checkpointId, ref.bytes ?? 0);
    // The pointer in the state store is what makes the checkpoint complete: it is fenced, so a
    // leader that lost its place can never commit (its pointer write fails first).
    await this.side.records?.checkpointCompleted(pipelineId, {
      pipelineId,
      checkpointId: cp.checkpointId,
      key: ref.key,
      timestamp: cp.timestamp,
      kind: cp.kind,
    });
    this.lastStored = restorePointOf(stored);
    this.lastCheckpointTime = cp.timestamp;
    try {
      await this.side.committers.commit(cp.checkpointId, cp.commitInfos);
    } catch (err) {
      log.warn(
        { jobId, pipelineId, checkpointId: cp.checkpointId, err: (err as Error).message },
        'the commit of a completed checkpoint failed',
      );
      // After the completion has run its course (its onCompleted resets the restart budget), so
      // that this failure counts against job.retry.times.
      setImmediate(() => this.side.onCommitFailed(err));
    }
  }
}
