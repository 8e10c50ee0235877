import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { CatalogTable, PluginType, SourceSplit } from '@tideway/api';
import { ErrorCode, TidewayError, logger } from '@tideway/common';
import type { PluginConfig } from '@tideway/config';
import { PLUGIN_CATALOG, type InstantiateContext } from '@tideway/plugins/lazy';
import { CallClock, overdueCall, pluginPlace, spawnThread, type CallLimits } from '@tideway/runtime';
import type { SplitEnumeration } from './enumerator-host.js';
import type { PluginThreadReply, PluginThreadRequest } from './plugin-thread-entry.js';
import type { PlanningHost } from '@tideway/planner';

const log = logger('pipeline');

const entry = {
  ts: new URL('./plugin-thread-entry.ts', import.meta.url).href,
  js: fileURLToPath(new URL('./plugin-thread-entry.js', import.meta.url)),
};

/** How often the main thread looks at a plugin thread's call clock. */
const CALL_WATCH_MS = 1000;

/** Whether a plugin comes from a plugin folder's package (not built in). */
export function isPluginPackage(type: PluginType, name: string): boolean {
  const key = name.toLowerCase();
  return !PLUGIN_CATALOG.some((e) => e.type === type && e.name.toLowerCase() === key);
}

/** A sink's coordinator side (save modes, abandon, aggregated committer), hosted here or in a plugin thread. */
export interface HostedSink {
  readonly hasPrepare: boolean;
  readonly hasAbandon: boolean;
  prepare(): Promise<void>;
  abandon(): Promise<void>;
  /** Its aggregated committer, if it has one (created after the save modes ran). */
  createCommitter(): Promise<HostedCommitter | undefined>;
}

export interface HostedCommitter {
  combine(infos: unknown[]): Promise<unknown>;
  commit(pending: unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface PluginThreadEvents {
  /** The thread was stopped (a call past its limit) or died: the pipeline attempt fails with this error. */
  onFailure(error: TidewayError): void;
  /** The enumerator called SplitEnumeratorContext.requestCheckpoint. */
  onCheckpointRequest(): void;
}

/**
 * One pipeline attempt's worker thread for the coordinator-side code of plugin packages (their
 * split enumerator and their sinks' aggregated committers, save modes and abandon), so that a
 * busy loop or a promise that never settles there cannot stall the coordinator's main thread:
 * its lease renewal, its RPCs, the other jobs (docs/decisions/0086). Calls cross by messages;
 * the thread keeps a call clock in shared memory that the main thread watches, and a call past
 * its kind's limit (tideway.plugin-call-timeout) terminates the thread and fails the attempt
 * with one sentence naming the plugin, its place and the call. Built-in plugins stay on the
 * main thread.
 */
export class PluginThread {
  private readonly worker: Worker;
  private readonly clock = new CallClock();
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Why the thread is gone (set once it ended); calls then reject with it. */
  private ended?: Error;
  private closing = false;
  private readonly watch?: NodeJS.Timeout;

  constructor(
    private readonly jobId: string,
    private readonly pipelineId: number,
    /** The plugins hosted, by vertex id (for messages). */
    private readonly plugins: ReadonlyMap<number, PluginConfig>,
    private readonly limits: CallLimits,
    private readonly events: PluginThreadEvents,
    /** The job's plugin packages from the cluster's store, unpacked (the plugin folders' packages are found anyway). */
    packageDirs: readonly string[] = [],
    /** What the thread is, for the sentence of a call past its limit. */
    private readonly role = "its pipeline's plugin thread on the coordinator",
  ) {
    this.worker = spawnThread(entry, { clock: this.clock.buffer, jobId, packageDirs }, `plugins-${jobId}-${pipelineId}`);
    let lastError: Error | undefined;
    this.worker.on('message', (msg: PluginThreadReply) => this.onReply(msg));
    this.worker.on('error', (err) => {
      lastError = err;
    });
    this.worker.on('exit', () => {
      clearInterval(this.watch);
      if (this.ended) return this.rejectAll(this.ended);
      const error = this.closing
        ? new Error(`the plugin thread of pipeline ${pipelineId} was closed`)
        : new TidewayError(
            ErrorCode.TASK_FAILED,
            `${this.describe()}: the coordinator thread running its plugin code ended${lastError ? `: ${lastError.message}` : ''}`,
            { retryable: true, jobId },
          );
      this.fail(error, !this.closing);
    });
    if (Object.values(limits).some((ms) => ms > 0)) {
      this.watch = setInterval(() => this.checkClock(), CALL_WATCH_MS);
      this.watch.unref();
    }
  }

  /** Names the plugins hosted, for a failure no single call explains. */
  private describe(): string {
    return [...this.plugins.values()].map(pluginPlace).join(', ');
  }

  private checkClock(): void {
    const call = this.clock.current();
    if (!call || this.ended) return;
    const sentence = overdueCall(call, this.limits, this.plugins.get(call.vertexId));
    if (!sentence) return;
    const error = new TidewayError(ErrorCode.TASK_FAILED, `${sentence}; ${this.role} was stopped`, {
      retryable: true,
      jobId: this.jobId,
    });
    this.fail(error, true);
    this.worker.terminate().catch(() => undefined);
  }

  /** The thread is gone: the attempt fails first (so its error is this one), then the calls under way reject. */
  private fail(error: Error, report: boolean): void {
    if (this.ended) return;
    this.ended = error;
    clearInterval(this.watch);
    if (report) {
      log.warn({ jobId: this.jobId, pipelineId: this.pipelineId, error: error.message }, 'plugin thread stopped');
      this.events.onFailure(error instanceof TidewayError ? error : new TidewayError(ErrorCode.TASK_FAILED, error.message));
    }
    this.rejectAll(error);
  }

  private rejectAll(error: Error): void {
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const c of calls) c.reject(error);
  }

  private onReply(msg: PluginThreadReply): void {
    if (msg.type === 'checkpoint-request') {
      this.events.onCheckpointRequest();
      return;
    }
    const call = this.pending.get(msg.id);
    if (!call) return;
    this.pending.delete(msg.id);
    if (msg.ok) call.resolve(msg.value);
    else
      call.reject(
        msg.error.code
          ? new TidewayError(msg.error.code as ErrorCode, msg.error.message, { retryable: msg.error.retryable ?? false })
          : new Error(msg.error.message),
      );
  }

  private call<T>(op: PluginThreadRequest['op'], ...args: unknown[]): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, args } satisfies PluginThreadRequest);
    });
  }

  /** The source's split enumerator, created (and its source prepared) in the thread. */
  enumerator(vertexId: number, plugin: PluginConfig, spec: InstantiateContext): SplitEnumeration {
    return {
      open: (restoredState) => this.call('enumerator.open', vertexId, plugin, spec, restoredState),
      request: (subtask, register, request, events = [], answerBy = Number.POSITIVE_INFINITY) =>
        this.call<{ splits: SourceSplit[]; noMoreSplits: boolean }>('enumerator.request', subtask, register, request, events, answerBy),
      addSplitsBack: (splits, subtask) => this.call('enumerator.addSplitsBack', splits, subtask),
      snapshot: (checkpointId) => this.call('enumerator.snapshot', checkpointId),
      thaw: () => {
        this.call('enumerator.thaw').catch(() => undefined);
      },
      notifyCheckpointComplete: (checkpointId) => this.call('enumerator.notifyCheckpointComplete', checkpointId),
      close: () => (this.ended ? Promise.resolve() : this.call('enumerator.close')),
    };
  }

  /** A sink created in the thread, with its aggregated committer if it has one. */
  async sink(vertexId: number, plugin: PluginConfig, spec: InstantiateContext): Promise<HostedSink> {
    const has = await this.call<{ prepare: boolean; abandon: boolean }>('sink.create', vertexId, plugin, spec);
    return {
      hasPrepare: has.prepare,
      hasAbandon: has.abandon,
      prepare: () => this.call('sink.prepare', vertexId),
      abandon: () => this.call('sink.abandon', vertexId),
      createCommitter: async () =>
        (await this.call<boolean>('committer.create', vertexId))
          ? {
              combine: (infos) => this.call('committer.combine', vertexId, infos),
              commit: (pending) => this.call('committer.commit', vertexId, pending),
              close: () => this.call('committer.close', vertexId),
            }
          : undefined,
    };
  }

  /** Planning at submit: the source created and prepared here, its tables and whether it is rescalable. */
  planSource(vertexId: number, plugin: PluginConfig, spec: InstantiateContext): Promise<{ tables: CatalogTable[]; rescalable: boolean }> {
    return this.call('plan.source', vertexId, plugin, spec);
  }

  /** Planning at submit: the transform's output tables. */
  planTransform(vertexId: number, plugin: PluginConfig, spec: InstantiateContext): Promise<CatalogTable[]> {
    return this.call('plan.transform', vertexId, plugin, spec);
  }

  /** Planning at submit: the sink created (checking its options against its input tables). */
  planSink(vertexId: number, plugin: PluginConfig, spec: InstantiateContext): Promise<void> {
    return this.call('plan.sink', vertexId, plugin, spec);
  }

  /** Ends the thread (what it still runs is dropped). */
  async close(): Promise<void> {
    if (this.ended) return;
    this.closing = true;
    await this.worker.terminate();
  }
}

