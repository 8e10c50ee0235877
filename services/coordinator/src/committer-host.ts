import type { Sink } from '@tideway/api';
import { logger } from '@tideway/common';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSink } from '@tideway/plugins/lazy';
import type { RestorePoint } from './checkpoint-records.js';
import { isPluginPackage, type HostedCommitter, type HostedSink, type PluginThread } from './plugin-thread.js';

const log = logger('pipeline');

/** How many times a failing aggregated commit is retried before the checkpoint aborts. */
const COMMIT_ATTEMPTS = 3;

/**
 * The sinks' coordinator side of one pipeline attempt (beside the EnumeratorHost, the sources'
 * side): the sinks' save modes before the first writer starts, the aggregated committers that
 * commit each completed checkpoint, and abandon() of what was prepared and never committed.
 * Every effect that is not an RPC first passes `fence` (it throws unless this coordinator
 * still leads). A plugin package's sink lives in the attempt's plugin thread (plugin-thread.ts),
 * a built-in one here.
 */
export class CommitterHost {
  private committers = new Map<number, HostedCommitter>();
  /** The sinks of the current attempt, for abandon(). */
  private sinks: HostedSink[] = [];

  constructor(
    private readonly job: PlannedJob,
    private readonly plan: PlannedPipeline,
    private readonly fence: () => Promise<void>,
  ) {}

  /**
   * Creates the attempt's sinks and aggregated committers. With `runSaveModes` the save modes
   * (create/drop/truncate the target) run, once, before any writer starts; none runs once
   * `stillWanted` says the attempt was stopped meanwhile. Plugin packages' sinks are created in
   * `thread`.
   */
  async open(runSaveModes: boolean, stillWanted: () => boolean, thread?: PluginThread): Promise<void> {
    const job = this.job;
    this.committers = new Map();
    this.sinks = [];
    for (const s of this.plan.sinks) {
      const spec = { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables };
      const sink =
        thread && isPluginPackage('sink', s.plugin.name)
          ? await thread.sink(s.vertexId, s.plugin, spec)
          : inlineSink(createSink(s.plugin, spec, job.registry));
      this.sinks.push(sink);
      if (runSaveModes && sink.hasPrepare && stillWanted()) {
        await this.fence();
        await sink.prepare();
      }
      const committer = await sink.createCommitter();
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

  private async commitWithRetries(vertexId: number, committer: HostedCommitter, infos: unknown[], checkpointId: number): Promise<void> {
    let pending = [await committer.combine(infos)];
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
      for (const c of committers) await c.close();
      return;
    }
    for (const c of committers) await c.close().catch(() => undefined);
  }

  /** Sink.abandon of every sink (before the job reports its end, so a CLI exiting then waits for it). */
  async abandon(): Promise<void> {
    if (this.sinks.some((s) => s.hasAbandon)) await this.fence();
    for (const sink of this.sinks) {
      try {
        if (sink.hasAbandon) await sink.abandon();
      } catch (err) {
        log.warn(
          { err: (err as Error).message, jobId: this.job.jobId, pipelineId: this.plan.pipelineId },
          'a sink could not drop uncommitted work of an ended job',
        );
      }
    }
  }
}

/** A built-in sink's coordinator side, on the main thread. */
function inlineSink(sink: Sink): HostedSink {
  return {
    hasPrepare: sink.prepare !== undefined,
    hasAbandon: sink.abandon !== undefined,
    prepare: async () => sink.prepare?.(),
    abandon: async () => sink.abandon?.(),
    createCommitter: async () => {
      const committer = sink.createAggregatedCommitter?.();
      return (
        committer && {
          combine: async (infos) => committer.combine(infos),
          commit: async (pending) => committer.commit(pending),
          close: async () => committer.close?.(),
        }
      );
    },
  };
}
