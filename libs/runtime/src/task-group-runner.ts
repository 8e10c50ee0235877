import type {
  Boundedness,
  CatalogTable,
  Collector,
  Row,
  SchemaChangeEvent,
  Sink,
  SinkCommitter,
  SinkWriter,
  Source,
  SourceReader,
  SourceSplit,
  Transform,
} from '@tideway/api';
import { describeColumnChange } from '@tideway/api';
import { logger, serializeError } from '@tideway/common';
import { createSink, createSource, createTransform, loadPluginsFor, type PluginRegistry } from '@tideway/plugins/lazy';
import { chainNodes, type ChainNode, type CommitInfos, type TaskGroupDescriptor, type TaskGroupState } from './descriptor.js';
import { BusyTimeMeter, EventTimeLag } from './busy-time.js';
import { TaskGroupCounters } from './metrics.js';
import type { CheckpointKind, FromTaskGroup, ToTaskGroup } from './protocol.js';
import { INITIAL_CREDITS, type InputGate } from './exchange/input-gate.js';
import type { ShuffleWriter } from './exchange/shuffle-writer.js';
import { ReadLimiter } from './read-limiter.js';
import { RowErrorGuard } from './row-errors.js';
import { CallClock } from './call-clock.js';
import { applyToSink, EvolvingTransform, type PushSchema } from './schema-stages.js';

const log = logger('task-group');

/** How long a task group's loop runs before it yields to receive control messages. */
const SLICE_MS = 5;
/** Longest sleep when the source has nothing to emit. */
const MAX_IDLE_MS = 20;
const METRICS_INTERVAL_MS = 500;
/**
 * A task group's first rows go on ahead of the rest of their poll: a source that hands over
 * thousands of rows in one poll (a Kafka fetch, a COPY chunk) would otherwise have them all
 * transformed and encoded before the first one reaches its sink. SeaTunnel's readers emit row by
 * row, so their first row is written at once; Tideway's is written after at most this many.
 */
const FIRST_ROWS = 256;

type Push = (rows: Row[]) => void | Promise<void>;

/** A compiled subtree of the chain: where rows go, and where schema changes go (in order with them). */
interface Stage {
  rows: Push;
  schema: PushSchema;
}

interface SinkInstance {
  vertexId: number;
  writer: SinkWriter;
  committer?: SinkCommitter<unknown>;
}

/**
 * Runs one task group inside its worker thread: a source reader (or the input side of a
 * shuffle) feeding a fused tree of transforms, sink writers and shuffle writers by function
 * call. Between polls it handles control messages (splits, checkpoint barriers, commits,
 * cancel). At a source, a barrier is taken between two polls, so every row emitted before it
 * has reached every sink of the chain; it then travels down each shuffle after the rows. A
 * shuffle-fed task group aligns the barriers of all its input channels before it snapshots.
 */
export class TaskGroupRunner {
  private readonly inbox: ToTaskGroup[] = [];
  private wake?: () => void;
  private readonly counters = new TaskGroupCounters();
  /** Busy, idle and back-pressured time (Flink's task metrics). */
  private readonly busy = new BusyTimeMeter();
  /** CDC sources: the time from a change's commit to its rows leaving for the sinks. */
  private readonly eventLag = new EventTimeLag();
  /** Sends metrics while the loop waits long (a back-pressured push). */
  private metricsTimer?: NodeJS.Timeout;
  private source?: Source;
  private reader?: SourceReader<SourceSplit>;
  private gate?: InputGate;
  /**
   * Batches that came through the shuffle and are not processed yet (in the inbox, or held behind
   * a barrier): the input queue, which holds INITIAL_CREDITS per channel.
   */
  private inputQueued = 0;
  private plugins!: PluginRegistry;
  private readonly limiter: ReadLimiter;
  private readonly shuffles: ShuffleWriter[] = [];
  /**
   * The shuffle side (gRPC channels, the row codec), loaded only by task groups that have a
   * shuffle: a fused task group's thread starts without it.
   */
  private exchange?: typeof import('./exchange/exchange.js');
  private push!: Push;
  private pushSchema!: PushSchema;
  /**
   * The tables entering this chain, as they are now (schema changes included): checkpointed,
   * and replayed on restore where they differ from the plan's (a restore plans with the
   * database's schema of the moment, which may be past the checkpoint's).
   */
  private readonly currentTables = new Map<string, CatalogTable>();
  private readonly sinks: SinkInstance[] = [];
  /** env.transform_error_handler mode ROUTE: the writer of the pipeline's dead-letter sink (also in `sinks`). */
  private deadLetter?: SinkInstance;
  private readonly transforms: Transform[] = [];
  /** Row-level error handling of the transform vertices, by vertex id (env.transform_error_handler). */
  private readonly rowGuards = new Map<number, RowErrorGuard>();
  /** The sink vertices' guards among them (env.sink_error_handler): their rejects are settled before the dead-letter writer's turn. */
  private readonly sinkGuards: RowErrorGuard[] = [];
  private readerDone = false;
  private noMoreElementSignaled = false;
  private ending: 'none' | 'closing' | 'cancel' = 'none';
  private endingCheckpoint = -1;
  /** Commit infos prepared per checkpoint, per sink vertex, not yet committed. */
  private readonly pendingCommits = new Map<number, CommitInfos>();
  private lastMetrics = 0;
  /** Whether no row has gone on yet (FIRST_ROWS). */
  private firstRows = true;