/**
 * A job's planning at submit (or at a take-over) for the plugins of its plugin packages
 * (docs/decisions/0093): their factories, Source.prepare and the inference of their tables run
 * in a thread of the job's planning, under the same call clock as the pipelines' plugin threads,
 * so a plugin that spins there fails the submit naming itself and the call while the coordinator
 * keeps answering. The thread starts at the first such plugin (a job of built-ins starts none)
 * and ends with the planning (`close`).
 */
export class PlanningThreadHost implements PlanningHost {
  private thread?: PluginThread;
  private readonly plugins = new Map<number, PluginConfig>();

  constructor(
    private readonly jobId: string,
    private readonly limits: CallLimits,
    /** The job's plugin packages, unpacked: known once planning resolved them, before any plugin is created. */
    private readonly packageDirs: () => readonly string[],
  ) {}

  hosts(type: PluginType, name: string): boolean {
    return isPluginPackage(type, name);
  }

  private threadFor(vertexId: number, plugin: PluginConfig): PluginThread {
    this.plugins.set(vertexId, plugin);
    this.thread ??= new PluginThread(
      this.jobId,
      0,
      this.plugins,
      this.limits,
      // a call's failure rejects the call itself: the submit fails with it
      { onFailure: () => undefined, onCheckpointRequest: () => undefined },
      this.packageDirs(),
      "the job's planning thread on the coordinator",
    );
    return this.thread;
  }

  source(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<{ tables: CatalogTable[]; rescalable: boolean }> {
    return this.threadFor(vertexId, plugin).planSource(vertexId, plugin, ctx);
  }

  transform(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<CatalogTable[]> {
    return this.threadFor(vertexId, plugin).planTransform(vertexId, plugin, ctx);
  }

  sink(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<void> {
    return this.threadFor(vertexId, plugin).planSink(vertexId, plugin, ctx);
  }

  /** Ends the thread, if one started. */
  async close(): Promise<void> {
    await this.thread?.close();
  }
}
