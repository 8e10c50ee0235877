import { detach, logger, type SerializedError } from '@tideway/common';
import type { CheckpointKind, CommitInfos, TaskGroupState } from '@tideway/runtime';

const log = logger('checkpoint');

/** A checkpoint every task group has acknowledged. */
export interface CompletedCheckpoint {
  checkpointId: number;
  kind: CheckpointKind;
  timestamp: number;
  /** Task group states by task group index. */
  taskStates: Record<number, TaskGroupState>;
  /** Enumerator state by source vertex id. */
  enumeratorStates: Record<number, unknown>;
  /** Commit infos by sink vertex id, from every task group. */
  commitInfos: CommitInfos;
}

/** What the checkpoint coordinator asks of its pipeline. */
export interface CheckpointParticipants {
  /** Task group indexes that must acknowledge. */
  taskGroups(): number[];
  trigger(taskGroup: number, checkpointId: number, kind: CheckpointKind): Promise<void>;
  snapshotEnumerators(checkpointId: number): Promise<Record<number, unknown>>;
  /** Commits on the coordinator (aggregated committers) and persists; throws to abort. */
  complete(checkpoint: CompletedCheckpoint): Promise<void>;
  notifyComplete(taskGroup: number, checkpointId: number, kind: CheckpointKind): Promise<void>;
  notifyAborted(taskGroup: number, checkpointId: number): Promise<void>;
  /** After a checkpoint completed and its task groups were notified. */
  onCompleted?(checkpoint: CompletedCheckpoint): void;
  /** After a checkpoint was aborted. */
  onAborted?(checkpointId: number, reason: string): void;
  /** Every checkpoint triggered ends here once: completed, failed, or aborted by a stop. */
  onEnded?(outcome: CheckpointOutcome): void;
}

/** How a checkpoint ended, for its pipeline's history. */
export interface CheckpointOutcome {
  checkpointId: number;
  kind: CheckpointKind;
  triggeredAt: number;
  endedAt: number;
  /** When the last task group acknowledged (undefined when not every one did). */
  alignedAt?: number;
  state: 'COMPLETED' | 'FAILED' | 'ABORTED';
  reason: string;
}

export interface CheckpointSettings {
  /** 0 disables periodic checkpoints. */
  intervalMs: number;
  timeoutMs: number;
  minPauseMs: number;
  /**
   * Whether a checkpoint is aborted after timeoutMs (default true). SeaTunnel applies
   * checkpoint.timeout only while checkpointing is on: a BATCH job without checkpoint.interval
   * has none, and its final checkpoint takes as long as its sinks' prepare takes.
   */
  expires?: boolean;
  /** Checkpoints a pipeline's history keeps (tideway.checkpoint-history.size; default 32). */
  historySize?: number;
}

interface PendingCheckpoint {
  id: number;
  kind: CheckpointKind;
  startedAt: number;
  /** When the last task group acknowledged. */
  alignedAt?: number;
  waiting: Set<number>;
  states: Record<number, TaskGroupState>;
  commitInfos: CommitInfos;
  enumeratorStates: Record<number, unknown>;
  timer: NodeJS.Timeout | undefined;
  done: (ok: boolean) => void;
  finished: Promise<boolean>;
}

/**
 * SeaTunnel's CheckpointCoordinator, one per pipeline: triggers checkpoints (periodic, final,
 * savepoint), collects the Barrier ACKs, completes when every task group has acknowledged,
 * aborts on failure or timeout. A failed checkpoint never stops later ones; one checkpoint
 * is in flight at a time.
 */
export class CheckpointCoordinator {
  private nextId: number;
  private pending?: PendingCheckpoint;
  private timer?: NodeJS.Timeout;
  private lastCompletedAt = 0;
  private stopped = false;
  private completedCount = 0;
  private failedCount = 0;
  /** A checkpoint was asked for while one was in flight: the next starts when it ends. */
  private requested = false;
  latestCompleted?: CompletedCheckpoint;

  constructor(
    private readonly pipelineId: number,
    private readonly settings: CheckpointSettings,
    private readonly participants: CheckpointParticipants,
    startAfterId = 0,
  ) {
    this.nextId = startAfterId + 1;
  }

  get completed(): number {
    return this.completedCount;
  }

  /** The checkpoint in flight, if one is: its task groups that acknowledged, of all that must. */
  inFlight(): { checkpointId: number; kind: CheckpointKind; triggeredAt: number; acknowledged: number; total: number } | undefined {
    const p = this.pending;
    if (!p) return undefined;
    const total = Object.keys(p.states).length + p.waiting.size;
    return { checkpointId: p.id, kind: p.kind, triggeredAt: p.startedAt, acknowledged: total - p.waiting.size, total };
  }

  /** The id of the last checkpoint triggered (0 if none). */
  get lastId(): number {
    return this.nextId - 1;
  }

  get failed(): number {
    return this.failedCount;
  }

