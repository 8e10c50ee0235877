/**
 * A small engine for one sink, doing what Tideway's runtime and coordinator do to a sink (the
 * task group runner and the committer host): writers per subtask, prepareCommit and
 * snapshotState at each checkpoint, commit after the checkpoint completed, the aggregated
 * committer's combine and commit, and after a failure abortPrepare and close, then a restore
 * from the last completed checkpoint that commits its prepared work again (committers are
 * idempotent) and starts writers from their states. Checks drive it step by step and can make
 * any call fail, before or after it took effect.
 */
import type {
  CatalogTable,
  Row,
  SchemaChangeEvent,
  Sink,
  SinkAggregatedCommitter,
  SinkCommitter,
  SinkWriter,
  PluginOptions,
} from '@tideway/api';
import { validatePluginOptions } from '@tideway/config/options';
import type { SinkSubject } from './subject.js';

/** The methods a failure can be planted in. */
export const FAILING_METHODS = ['write', 'prepareCommit', 'snapshotState', 'commit', 'aggregatedCommit', 'close'] as const;
export type FailingMethod = (typeof FAILING_METHODS)[number];

/** The failure a check plants: it is how the harness tells it from a sink's own error. */
export class PlantedFailure extends Error {
  constructor(
    readonly method: FailingMethod,
    readonly call: number,
    readonly when: 'before' | 'after',
  ) {
    super(`planted failure ${when} call ${call} of ${method}`);
  }
}

/** Makes the `call`-th call of `method` fail (once), before or after it ran; counts every call. */
export class FailurePlan {
  readonly calls = new Map<FailingMethod, number>();
  private fired = false;
  constructor(private readonly target?: { method: FailingMethod; call: number; when: 'before' | 'after' }) {}

  get hasFired(): boolean {
    return this.fired;
  }

  async run<T>(method: FailingMethod, fn: () => Promise<T> | T): Promise<T> {
    const n = (this.calls.get(method) ?? 0) + 1;
    this.calls.set(method, n);
    const t = this.target;
    const hit = !this.fired && t !== undefined && t.method === method && t.call === n;
    if (hit && t.when === 'before') {
      this.fired = true;
      throw new PlantedFailure(method, n, 'before');
    }
    const out = await fn();
    if (hit) {
      this.fired = true;
      throw new PlantedFailure(method, n, 'after');
    }
    return out;
  }
}

/** Validates options the way a job config is validated (unknown options, types, the spec's rules). */
export function validatedOptions(subject: SinkSubject, options: Record<string, unknown>): PluginOptions {
  const clean = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Record<string, never>;
  return validatePluginOptions(subject.factory.spec, {
    type: 'sink',
    name: subject.factory.name,
    index: 0,
    file: 'contract.conf',
    line: 1,
    options: clean,
    optionLines: {},
  });
}

export interface Prepared {
  readonly checkpointId: number;
  readonly subtask: number;
  readonly info: unknown;
}

/** A completed checkpoint: what a restore starts from. */
export interface CompletedCheckpoint {
  readonly checkpointId: number;
  /** Steps of the input done before it (a restore replays the rest). */
  readonly position: number;
  readonly states: unknown[][];
  readonly pending: readonly Prepared[];
  readonly tables: readonly CatalogTable[];
}

let jobCounter = 0;

export class SinkJob {
  readonly jobId = `contract-${process.pid}-${Date.now().toString(36)}-${jobCounter++}`;
  private sink!: Sink;
  private writers: SinkWriter[] = [];
  private committers: Array<SinkCommitter<unknown> | undefined> = [];
  private aggregated: SinkAggregatedCommitter<unknown, unknown> | undefined;
  private uncommitted: Prepared[] = [];
  private readonly tables = new Map<string, CatalogTable>();
  private nextCheckpoint = 1;
  completed: CompletedCheckpoint | undefined;
  readonly parallelism: number;

  constructor(
    private readonly subject: SinkSubject,
    private readonly options: Record<string, unknown>,
    private readonly inputTables: readonly CatalogTable[],
    readonly plan = new FailurePlan(),
    parallelism?: number,
  ) {
    this.parallelism = parallelism ?? subject.parallelism ?? 2;
    for (const t of inputTables) this.tables.set(t.tableId, t);
  }

  private createSink(): Sink {
    return this.subject.factory.create({
      jobId: this.jobId,
      jobMode: 'STREAMING',
      parallelism: this.parallelism,
      options: validatedOptions(this.subject, this.options),
      inputTables: this.inputTables,
    });
  }

