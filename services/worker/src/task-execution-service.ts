import * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceClient,
  type ExecutionState,
  type RunningTaskGroup as WireRunningTaskGroup,
  type SlotProfile,
  type TaskGroupLocation,
} from '@tideway/contracts';
import { detach, logger, rememberSecretsOf, serializeError, type SerializedError, backoffDelay, sleep } from '@tideway/common';
import { LeaderCaller, call, clientOptions, channelCredentials } from '@tideway/rpc';
import type { WorkerPluginPackages } from './plugin-packages.js';
import { SplitRequests } from './split-requests.js';
import {
  SpareTaskThread,
  TaskGroupThread,
  type CallLimits,
  WirePayloadError,
  commitInfosCodec,
  descriptorCodec,
  sourceEventCodec,
  splitCodec,
  taskGroupStateCodec,
  workerStateToWire,
  type CheckpointKind,
  type FromTaskGroup,
  type TaskGroupDescriptor,
  type TaskGroupState,
} from '@tideway/runtime';

/** How long a task group deployed from a checkpoint waits for its state (NotifyTaskRestore). */
const RESTORE_WAIT_MS = 60_000;

const log = logger('worker');

export interface RunningTaskGroup {
  location: TaskGroupLocation;
  slot: SlotProfile;
  thread: TaskGroupThread;
  /** Whether its reader still waits for splits (then split assignments are polled). */
  awaitingSplits: Map<number, boolean>;
  /** Its split requests, one at a time per source vertex (split-requests.ts). */
  splitRequests: SplitRequests;
  ended: boolean;
  /** Reports to the coordinator go out in order, one at a time. */
  reports: Promise<void>;
  epochMetadata: () => grpc.Metadata;
  /** The leader epoch of the coordinator that deployed it. */
  epoch: number;
  /**
   * WAITING_RESTORE: deployed from a checkpoint, its thread waits for the state that
   * NotifyTaskRestore brings (then it starts).
   */
  awaitingRestore?: { checkpointId: number; descriptor: TaskGroupDescriptor; timer: NodeJS.Timeout };
  /** Incoming shuffle channels, by upstream task group index: credits go back on them. */
  channels: Map<number, { grantCredits(batches: number): void }>;
}

export { SpareTaskThread };

/** The ids a log line about a task group carries, as the coordinator's lines name them. */
export function logFields(l: TaskGroupLocation): { jobId: string; pipelineId: number; taskGroup: number; attempt: number } {
  return { jobId: l.jobId, pipelineId: l.pipelineId, taskGroup: l.taskGroupIndex, attempt: l.attempt };
}

export function locationKey(l: TaskGroupLocation): string {
  return `${l.jobId}/${l.pipelineId}/${l.taskGroupIndex}`;
}

/**
 * SeaTunnel's TaskExecutionService: runs the task groups deployed to this worker, each in its
 * own worker thread, and relays their reports to the coordinator that deployed them.
 */
export class TaskExecutionService {
  private readonly groups = new Map<string, RunningTaskGroup>();
  /** Reports go to the leader among the coordinators, following redirects across fail-overs. */
  readonly leader: LeaderCaller<CoordinatorServiceClient>;
  /** The stored plugin packages this worker fetches and unpacks (set by the worker process). */
  pluginPackages?: WorkerPluginPackages;
  private splitPoller?: NodeJS.Timeout;
  constructor(
    coordinatorAddresses: readonly string[],
    /** Time limits of plugin calls in the task threads (tideway.plugin-call-timeout). */
    private readonly callLimits: CallLimits = {},
    /** A task thread started ahead, so a deploy need not wait for one to start (docs/decisions/0079). */
    private readonly spare = new SpareTaskThread(),
  ) {
    this.leader = new LeaderCaller(coordinatorAddresses, (a) => new CoordinatorServiceClient(a, channelCredentials(), clientOptions));
  }

  start(): void {
    this.splitPoller = setInterval(() => this.pollSplits(), 200);
    this.splitPoller.unref();
    this.spare.fill();
  }

  /** Slots this worker holds for running task groups (reported in heartbeats). */
  heldSlots(): SlotProfile[] {
    return [...this.groups.values()].filter((g) => !g.ended).map((g) => g.slot);
  }

  runningCount(): number {
    return [...this.groups.values()].filter((g) => !g.ended).length;
  }

  /** The running task groups, as a new leader asks for them. */
  running(): WireRunningTaskGroup[] {
    return [...this.groups.values()]
      .filter((g) => !g.ended)
      .map((g) => ({
        location: g.location,
        slot: g.slot,
        state: workerStateToWire(g.awaitingRestore ? 'WAITING_RESTORE' : 'RUNNING'),
        epoch: g.epoch,
      }));
  }