  start(): void {
    if (this.settings.intervalMs > 0) this.schedule(this.settings.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const p = this.pending;
    if (p) {
      clearTimeout(p.timer);
      this.pending = undefined;
      this.ended(p, 'ABORTED', 'the pipeline stopped while it was in flight');
      p.done(false);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => detach(this.trigger('CHECKPOINT'), 'a periodic checkpoint'), delayMs);
    this.timer.unref();
  }

  /**
   * Asks for a periodic checkpoint as soon as possible (a source's request, e.g. a CDC reader
   * holding a schema change until the rows before it are committed): now, or, when one is in
   * flight, right after it. Only when periodic checkpoints are on.
   */
  request(): void {
    if (this.stopped || this.settings.intervalMs <= 0) return;
    if (this.pending) this.requested = true;
    else this.schedule(0);
  }

  /**
   * Triggers a checkpoint of the given kind; resolves true when it completed. A final or
   * savepoint trigger waits for a checkpoint in flight first, and so does one asked for by
   * hand (`manual`: tideway checkpoint), which also skips the minimum pause.
   */
  async trigger(kind: CheckpointKind, manual = false): Promise<boolean> {
    if (this.stopped) return false;
    while (this.pending) {
      if (kind === 'CHECKPOINT' && !manual) return false; // periodic: skip, the next interval tries again
      await this.pending.finished;
      if (this.stopped) return false;
    }
    if (kind === 'CHECKPOINT' && !manual) {
      const sinceLast = Date.now() - this.lastCompletedAt;
      if (sinceLast < this.settings.minPauseMs) {
        this.schedule(this.settings.minPauseMs - sinceLast);
        return false;
      }
    }
    const id = this.nextId++;
    let done!: (ok: boolean) => void;
    const finished = new Promise<boolean>((r) => (done = r));
    const pending: PendingCheckpoint = {
      id,
      kind,
      startedAt: Date.now(),
      waiting: new Set(this.participants.taskGroups()),
      states: {},
      commitInfos: {},
      enumeratorStates: {},
      timer:
        this.settings.expires === false
          ? undefined
          : setTimeout(
              () => detach(this.abort(id, `timed out after ${this.settings.timeoutMs} ms`), 'aborting a checkpoint'),
              this.settings.timeoutMs,
            ),
      done,
      finished,
    };
    pending.timer?.unref();
    this.pending = pending;
    log.debug({ pipelineId: this.pipelineId, checkpointId: id, kind }, 'checkpoint triggered');
    try {
      pending.enumeratorStates = await this.participants.snapshotEnumerators(id);
      await Promise.all([...pending.waiting].map((tg) => this.participants.trigger(tg, id, kind)));
    } catch (err) {
      await this.abort(id, `could not trigger: ${(err as Error).message}`);
    }
    return finished;
  }

  /** A task group's Barrier ACK (or its failure to snapshot). */
  async acknowledge(
    taskGroup: number,
    checkpointId: number,
    state: TaskGroupState | undefined,
    commitInfos: CommitInfos | undefined,
    error?: SerializedError,
  ): Promise<void> {
    const p = this.pending;
    if (!p || p.id !== checkpointId || !p.waiting.has(taskGroup)) return; // late or duplicate ACK
    if (error) {
      await this.abort(checkpointId, `task group ${taskGroup} failed to snapshot: ${error.message}`);
      return;
    }
    p.waiting.delete(taskGroup);
    p.states[taskGroup] = state!;
    for (const [vertex, infos] of Object.entries(commitInfos ?? {})) {
      const v = Number(vertex);
      (p.commitInfos[v] ??= []).push(...infos);
    }
    if (p.waiting.size === 0) {
      p.alignedAt = Date.now();
      await this.completePending(p);
    }
  }

  private async completePending(p: PendingCheckpoint): Promise<void> {
    clearTimeout(p.timer);
    const checkpoint: CompletedCheckpoint = {
      checkpointId: p.id,
      kind: p.kind,
      timestamp: Date.now(),
      taskStates: p.states,
      enumeratorStates: p.enumeratorStates,
      commitInfos: p.commitInfos,
    };
    try {
      await this.participants.complete(checkpoint);
    } catch (err) {
      await this.abort(p.id, `could not complete: ${(err as Error).message}`);
      return;
    }
    this.pending = undefined;
    this.latestCompleted = checkpoint;
    this.completedCount++;
    this.lastCompletedAt = Date.now();
    log.debug({ pipelineId: this.pipelineId, checkpointId: p.id, ms: Date.now() - p.startedAt }, 'checkpoint completed');
    await Promise.all(
      this.participants
        .taskGroups()
        .map((tg) =>
          this.participants
            .notifyComplete(tg, p.id, p.kind)
            .catch((err: unknown) => log.warn({ err, taskGroup: tg }, 'could not notify checkpoint completion')),
        ),
    );
    this.participants.onCompleted?.(checkpoint);
    this.ended(p, 'COMPLETED', '');
    p.done(true);
    if (p.kind === 'CHECKPOINT' && this.settings.intervalMs > 0) this.schedule(this.requested ? 0 : this.settings.intervalMs);
    this.requested = false;
  }

  private ended(p: PendingCheckpoint, state: CheckpointOutcome['state'], reason: string): void {
    const outcome = {
      checkpointId: p.id,
      kind: p.kind,
      triggeredAt: p.startedAt,
      endedAt: Date.now(),
      alignedAt: p.alignedAt,
      state,
      reason,
    };
    try {
      this.participants.onEnded?.(outcome);
    } catch (err) {
      log.warn({ pipelineId: this.pipelineId, checkpointId: p.id, err: (err as Error).message }, 'could not record how a checkpoint ended');
    }
  }

  private async abort(checkpointId: number, reason: string): Promise<void> {
    const p = this.pending;
    if (!p || p.id !== checkpointId) return;
    clearTimeout(p.timer);
    this.pending = undefined;
    log.warn({ pipelineId: this.pipelineId, checkpointId, reason }, 'checkpoint aborted');
    await Promise.all(this.participants.taskGroups().map((tg) => this.participants.notifyAborted(tg, checkpointId).catch(() => undefined)));
    this.failedCount++;
    this.participants.onAborted?.(checkpointId, reason);
    this.ended(p, 'FAILED', reason);
    p.done(false);
    // A failed checkpoint never stops later ones.
    if (this.settings.intervalMs > 0) this.schedule(this.settings.intervalMs);
  }
}