  /**
   * @param loadPlugins loads the factories of the chain's plugins (tests pass their own fakes).
   */
  constructor(
    private readonly descriptor: TaskGroupDescriptor,
    private readonly send: (msg: FromTaskGroup) => void,
    private readonly loadPlugins: typeof loadPluginsFor = loadPluginsFor,
    /** Which plugin call runs, for the main thread's time limits (tideway.plugin-call-timeout). */
    private readonly clock = new CallClock(),
  ) {
    this.limiter = new ReadLimiter(descriptor.rowsPerSecond, descriptor.bytesPerSecond ?? 0);
  }

  /** Delivers a control message (called from the thread's message handler). */
  deliver(msg: ToTaskGroup): void {
    if (msg.type === 'exchange-batch') this.inputQueued++;
    this.inbox.push(msg);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async run(): Promise<void> {
    this.metricsTimer = setInterval(() => this.maybeSendMetrics(), METRICS_INTERVAL_MS);
    this.metricsTimer.unref();
    try {
      await this.open();
      this.send({ type: 'state', state: 'RUNNING' });
      await this.loop();
    } catch (err) {
      await this.closeQuietly(true);
      this.sendMetrics();
      this.send({ type: 'state', state: 'FAILED', error: serializeError(err) });
    } finally {
      clearInterval(this.metricsTimer);
    }
  }

  private get sourceVertexId(): number {
    return this.descriptor.root.vertexId;
  }

  private async open(): Promise<void> {
    const d = this.descriptor;
    const root = d.root;
    const nodes = [...chainNodes(root)];
    const plugins = nodes.map((n) => ({ type: n.plugin.type, name: n.plugin.name }));
    if (d.deadLetter) plugins.push({ type: 'sink', name: d.deadLetter.plugin.name });
    this.plugins = await this.loadPlugins(
      plugins,
      (d.pluginPackages ?? []).flatMap((p) => p.dir ?? []),
    );
    this.openDeadLetter();
    if (d.input || nodes.some((n) => (n.shuffles?.length ?? 0) > 0)) this.exchange = await import('./exchange/exchange.js');
    if (d.input) {
      // Fed by a shuffle: the chain starts at the root vertex; rows arrive on channels.
      this.gate = new this.exchange!.InputGate(d.input.upstreamTaskGroups);
      this.setStage(this.compileNode(root), root.inputTables);
      this.sinksInOrder();
      await this.recommitRestored();
      await this.replayRestoredSchemas();
      return;
    }
    this.source = createSource(
      root.plugin,
      { jobId: d.jobId, jobMode: d.jobMode, parallelism: root.parallelism, inputTables: [] },
      this.plugins,
    );
    const boundedness: Boundedness = this.source.boundedness();
    this.reader = this.source.createReader({
      subtaskIndex: d.subtaskIndex,
      parallelism: root.parallelism,
      boundedness,
      signalNoMoreElement: () => {
        this.noMoreElementSignaled = true;
      },
      sendSplitRequest: () => this.send({ type: 'split-request', sourceVertexId: this.sourceVertexId, register: false }),
      sendSourceEvent: (event) => this.send({ type: 'source-event', sourceVertexId: this.sourceVertexId, event }),
      reportEventTime: (commitTimeMs) => this.eventLag.report(commitTimeMs),
      maxRowsPerPoll: d.rowsPerSecond > 0 ? Math.max(1, Math.ceil(d.rowsPerSecond / 10)) : undefined,
    });
    this.setStage(
      this.withShuffles(root, this.compileChildren(root.children)),
      root.children.flatMap((c) => c.inputTables),
    );
    // What the source emits is what its fused children receive (catalogTables() may need a
    // prepare() that only the coordinator runs).
    this.counters.registerSourceTables(root.children.flatMap((c) => c.inputTables));
    this.sinksInOrder();
    this.offerRowEncoding();
    const reader = this.reader;
    await this.clock.run('open', this.sourceVertexId, () => reader.open());
    await this.recommitRestored();
    await this.replayRestoredSchemas();
    const restoredSplits = this.descriptor.restored?.readerSplits[this.sourceVertexId];
    if (restoredSplits && restoredSplits.length > 0) this.reader.addSplits(restoredSplits as SourceSplit[]);
    this.send({ type: 'split-request', sourceVertexId: this.sourceVertexId, register: true });
  }

  /**
   * A reader that feeds one sink writer directly and alone (no transform, shuffle, other sink,
   * dead-letter sink or row-error handling between them) is offered the form in which that
   * writer takes rows undecoded, if it has one (SinkWriter.rowEncoding, docs/decisions/0104).
   * Anything between them reads values, so then nothing is offered.
   */
  private offerRowEncoding(): void {
    const d = this.descriptor;
    const root = d.root;
    const only = root.children.length === 1 ? root.children[0] : undefined;
    if (!this.reader?.offerRowEncoding || !only || only.plugin.type !== 'sink') return;
    // (A sink ends its branch of the chain: nothing is fused or shuffled after it.)
    if ((root.shuffles?.length ?? 0) > 0 || d.rowErrors || d.sinkRowErrors || d.deadLetter) return;
    const sink = this.sinks.find((s) => s.vertexId === only.vertexId);
    const offer = sink?.writer.rowEncoding?.();
    if (offer) this.reader.offerRowEncoding(offer);
  }

  /**
   * The dead-letter sink's writer (mode ROUTE): a sink like the chain's, whose prepared commits
   * and state travel with each checkpoint, so a bad row is routed once however often the task
   * group restores. Its subtask index is the task group's index, unique in the pipeline.
   */
  private openDeadLetter(): void {
    const d = this.descriptor;
    const target = d.deadLetter;
    if (!target) return;
    const ctx = { jobId: d.jobId, jobMode: d.jobMode, parallelism: target.parallelism, inputTables: [target.table] };
    const sink: Sink = createSink(target.plugin, ctx, this.plugins);
    const writer = sink.createWriter(
      { subtaskIndex: d.taskGroupIndex, parallelism: target.parallelism },
      d.restored?.writerStates[target.vertexId],
    );
    // Joins `sinks` last, once the chain's sinks are in (see sinksInOrder).
    this.deadLetter = { vertexId: target.vertexId, writer, committer: sink.createCommitter?.() };
  }

  /**
   * The dead-letter writer goes after the chain's sinks: their prepareCommit or close may still
   * reject rows (a flush), which reach it before its own prepareCommit or close.
   */
  private sinksInOrder(): void {
    if (this.deadLetter) this.sinks.push(this.deadLetter);
  }

  /** The limits the sinks' rejected rows passed, and their routed rows to the dead-letter writer. */
  private async settleSinkRejects(): Promise<void> {
    for (const g of this.sinkGuards) {
      g.check();
      const routed = g.takeRouted();
      if (routed.length > 0) await this.writeDeadLetters(routed);
    }
  }

  /** Writes a batch's routed bad rows to the dead-letter sink, part by part. */
  private async writeDeadLetters(parts: Row[][]): Promise<void> {
    const { writer, vertexId } = this.deadLetter!;
    for (const part of parts) await this.clock.run('write', vertexId, () => writer.write(part));
  }

  /**
   * A restored task group commits again what it had prepared for the checkpoint it restores
   * from: the crash may have come between the checkpoint's completion and the commit.
   * Committers are idempotent, so a commit that did happen changes nothing.
   */
  private async recommitRestored(): Promise<void> {
    const pending = this.descriptor.restored?.pendingCommits;
    if (!pending) return;
    for (const s of this.sinks) {
      const infos = pending[s.vertexId];
      if (!s.committer || !infos || infos.length === 0) continue;
      const committer = s.committer;
      const retry = await this.clock.run('commit', s.vertexId, () => committer.commit(infos));
      if (retry.length > 0) throw new Error(`sink vertex ${s.vertexId} could not re-commit ${retry.length} transaction(s) after restore`);
    }
  }

  private setStage(stage: Stage, tables: readonly CatalogTable[]): void {
    for (const t of tables) this.currentTables.set(t.tableId, t);
    this.push = stage.rows;
    const inner = stage.schema;
    this.pushSchema = async (event) => {
      this.currentTables.set(event.tableId, event.table);
      await inner(event);
    };
  }

  /** A restored task group first tells its chain the tables' schemas as they were at the checkpoint. */
  private async replayRestoredSchemas(): Promise<void> {
    for (const table of this.descriptor.restored?.schemas ?? []) {
      const planned = this.currentTables.get(table.tableId);
      if (planned && JSON.stringify(planned) === JSON.stringify(table)) continue;
      // A table the plan lacks was created at the source while the job ran, before the checkpoint.
      const created = planned ? {} : { created: true };
      await this.pushSchema({ type: 'schema-change', tableId: table.tableId, changes: [], table, restored: true, ...created });
    }
  }

  /** Compiles the fused subtree below a vertex into one stage. */
  private compileChildren(children: ChainNode[]): Stage {
    const stages = children.map((c) => this.compileNode(c));
    if (stages.length === 0) return { rows: () => undefined, schema: async () => undefined };
    if (stages.length === 1) return stages[0];
    return {
      rows: async (rows) => {
        for (const p of stages) await p.rows(rows);
      },
      schema: async (event) => {
        for (const p of stages) await p.schema(event);
      },
    };
  }

  /** Adds the vertex's outgoing shuffles after its fused children. */
  private withShuffles(node: ChainNode, next: Stage): Stage {
    if (!node.shuffles || node.shuffles.length === 0) return next;
    const writers = node.shuffles.map((o) => new this.exchange!.ShuffleWriter(this.descriptor, o, this.busy));
    this.shuffles.push(...writers);
    return {
      rows: async (rows) => {
        await next.rows(rows);
        for (const w of writers) await w.write(rows);
      },
      schema: async (event) => {
        await next.schema(event);
        // Every downstream task group replays its own checkpointed schemas after a restore.
        if (!event.restored) for (const w of writers) await w.schemaChange(event);
      },
    };
  }

  private compileNode(node: ChainNode): Stage {
    const d = this.descriptor;
    const ctx = { jobId: d.jobId, jobMode: d.jobMode, parallelism: node.parallelism, inputTables: node.inputTables };
    if (node.plugin.type === 'transform') {
      const create = (c: typeof ctx) => createTransform(node.plugin, c, this.plugins);
      const evolving = new EvolvingTransform(create(ctx), ctx, create, node.plugin.name);
      this.transforms.push({
        outputTables: () => evolving.transform.outputTables(),
        transform: (rows) => evolving.transform.transform(rows),
        close: () => evolving.transform.close?.(),
      });
      const next = this.withShuffles(node, this.compileChildren(node.children));
      const policy = d.rowErrors;
      const guard = policy
        ? new RowErrorGuard(
            policy,
            d.jobId,
            node.vertexId,
            `transform ${node.plugin.name} (${node.plugin.file}:${node.plugin.line})`,
            d.restored?.rowErrors?.[node.vertexId],
            this.deadLetter && d.deadLetter ? { pluginName: node.plugin.name, tableId: d.deadLetter.table.tableId } : undefined,
          )
        : undefined;
      if (guard) this.rowGuards.set(node.vertexId, guard);
      const transform = (rows: readonly Row[]) => this.clock.run('transform', node.vertexId, () => evolving.transform.transform(rows));
      const onward = (out: Row[]) => (out.length > 0 ? next.rows(out) : undefined);
      return {
        rows: (rows) => {
          if (!guard) return onward(transform(rows));
          const out = guard.apply(rows, transform);
          const routed = guard.takeRouted();
          // The bad rows reach the dead-letter writer before the batch goes on, so before any barrier after it.
          return routed.length > 0 ? this.writeDeadLetters(routed).then(() => onward(out)) : onward(out);
        },
        schema: async (event) => {
          for (const e of evolving.evolve(event)) await next.schema(e);
        },
      };
    }
    if (node.plugin.type === 'sink') {
      const sink: Sink = createSink(node.plugin, ctx, this.plugins);
      const restoredStates = this.descriptor.restored?.writerStates[node.vertexId];
      const writer = sink.createWriter({ subtaskIndex: d.subtaskIndex, parallelism: node.parallelism }, restoredStates);
      const committer = sink.createCommitter?.();
      this.sinks.push({ vertexId: node.vertexId, writer, committer });
      const counters = this.counters;
      counters.registerSinkTables(node.inputTables);
      const guard = this.sinkGuard(node, writer);
      if (guard) {
        return {
          rows: async (rows) => {
            guard.saw(rows.length);
            // Counted first: a row the sink refuses (now or at a later flush) is taken off again.
            counters.countSink(rows);
            await this.clock.run('write', node.vertexId, () => writer.write(rows));
            await this.settleSinkRejects();
          },
          schema: (event) => {
            if (event.created) counters.registerSinkTables([event.table]);
            return applyToSink(writer, node.inputTables, node.plugin.name, event);
          },
        };
      }
      return {
        rows: (rows) => {
          const r = this.clock.run('write', node.vertexId, () => writer.write(rows));
          if (r instanceof Promise) {
            return r.then(() => {
              counters.countSink(rows);
            });
          }
          counters.countSink(rows);
        },
        schema: (event) => {
          if (event.created) counters.registerSinkTables([event.table]);
          return applyToSink(writer, node.inputTables, node.plugin.name, event);
        },
      };
    }
    throw new Error(`a ${node.plugin.type} cannot sit inside a task group's chain`);
  }

  /**
   * env.sink_error_handler (LOG or ROUTE): a guard that counts, logs and routes the rows the
   * sink's writer refuses for themselves (SinkWriter.handleRowErrors). A writer that cannot tell
   * them apart keeps failing the task on any error, as SeaTunnel's sinks without a row-level
   * classifier do; that is said once in the job's log.
   */
  private sinkGuard(node: ChainNode, writer: SinkWriter): RowErrorGuard | undefined {
    const d = this.descriptor;
    const policy = d.sinkRowErrors;
    if (!policy) return undefined;
    if (!writer.handleRowErrors) {
      if (d.subtaskIndex === 0)
        log.warn(
          { jobId: d.jobId, vertexId: node.vertexId },
          `sink ${node.plugin.name} (${node.plugin.file}:${node.plugin.line}) does not tell rows it refuses from its other errors: with ${policy.setBy} = ${policy.mode}, every error it meets still fails the task`,
        );
      return undefined;
    }
    const guard = new RowErrorGuard(
      policy,
      d.jobId,
      node.vertexId,
      `sink ${node.plugin.name} (${node.plugin.file}:${node.plugin.line})`,
      d.restored?.rowErrors?.[node.vertexId],
      this.deadLetter && d.deadLetter ? { pluginName: node.plugin.name, tableId: d.deadLetter.table.tableId } : undefined,
      'SINK',
    );
    this.rowGuards.set(node.vertexId, guard);
    this.sinkGuards.push(guard);
    writer.handleRowErrors((row, err) => {
      guard.reject(row, err);
      this.counters.uncountSink(row);
    });
    return guard;
  }

  private async loop(): Promise<void> {
    // The rows of this poll: a fresh array each poll, handed on whole (no splice copy).
    let batch: Row[] = [];
    const take = (): Row[] => {
      const rows = batch;
      batch = [];
      return rows;
    };
    /** Schema changes of this poll, each after the rows batch held when it came. */
    const changes: Array<{ rows: Row[]; event: SchemaChangeEvent }> = [];
    const collector: Collector = {
      collect: (row) => {
        batch.push(row);
      },
      collectBatch: (rows) => {
        // The reader's array is copied (it may reuse it), in one piece when it is the poll's first.
        if (batch.length === 0) batch = rows.slice();
        else for (let i = 0; i < rows.length; i++) batch.push(rows[i]);
      },
      collectSchemaChange: (event) => {
        changes.push({ rows: take(), event });
      },
    };
    let sliceStart = Date.now();
    let idleMs = 1;
    for (;;) {
      if (this.inbox.length > 0 && (await this.handleInbox())) return;
      if (!this.reader || this.readerDone || this.ending !== 'none') {
        // Waiting for input: batches through the shuffle, or control messages once the reader is done.
        await this.busy.waiting('idle', this.waitForMessage(MAX_IDLE_MS));
        this.maybeSendMetrics();
        continue;
      }
      if (this.limiter.active) {
        // read_limit: still ahead of the rate after a wait cut short by a control message (a
        // barrier, a commit): wait out the rest before reading more, or a source that returns
        // large polls (Kafka) would read at the rate of the checkpoints instead.
        const ahead = this.limiter.delayMs(0, 0);
        if (ahead > 0) {
          await this.busy.waiting('idle', this.waitForMessage(ahead));
          this.maybeSendMetrics();
          continue;
        }
      }
      const reader = this.reader;
      const p = this.clock.run('read', this.sourceVertexId, () => reader.pollNext(collector));
      if (p instanceof Promise) await p;
      for (const { rows, event } of changes.splice(0, changes.length)) {
        if (rows.length > 0) {
          this.counters.countSource(rows);
          const r = this.pushRows(rows);
          if (r instanceof Promise) await this.awaitPush(r);
        }
        await this.awaitPush(this.pushSchema(event));
        // A change the source saw now (not one replayed after a restore) goes to the job's event receivers.
        if (!event.restored)
          this.send({
            type: 'schema-change',
            tableId: event.tableId,
            changes: event.created ? [] : event.changes.map(describeColumnChange),
            created: event.created === true,
          });
      }
      if (batch.length > 0) {
        const rows = take();
        const bytes = this.counters.countSource(rows);
        const r = this.pushRows(rows);
        if (r instanceof Promise) await this.awaitPush(r);
        idleMs = 1;
        if (this.limiter.active) {
          // read_limit: wait out the excess, still answering barriers and commits meanwhile.
          const wait = this.limiter.delayMs(rows.length, bytes);
          if (wait > 0) await this.busy.waiting('idle', this.waitForMessage(wait));
        }
      } else if (!this.noMoreElementSignaled) {
        // Nothing to read now: back off a little, but wake for control messages at once.
        await this.busy.waiting('idle', this.waitForMessage(idleMs));
        idleMs = Math.min(MAX_IDLE_MS, idleMs * 2);
        sliceStart = Date.now();
      }
      this.eventLag.pushed();
      if (this.noMoreElementSignaled && !this.readerDone) await this.endOfData();
      const now = Date.now();
      this.maybeSendMetrics(now);
      if (now - sliceStart >= SLICE_MS) {
        await new Promise<void>((r) => setImmediate(r));
        sliceStart = Date.now();
      }
    }
  }

  /** Hands a poll's rows on: the task group's first FIRST_ROWS ahead of the rest. */
  private pushRows(rows: Row[]): void | Promise<void> {
    if (!this.firstRows) return this.push(rows);
    this.firstRows = false;
    if (rows.length <= FIRST_ROWS) return this.push(rows);
    const rest = rows.slice(FIRST_ROWS);
    const r = this.push(rows.slice(0, FIRST_ROWS));
    return r instanceof Promise ? r.then(() => this.push(rest)) : this.push(rest);
  }

  /**
   * Waits for a push while completing the checkpoints whose completion arrives meanwhile. A
   * sink writing its next transaction can block on row locks held by the transaction it
   * prepared for the previous checkpoint (XA upserts of the same keys, as CDC makes them); only
   * that checkpoint's commit releases them, so it must not queue behind the write. SeaTunnel
   * commits from another thread for the same reason. Savepoints and final checkpoints end the
   * task group: they wait for the push.
   */
  private async awaitPush(push: Promise<void>): Promise<void> {
    let settled = false;
    const done = push.finally(() => {
      settled = true;
    });
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === 'checkpoint-complete' && m.kind === 'CHECKPOINT');
      if (i >= 0) {
        const msg = this.inbox.splice(i, 1)[0] as Extract<ToTaskGroup, { type: 'checkpoint-complete' }>;
        await this.complete(msg.checkpointId, msg.kind);
        continue;
      }
      const arrived = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      await Promise.race([done, arrived]);
      this.wake = undefined;
      if (settled) return done;
    }
  }

  private waitForMessage(ms: number): Promise<void> {
    if (this.inbox.length > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** No more rows will come: tell the shuffles' receivers, then the coordinator. */
  private async endOfData(): Promise<void> {
    this.readerDone = true;
    for (const w of this.shuffles) await w.end();
    this.sendMetrics();
    this.send({ type: 'state', state: 'PREPARE_CLOSE' });
  }

  /** Processes a batch that came through a shuffle, then grants its channel a new credit. */
  private async processExchanged(channel: number, bytes: Uint8Array): Promise<void> {
    const rows = this.exchange!.decodeExchanged(bytes);
    const r = Array.isArray(rows) ? this.push(rows) : this.pushSchema(rows);
    if (r instanceof Promise) await this.awaitPush(r);
    this.inputQueued--;
    this.send({ type: 'exchange-credit', channel, batches: 1 });
  }

  /** Handles queued control messages; returns true when the task group has ended. */
  private async handleInbox(): Promise<boolean> {
    while (this.inbox.length > 0) {
      const msg = this.inbox.shift()!;
      switch (msg.type) {
        case 'splits':
          if (msg.splits.length > 0) this.reader?.addSplits(msg.splits as SourceSplit[]);
          if (msg.noMoreSplits) this.reader?.handleNoMoreSplits();
          break;
        case 'exchange-batch':
          if (this.gate!.offer(msg.channel, msg.rows)) await this.processExchanged(msg.channel, msg.rows);
          break;
        case 'exchange-barrier': {
          const aligned = this.gate!.onBarrier(msg.channel, msg.checkpointId, msg.kind);
          if (aligned) {
            await this.checkpoint(aligned.checkpointId, aligned.kind);
            for (const held of this.gate!.release()) await this.processExchanged(held.channel, held.rows);
          }
          break;
        }
        case 'exchange-end':
          if (this.gate!.onEnd(msg.channel)) await this.endOfData();
          break;
        case 'trigger-checkpoint':
          await this.checkpoint(msg.checkpointId, msg.kind);
          break;
        case 'checkpoint-complete':
          if (await this.complete(msg.checkpointId, msg.kind)) return true;
          break;
        case 'checkpoint-aborted':
          this.abortCheckpoint(msg.checkpointId);
          break;
        case 'cancel':
          this.ending = 'cancel';
          await this.closeQuietly(true);
          this.sendMetrics();
          this.send({ type: 'state', state: 'CANCELED' });
          return true;
        case 'start':
          break;
      }
    }
    return false;
  }

  /**
   * Snapshots the chain at a barrier and prepares the sinks' commits. The ACK carries every
   * commit info not yet committed, including those of earlier checkpoints that were aborted:
   * an aborted checkpoint does not throw prepared data away, the next completed one commits it
   * (committers are idempotent).
   */
  private async checkpoint(checkpointId: number, kind: CheckpointKind): Promise<void> {
    try {
      const state: TaskGroupState = { readerSplits: {}, writerStates: {} };
      if (this.currentTables.size > 0) state.schemas = [...this.currentTables.values()];
      const reader = this.reader;
      if (reader)
        state.readerSplits[this.sourceVertexId] = this.clock.run('checkpoint', this.sourceVertexId, () =>
          reader.snapshotState(checkpointId),
        );
      const prepared: CommitInfos = {};
      for (const s of this.sinks) {
        if (s === this.deadLetter) await this.settleSinkRejects();
        const w = s.writer;
        const info = w.prepareCommit ? await this.clock.run('checkpoint', s.vertexId, () => w.prepareCommit!(checkpointId)) : undefined;
        if (info !== undefined) prepared[s.vertexId] = [info];
        state.writerStates[s.vertexId] = this.clock.run('checkpoint', s.vertexId, () => w.snapshotState?.(checkpointId)) ?? [];
      }
      // After the sinks' prepareCommit, whose flush may have rejected rows (a limit passed fails the checkpoint).
      if (!this.deadLetter) await this.settleSinkRejects();
      if (this.rowGuards.size > 0) state.rowErrors = Object.fromEntries([...this.rowGuards].map(([v, g]) => [v, { ...g.counts }]));
      this.pendingCommits.set(checkpointId, prepared);
      const commitInfos = this.uncommitted(checkpointId);
      state.pendingCommits = commitInfos;
      if (kind !== 'CHECKPOINT') {
        // After a final barrier nothing more is read: the task group waits for the commit.
        this.ending = 'closing';
        this.endingCheckpoint = checkpointId;
      }
      // The barrier goes down every shuffle after the rows before it.
      for (const w of this.shuffles) await w.barrier(checkpointId, kind);
      this.sendMetrics();
      this.send({ type: 'checkpoint-ack', checkpointId, state, commitInfos });
    } catch (err) {
      // A snapshot or prepareCommit that throws leaves the task group in an unknown state: the
      // checkpoint is aborted and the task group fails, so the pipeline restarts from the last
      // completed checkpoint (retrying the same barrier forever would hang a bounded job).
      this.send({ type: 'checkpoint-failed', checkpointId, error: serializeError(err) });
      throw err;
    }
  }

  /** Every commit info prepared up to `checkpointId` and not yet committed, by sink vertex. */
  private uncommitted(checkpointId: number): CommitInfos {
    const all: CommitInfos = {};
    for (const [id, infos] of this.pendingCommits) {
      if (id > checkpointId) continue;
      for (const [vertex, list] of Object.entries(infos)) (all[Number(vertex)] ??= []).push(...list);
    }
    return all;
  }

  /** Commits what was prepared up to `checkpointId`; returns true when the task group ended. */
  private async complete(checkpointId: number, kind: CheckpointKind): Promise<boolean> {
    const infos = this.uncommitted(checkpointId);
    for (const id of [...this.pendingCommits.keys()]) if (id <= checkpointId) this.pendingCommits.delete(id);
    for (const s of this.sinks) {
      const own = infos[s.vertexId];
      const committer = s.committer;
      if (committer && own && own.length > 0) {
        const retry = await this.clock.run('commit', s.vertexId, () => committer.commit(own));
        if (retry.length > 0)
          throw new Error(
            `sink vertex ${s.vertexId} could not commit ${retry.length} prepared transaction(s) of checkpoint ${checkpointId}`,
          );
      }
    }
    const reader = this.reader;
    if (reader?.notifyCheckpointComplete)
      await this.clock.run('commit', this.sourceVertexId, () => reader.notifyCheckpointComplete!(checkpointId));
    if (kind !== 'CHECKPOINT' && checkpointId >= this.endingCheckpoint && this.ending === 'closing') {
      await this.closeAll();
      this.sendMetrics();
      this.send({ type: 'state', state: 'FINISHED' });
      return true;
    }
    return false;
  }

  /** A checkpoint was aborted: its prepared commits wait for the next completed checkpoint. */
  private abortCheckpoint(checkpointId: number): void {
    if (this.ending === 'closing' && checkpointId === this.endingCheckpoint) {
      // The final checkpoint failed: wait for the coordinator's next final barrier.
      this.ending = 'none';
      this.endingCheckpoint = -1;
    }
  }

  private async closeAll(): Promise<void> {
    for (const w of this.shuffles) w.close();
    const reader = this.reader;
    if (reader) await this.clock.run('close', this.sourceVertexId, () => reader.close());
    for (const t of this.transforms) t.close?.();
    for (const s of this.sinks) {
      if (s === this.deadLetter) await this.settleSinkRejects();
      await this.clock.run('close', s.vertexId, () => s.writer.close());
    }
    if (!this.deadLetter) await this.settleSinkRejects();
  }

  private async closeQuietly(abort: boolean): Promise<void> {
    const steps: Array<() => unknown> = [];
    for (const w of this.shuffles) steps.push(() => w.close());
    if (this.reader) steps.push(() => this.reader?.close());
    for (const t of this.transforms) steps.push(() => t.close?.());
    for (const s of this.sinks) {
      if (abort) steps.push(() => s.writer.abortPrepare?.());
      steps.push(() => s.writer.close());
    }
    for (const step of steps) {
      try {
        await step();
      } catch {
        // Closing after a failure or cancel: the first error is what gets reported.
      }
    }
  }

  private maybeSendMetrics(now = Date.now()): void {
    if (now - this.lastMetrics >= METRICS_INTERVAL_MS) this.sendMetrics(now);
  }

  private sendMetrics(now = Date.now()): void {
    this.lastMetrics = now;
    const metrics = this.counters.snapshot();
    const inputChannels = this.descriptor.input?.upstreamTaskGroups.length ?? 0;
    metrics.busyness = this.busy.sample(
      this.shuffles.reduce((m, w) => Math.max(m, w.usage()), 0),
      { batches: this.inputQueued, capacity: inputChannels * INITIAL_CREDITS },
    );
    const eventLag = this.eventLag.sample();
    if (eventLag !== undefined) metrics.busyness.eventTimeLagMs = eventLag;
    if (this.rowGuards.size > 0) metrics.badRows = Object.fromEntries([...this.rowGuards].map(([v, g]) => [v, g.counts.bad]));
    const lag = this.reader?.lag?.();
    if (lag && Object.keys(lag).length > 0) metrics.sourceLag = { ...lag };
    this.send({ type: 'metrics', metrics });
  }
}