  /** Cancels every running task group (no leader was heard from for too long). */
  cancelAll(reason: string): number {
    const running = [...this.groups.values()].filter((g) => !g.ended);
    for (const g of running) this.cancel(g.location, reason);
    return running.length;
  }

  /**
   * Starts a task group. An older attempt of it still running here (its coordinator died before
   * it could cancel it) is cancelled first, and the new one starts only once the old one has
   * stopped, so that the two never write side by side.
   */
  async deploy(
    location: TaskGroupLocation,
    slot: SlotProfile,
    descriptorBytes: Buffer,
    epochMetadata: () => grpc.Metadata,
    epoch = 0,
    restoreCheckpointId = 0,
  ): Promise<void> {
    // A descriptor this worker cannot read fails the deploy before anything here changes.
    const descriptor = descriptorCodec.decode(descriptorBytes);
    // Stored plugin packages: fetched, verified and unpacked before anything here changes (a
    // refusal fails the deploy, naming the package).
    if (descriptor.pluginPackages?.length) {
      if (!this.pluginPackages) throw new Error('this worker keeps no plugin packages (it was started without a cache folder)');
      await this.pluginPackages.ensure(descriptor.pluginPackages);
    }
    const key = locationKey(location);
    const existing = this.groups.get(key);
    if (existing && !existing.ended) {
      if (existing.location.attempt >= location.attempt)
        throw new Error(`task group ${key} attempt ${existing.location.attempt} is already running`);
      this.cancel(existing.location, 'superseded by a newer attempt', 5000);
      for (const until = Date.now() + 6000; !existing.ended && Date.now() < until; ) await sleep(20);
      if (this.groups.get(key) !== existing) throw new Error(`task group ${key} was deployed again meanwhile`);
    }
    // The worker's own logs and errors mask the job's passwords from here on.
    rememberSecretsOf(descriptor.root);
    const group: RunningTaskGroup = {
      location,
      slot,
      awaitingSplits: new Map(),
      splitRequests: new SplitRequests(),
      ended: false,
      reports: Promise.resolve(),
      epochMetadata,
      epoch,
      channels: new Map(),
      thread: undefined as unknown as TaskGroupThread,
    };
    group.thread = new TaskGroupThread(
      descriptor,
      (msg) => this.onThreadMessage(group, msg),
      (code, error) => {
        // The next task group finds a thread started ahead again (unless the worker stops first).
        this.spare.fillSoon();
        if (!group.ended) {
          // The thread died without reporting an end (a crash, or terminate()).
          group.ended = true;
          const err: SerializedError = serializeError(error ?? new Error(`task group thread exited with code ${code}`));
          this.report(group, (c) => this.sendState(c, group, workerStateToWire('FAILED'), err));
        }
      },
      restoreCheckpointId === 0,
      this.callLimits,
      this.spare,
    );
    if (restoreCheckpointId > 0) {
      const timer = setTimeout(() => {
        if (!group.awaitingRestore || group.ended) return;
        group.awaitingRestore = undefined;
        group.ended = true;
        detach(group.thread.terminate(), 'stopping a task group thread');
        const message = `no state to restore from checkpoint ${restoreCheckpointId} arrived within ${RESTORE_WAIT_MS / 1000} s`;
        log.warn({ ...logFields(location), checkpointId: restoreCheckpointId }, message);
        this.report(group, (c) => this.sendState(c, group, workerStateToWire('FAILED'), { code: 'TW-TASK-001', message, retryable: true }));
      }, RESTORE_WAIT_MS);
      timer.unref();
      group.awaitingRestore = { checkpointId: restoreCheckpointId, descriptor, timer };
    }
    this.groups.set(key, group);
    log.info({ ...logFields(location), slot: slot.slotId }, 'task group deployed');
  }