  /** The job's first start: the sink's prepare (save modes), then its writers. */
  async start(): Promise<void> {
    this.sink = this.createSink();
    await this.sink.prepare?.();
    this.aggregated = this.sink.createAggregatedCommitter?.();
    this.openWriters(undefined);
  }

  private openWriters(restored: CompletedCheckpoint | undefined): void {
    this.writers = [];
    this.committers = [];
    for (let i = 0; i < this.parallelism; i++) {
      const states = restored?.states[i];
      this.writers.push(this.sink.createWriter({ subtaskIndex: i, parallelism: this.parallelism }, states));
      this.committers.push(this.sink.createCommitter?.());
    }
  }

  /** The subtask a row goes to: by its first field (the key), so a key's rows stay in order. */
  private subtaskOf(row: Row): number {
    return Math.abs(Number(row.fields[0])) % this.parallelism;
  }

  async write(rows: readonly Row[]): Promise<void> {
    const parts: Row[][] = this.writers.map(() => []);
    for (const r of rows) parts[this.subtaskOf(r)].push(r);
    for (let i = 0; i < this.writers.length; i++) {
      if (parts[i].length === 0) continue;
      const w = this.writers[i];
      await this.plan.run('write', () => w.write(parts[i]));
    }
  }

  async applySchemaChange(event: SchemaChangeEvent): Promise<void> {
    this.tables.set(event.tableId, event.table);
    for (const w of this.writers) {
      if (!w.applySchemaChange) throw new Error(`${this.subject.name} has no applySchemaChange: a schema change fails the job`);
      await w.applySchemaChange(event);
    }
  }

  /** A checkpoint barrier: every writer prepares and snapshots; then the checkpoint completes. */
  async checkpoint(position: number): Promise<number> {
    const id = this.nextCheckpoint++;
    const states: unknown[][] = [];
    const prepared: Prepared[] = [];
    for (let i = 0; i < this.writers.length; i++) {
      const w = this.writers[i];
      const info = await this.plan.run('prepareCommit', () => w.prepareCommit?.(id));
      if (info !== undefined) prepared.push({ checkpointId: id, subtask: i, info });
      states.push(await this.plan.run('snapshotState', () => w.snapshotState?.(id) ?? []));
    }
    this.uncommitted.push(...prepared);
    this.completed = { checkpointId: id, position, states, pending: [...this.uncommitted], tables: [...this.tables.values()] };
    return id;
  }

  /** Commits what was prepared up to the completed checkpoint: each writer's committer, then the aggregated one. */
  async commit(): Promise<void> {
    const infos = this.uncommitted;
    this.uncommitted = [];
    await this.commitInfos(infos);
  }

  private async commitInfos(infos: readonly Prepared[]): Promise<void> {
    await this.commitWriters(infos);
    await this.commitAggregated(infos);
  }

  /** The writers' committers (on the workers, each with its own subtask's infos). */
  private async commitWriters(infos: readonly Prepared[]): Promise<void> {
    if (infos.length === 0) return;
    for (let i = 0; i < this.committers.length; i++) {
      const c = this.committers[i];
      const own = infos.filter((p) => p.subtask === i).map((p) => p.info);
      if (!c || own.length === 0) continue;
      const retry = await this.plan.run('commit', () => c.commit(own));
      if (retry.length > 0) throw new Error(`${this.subject.name}: the committer asked to retry ${retry.length} commit(s)`);
    }
  }

