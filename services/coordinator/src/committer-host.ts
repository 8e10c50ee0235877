import type { Sink, SinkAggregatedCommitter } from '@tideway/api';
import { logger } from '@tideway/common';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSink } from '@tideway/plugins/lazy';
import type { RestorePoint } from './checkpoint-records.js';

const log = logger('pipeline');

/** How many times a failing aggregated commit is retried before the checkpoint aborts. */
const COMMIT_ATTEMPTS = 3;

/**
 * The sinks' coordinator side of one pipeline attempt (beside the EnumeratorHost, the sources'
 * side): the sinks' save modes before the first writer starts, the aggregated committers that
 * commit each completed checkpoint, and abandon() of what was prepared and never committed.
 * Every effect that is not an RPC first passes `fence` (it throws unless this coordinator
 * still leads).
 */
export class CommitterHost {
  private committers = new Map<number, SinkAggregatedCommitter<unknown, unknown>>();
  /** The sinks of the current attempt, for abandon(). */
  private sinks: Sink[] = [];

  constructor(
    private readonly job: PlannedJob,
    private readonly plan: PlannedPipeline,
    private readonly fence: () => Promise<void>,
  ) {}

  /**
   * Creates the attempt's sinks and aggregated committers. With `runSaveModes` the save modes
   * (create/drop/truncate the target) run, once, before any writer starts; none runs once
   * `stillWanted` says the attempt was stopped meanwhile.
   */
  async open(runSaveModes: boolean, stillWanted: () => boolean): Promise<void> {
    const job = this.job;
    this.committers = new Map();
    this.sinks = [];
    for (const s of this.plan.sinks) {
      const sink = createSink(
        s.plugin,
        { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables },
        job.registry,
      );
      this.sinks.push(sink);
      if (runSaveModes && sink.prepare && stillWanted()) {
        await this.fence();
        await sink.prepare();
      }
      const committer = sink.createAggregatedCommitter?.();
      if (committer) this.committers.set(s.vertexId, committer);
    }
  }

  /** Commits a restored checkpoint's prepared work again: committers are idempotent. */
  async recommit(restore: RestorePoint): Promise<void> {
    if (this.committers.size > 0) await this.fence();
    for (const [vertexId, committer] of this.committers) {
      const infos = restore.pendingCommits.get(vertexId);
      if (infos && infos.length > 0) await this.commitWithRetries(vertexId, committer, infos, restore.checkpointId);
    }
  }

  /** Commits a completed checkpoint's commit infos, sink by sink (after the checkpoint was stored). */
  async commit(checkpointId: number, commitInfos: Record<number, unknown[] | undefined>): Promise<void> {
    for (const [vertexId, committer] of this.committers) {
      const infos = commitInfos[vertexId];
      if (infos && infos.length > 0) await this.commitWithRetries(vertexId, committer, infos, checkpointId);
    }
  }

  private async commitWithRetries(
    vertexId: number,
    committer: SinkAggregatedCommitter<unknown, unknown>,
    infos: unknown[],
    checkpointId: number,
  ): Promise<void> {
    let pending = [committer.combine(infos)];
    for (let i = 0; pending.length > 0; i++) {
      if (i === COMMIT_ATTEMPTS)
        throw new Error(`sink vertex ${vertexId} could not commit checkpoint ${checkpointId} after ${COMMIT_ATTEMPTS} attempts`);
      pending = await committer.commit(pending);
    }
  }

  /**
   * Closes the committers. After a successful run their close() is the end-of-job hook (Assert
   * checks its row counts there) and its error fails the job; otherwise errors are ignored.
   */
  async close(success: boolean): Promise<void> {
    const committers = [...this.committers.values()];
    this.committers = new Map();
    if (success) {
      for (const c of committers) await c.close?.();
      return;
    }
    for (const c of committers) await Promise.resolve(c.close?.()).catch(() => undefined);
  }

  /** Sink.abandon of every sink (before the job reports its end, so a CLI exiting then waits for it). */
  async abandon(): Promise<void> {
    if (this.sinks.some((s) => s.abandon !== undefined)) await this.fence();
    for (const sink of this.sinks) {
      try {
        await sink.abandon?.();
      } catch (err) {
        log.warn(
          { err: (err as Error).message, jobId: this.job.jobId, pipelineId: this.plan.pipelineId },
          'a sink could not drop uncommitted work of an ended job',
        );
      }
    }
  }
}