  private onThreadMessage(group: RunningTaskGroup, msg: FromTaskGroup): void {
    switch (msg.type) {
      case 'state': {
        if (msg.state === 'FINISHED' || msg.state === 'FAILED' || msg.state === 'CANCELED') {
          group.ended = true;
          const fields = { ...logFields(group.location), state: msg.state, err: msg.error?.message };
          if (msg.state === 'FAILED') log.warn(fields, 'task group ended');
          else log.info(fields, 'task group ended');
        }
        const state = workerStateToWire(msg.state);
        this.report(group, (c) => this.sendState(c, group, state, msg.error));
        break;
      }
      case 'split-request':
        group.awaitingSplits.set(msg.sourceVertexId, true);
        detach(
          group.splitRequests.enqueue(msg.sourceVertexId, () => this.requestSplits(group, msg.sourceVertexId, msg.register, !msg.register)),
          'requesting splits',
        );
        break;
      case 'source-event':
        detach(
          group.splitRequests.enqueue(msg.sourceVertexId, () => this.requestSplits(group, msg.sourceVertexId, false, false, [msg.event])),
          'sending a source event',
        );
        break;
      case 'exchange-credit':
        group.channels.get(msg.channel)?.grantCredits(msg.batches);
        break;
      case 'metrics':
        this.report(group, (c) =>
          call(
            c,
            'reportMetrics',
            {
              location: group.location,
              tables: msg.metrics.tables.map((t) => ({
                ...t,
                sourceReceivedQps: 0,
                sinkWriteQps: 0,
                sourceReceivedBytesPerSecond: 0,
                sinkWriteBytesPerSecond: 0,
              })),
              busyness: msg.metrics.busyness && {
                ...msg.metrics.busyness,
                pipelineId: group.location.pipelineId,
                taskGroupIndex: group.location.taskGroupIndex,
                workerAddress: '',
                vertexIds: [],
              },
              sourceLag: msg.metrics.sourceLag ?? {},
              badRows: msg.metrics.badRows ?? {},
            },
            { metadata: group.epochMetadata(), deadlineMs: 10_000 },
          ).then(() => undefined),
        );
        break;
      case 'schema-change':
        this.report(group, (c) =>
          call(
            c,
            'reportSchemaChange',
            { location: group.location, tableId: msg.tableId, changes: msg.changes, created: msg.created },
            { metadata: group.epochMetadata(), deadlineMs: 10_000 },
          ).then(() => undefined),
        );
        break;
      case 'checkpoint-ack':
        this.report(group, (c) =>
          call(
            c,
            'acknowledgeCheckpoint',
            {
              location: group.location,
              checkpointId: msg.checkpointId,
              state: taskGroupStateCodec.encode(msg.state),
              commitInfos: commitInfosCodec.encode(msg.commitInfos),
              error: undefined,
            },
            { metadata: group.epochMetadata(), deadlineMs: 30_000 },
          ).then(() => undefined),
        );
        break;
      case 'checkpoint-failed':
        this.report(group, (c) =>
          call(
            c,
            'acknowledgeCheckpoint',
            {
              location: group.location,
              checkpointId: msg.checkpointId,
              state: Buffer.alloc(0),
              commitInfos: Buffer.alloc(0),
              error: msg.error,
            },
            { metadata: group.epochMetadata(), deadlineMs: 30_000 },
          ).then(() => undefined),
        );
        break;
    }
  }

  /**
   * Queues a report so they reach the leader in order. It follows the leader across a
   * fail-over and retries while no coordinator answers; a report finally given up is logged,
   * never dropped silently.
   */
  private report(group: RunningTaskGroup, send: (c: CoordinatorServiceClient) => Promise<void>): void {
    group.reports = group.reports.then(async () => {
      for (let attempt = 0; attempt < 10; attempt++) {
        try {
          await this.leader.call((c) => send(c), 30_000);
          return;
        } catch (err) {
          const retryable = (err as { retryable?: boolean }).retryable;
          if (!retryable) {
            log.warn({ err, ...logFields(group.location) }, 'report to coordinator rejected');
            return;
          }
          await sleep(backoffDelay(attempt, 100, 3000));
        }
      }
      log.warn({ ...logFields(group.location), coordinators: this.leader.known }, 'gave up a report: no coordinator answered for minutes');
    });
  }

  private async sendState(
    c: CoordinatorServiceClient,
    group: RunningTaskGroup,
    state: ExecutionState,
    error?: SerializedError,
  ): Promise<void> {
    await call(
      c,
      'reportTaskState',
      {
        location: group.location,
        state,
        error: error ? { code: error.code, message: error.message, retryable: error.retryable } : undefined,
      },
      { metadata: group.epochMetadata(), deadlineMs: 10_000 },
    );
  }