  /** The aggregated committer (on the coordinator, every subtask's infos combined), with 3 attempts. */
  private async commitAggregated(infos: readonly Prepared[]): Promise<void> {
    const agg = this.aggregated;
    if (agg && infos.length > 0) {
      let pending = [agg.combine(infos.map((p) => p.info))];
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === 3) throw new Error(`${this.subject.name}: the aggregated committer could not commit after 3 attempts`);
        const p = pending;
        pending = await this.plan.run('aggregatedCommit', () => agg.commit(p));
      }
    }
  }

  /** Commits `infos` again (a retried commit, or a restored process's). */
  async recommit(infos: readonly Prepared[]): Promise<void> {
    await this.commitInfos(infos);
  }

  /** Aborts what `checkpoint` prepared and was not committed (the coordinator declining a checkpoint's commit). */
  async abortPrepared(): Promise<void> {
    const infos = this.uncommitted;
    this.uncommitted = [];
    await this.abort(infos);
  }

  /** The committers' abort of `infos`. */
  async abort(infos: readonly Prepared[]): Promise<void> {
    for (let i = 0; i < this.committers.length; i++) {
      const own = infos.filter((p) => p.subtask === i).map((p) => p.info);
      if (own.length > 0) await this.committers[i]?.abort(own);
    }
    if (this.aggregated && infos.length > 0) await this.aggregated.abort([this.aggregated.combine(infos.map((p) => p.info))]);
  }

  /** The end of a bounded job: a final checkpoint, its commit, then every writer and committer closes. */
  async finish(position: number): Promise<void> {
    await this.checkpoint(position);
    await this.commit();
    for (const w of this.writers) await this.plan.run('close', () => w.close());
    this.writers = [];
    await this.aggregated?.close?.();
    await this.sink.abandon?.();
  }

  /** A task failure: what the runtime does to each writer (abortPrepare, close), errors ignored. */
  async fail(): Promise<void> {
    for (const w of this.writers) {
      await Promise.resolve()
        .then(() => w.abortPrepare?.())
        .catch(() => undefined);
      await Promise.resolve()
        .then(() => w.close())
        .catch(() => undefined);
    }
    this.writers = [];
    this.uncommitted = [];
  }

  /**
   * A restore from the last completed checkpoint, in a new process: a new sink instance (no
   * prepare), the checkpoint's prepared work committed again, writers from their states, the
   * tables' schemas at the checkpoint told to the writers. Returns the input position to replay from.
   */
  async restore(): Promise<number> {
    const from = this.completed;
    this.sink = this.createSink();
    this.aggregated = this.sink.createAggregatedCommitter?.();
    // As the coordinator does: the aggregated committers commit again before any task group deploys,
    // then each task group's writer starts from its state and its committer commits again.
    if (from) await this.commitAggregated(from.pending);
    this.openWriters(from);
    this.tables.clear();
    for (const t of this.inputTables) this.tables.set(t.tableId, t);
    if (!from) return 0;
    await this.commitWriters(from.pending);
    for (const table of from.tables) {
      const planned = this.tables.get(table.tableId);
      if (planned && JSON.stringify(planned) === JSON.stringify(table)) continue;
      await this.applySchemaChange({ type: 'schema-change', tableId: table.tableId, changes: [], table, restored: true });
    }
    return from.position;
  }

  /** A cancel: writers abort and close, then the sink drops whatever was not committed (twice: it must be idempotent). */
  async cancel(): Promise<void> {
    await this.fail();
    await this.sink.abandon?.();
    await this.sink.abandon?.();
  }
}

/** One step of a job's input: a batch of rows, or a schema change before the rows that follow. */
export type Step = readonly Row[] | SchemaChangeEvent;

function isRows(s: Step): s is readonly Row[] {
  return Array.isArray(s);
}

export async function runStep(job: SinkJob, step: Step): Promise<void> {
  if (isRows(step)) await job.write(step);
  else await job.applySchemaChange(step);
}

/**
 * Runs `steps` to the end with a checkpoint (and its commit) after each step, as a streaming job
 * whose checkpoints come between batches. A planted failure fails the task group: the job
 * restores from its last completed checkpoint and goes on from there (any other error fails the
 * run). `afterCommit` sees each committed checkpoint's input position.
 */
export async function runToEnd(job: SinkJob, steps: readonly Step[], afterCommit?: (position: number) => Promise<void>): Promise<void> {
  let position = 0;
  let started = false;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 10) throw new Error('the job restored more than 10 times');
    try {
      if (!started) {
        started = true;
        await job.start();
      }
      while (position < steps.length) {
        await runStep(job, steps[position]);
        position++;
        await job.checkpoint(position);
        await job.commit();
        await afterCommit?.(position);
      }
      await job.finish(position);
      return;
    } catch (err) {
      if (!(err instanceof PlantedFailure)) throw err;
      await job.fail();
      position = await restoreAfterPlanted(job);
    }
  }
}

/** A restore that a planted failure may hit too (a commit again): then it restores once more. */
async function restoreAfterPlanted(job: SinkJob): Promise<number> {
  for (;;) {
    try {
      return await job.restore();
    } catch (err) {
      if (!(err instanceof PlantedFailure)) throw err;
      await job.fail();
    }
  }
}