  private async requestSplits(
    group: RunningTaskGroup,
    sourceVertexId: number,
    register: boolean,
    request: boolean,
    events: unknown[] = [],
  ): Promise<void> {
    try {
      const res = await this.leader.call(
        (c) =>
          call(
            c,
            'requestSplits',
            {
              location: group.location,
              sourceVertexId,
              subtaskIndex: group.location.taskGroupIndex,
              register,
              request,
              events: events.map((e) => sourceEventCodec.encode(e)),
            },
            { metadata: group.epochMetadata(), deadlineMs: 10_000 },
          ),
        5000,
      );
      if (res.noMoreSplits) group.awaitingSplits.set(sourceVertexId, false);
      if (res.splits.length > 0 || res.noMoreSplits) {
        group.thread.post({
          type: 'splits',
          sourceVertexId,
          splits: res.splits.map((b) => splitCodec.decode(b)),
          noMoreSplits: res.noMoreSplits,
        });
      }
    } catch (err) {
      if (err instanceof WirePayloadError && !group.ended) {
        // Splits the coordinator handed over but this worker cannot read (another wire format):
        // the task group fails, and its pipeline restores them from its last checkpoint.
        group.ended = true;
        detach(group.thread.terminate(), 'stopping a task group thread');
        log.warn({ err, ...logFields(group.location) }, 'splits from the coordinator do not decode; task group failed');
        this.report(group, (c) => this.sendState(c, group, workerStateToWire('FAILED'), err.toJSON()));
        return;
      }
      log.debug({ err, ...logFields(group.location) }, 'split request failed; polled again');
    }
  }

  /** Readers that have not been told "no more splits" get assignments made since by polling. */
  private pollSplits(): void {
    for (const g of this.groups.values()) {
      if (g.ended) continue;
      for (const [vertex, waiting] of g.awaitingSplits)
        if (waiting && !g.splitRequests.busy(vertex))
          detach(
            g.splitRequests.enqueue(vertex, () => this.requestSplits(g, vertex, false, false)),
            'requesting splits',
          );
    }
  }

  /**
   * A restored task group's state (NotifyTaskRestore): it leaves WAITING_RESTORE and starts.
   * The checkpoint must be the one it was deployed to restore from.
   */
  restore(location: TaskGroupLocation, checkpointId: number, state: TaskGroupState | undefined): void {
    const g = this.require(location);
    const waiting = g.awaitingRestore;
    if (!waiting) throw new Error(`task group ${locationKey(location)} attempt ${location.attempt} is not waiting for a restore`);
    if (waiting.checkpointId !== checkpointId) {
      throw new Error(`task group ${locationKey(location)} waits for the state of checkpoint ${waiting.checkpointId}, not ${checkpointId}`);
    }
    clearTimeout(waiting.timer);
    g.awaitingRestore = undefined;
    g.thread.start({ ...waiting.descriptor, restored: state });
    log.debug({ ...logFields(location), checkpointId }, 'task group restored');
  }

  /** The running task group a shuffle channel is for, waiting a little while it deploys. */
  async awaitRunning(location: TaskGroupLocation, timeoutMs: number): Promise<RunningTaskGroup | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const g = this.get(location);
      if (g && !g.ended && g.thread.isStarted) return g;
      if (Date.now() > until || (g && g.ended)) return undefined;
      await sleep(20);
    }
  }

  get(location: TaskGroupLocation): RunningTaskGroup | undefined {
    const g = this.groups.get(locationKey(location));
    return g && g.location.attempt === location.attempt ? g : undefined;
  }

  triggerCheckpoint(location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): void {
    this.require(location).thread.post({ type: 'trigger-checkpoint', checkpointId, kind });
  }

  notifyComplete(location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): void {
    this.require(location).thread.post({ type: 'checkpoint-complete', checkpointId, kind });
  }

  notifyAborted(location: TaskGroupLocation, checkpointId: number): void {
    this.require(location).thread.post({ type: 'checkpoint-aborted', checkpointId });
  }

  /** Cancels a task group; kills its thread if it has not ended within `graceMs`. */
  cancel(location: TaskGroupLocation, reason: string, graceMs = 10_000): void {
    const g = this.groups.get(locationKey(location));
    // A cancel names its attempt: a late one for an older attempt never stops a newer one.
    if (!g || g.ended || g.location.attempt !== location.attempt) return;
    g.thread.post({ type: 'cancel', reason });
    setTimeout(() => {
      if (!g.ended) {
        log.warn(logFields(location), 'task group did not stop after cancel; terminating its thread');
        g.ended = true;
        detach(
          g.thread.terminate().then(() => this.report(g, (c) => this.sendState(c, g, workerStateToWire('CANCELED')))),
          'stopping a task group thread',
        );
      }
    }, graceMs).unref();
  }

  private require(location: TaskGroupLocation): RunningTaskGroup {
    const g = this.get(location);
    if (!g || g.ended) throw new Error(`task group ${locationKey(location)} attempt ${location.attempt} is not running on this worker`);
    return g;
  }

  async stop(): Promise<void> {
    if (this.splitPoller) clearInterval(this.splitPoller);
    await Promise.all([...this.groups.values()].map((g) => g.thread.terminate()).concat(this.spare.close()));
    this.leader.close();
  }

  /** Forgets ended task groups (keeps memory flat over many jobs). */
  prune(): void {
    for (const [k, g] of this.groups) if (g.ended) this.groups.delete(k);
  }
}
