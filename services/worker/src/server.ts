import { getHeapStatistics } from 'node:v8';
import { randomUUID } from 'node:crypto';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import {
  DataExchangeService,
  checkpointKindFromWire,
  ResourceManagerServiceClient,
  WorkerServiceService,
  type Ack,
  type CancelTaskRequest,
  type CheckpointNotification,
  type DeployTaskRequest,
  type GetJobLogsRequest,
  type GetJobLogsResponse,
  type ListTaskGroupsResponse,
  type NotifyTaskRestoreRequest,
  type ProcessPluginPackages,
  type TriggerCheckpointRequest,
  type WorkerProfile,
} from '@tideway/contracts';
import { detach, backoffDelay, logger, processHealth, readLocalJobLogs, sleep } from '@tideway/common';
import { EpochGuard, TidewayServer, call, clientOptions, epochMetadata, channelCredentials, unaryHandler, required } from '@tideway/rpc';
import { dataExchangeHandlers, taskGroupStateCodec, type CallLimits, type SpareTaskThread } from '@tideway/runtime';
import { TaskExecutionService } from './task-execution-service.js';
import { processPluginCache } from '@tideway/plugins/lazy';
import { WorkerPluginPackages } from './plugin-packages.js';

const log = logger('worker');
const OK: Ack = { ok: true, error: undefined };

export interface WorkerOptions {
  host: string;
  port: number;
  /** Address other processes use to reach this worker (defaults to host:port). */
  advertisedAddress?: string;
  resourceManagerAddress: string;
  /** Every coordinator's address: reports go to the leader among them. */
  coordinatorAddresses: readonly string[];
  workerId?: string;
  dynamicSlot: boolean;
  slotNum: number;
  attributes: Record<string, string>;
  heartbeatIntervalMs: number;
  /**
   * With task groups running and no word from a leader for this long, the worker cancels them
   * and frees their slots (tideway.worker.leader-loss-timeout): a cluster whose coordinators
   * all died stops cleanly instead of running orphans. 0 never does.
   */
  leaderLossTimeoutMs?: number;
  /** Milliseconds each kind of plugin call may run in a task thread (tideway.plugin-call-timeout); absent: no limit. */
  pluginCallTimeout?: CallLimits;
  /**
   * The worker's spare task thread, when its starter began it earlier (local mode starts it
   * before the other services, so it has their start-up time to load); the worker owns it.
   */
  spareTaskThread?: SpareTaskThread;
  /**
   * Where stored plugin packages are unpacked, one folder per sha256
   * (jar-storage.connector-jar-storage-path); empty or absent: a folder of this process's own,
   * removed when it stops.
   */
  pluginCacheDir?: string;
}

/**
 * A worker process's services: WorkerService over gRPC, task execution in worker threads, and
 * registration plus heartbeats with the resource manager (which learns the slots held here).
 */
export class WorkerServer {
  readonly workerId: string;
  readonly tasks: TaskExecutionService;
  private readonly server = new TidewayServer();
  private readonly epochs: EpochGuard;
  private rm?: ResourceManagerServiceClient;
  private heartbeatTimer?: NodeJS.Timeout;
  private leaderTimer?: NodeJS.Timeout;
  /** When a leader last answered or called (ms since epoch). */
  private lastLeaderContact = Date.now();
  /** Whether the last report of the task groups to a leader failed. */
  private leaderLost = false;
  private stopped = false;
  private registered = false;
  /** What waitRegistered calls wait on: called once the resource manager accepted this worker. */
  private readonly onRegistered: (() => void)[] = [];
  /** Whether the last heartbeat failed (the resource manager is away). */
  private heartbeatLost = false;
  /** An operator drains this worker (as the resource manager said in the last heartbeat). */
  private drainRequested = false;
  /** The worker drains because it is stopping (drainBeforeStop). */
  private stopping = false;
  port = 0;

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? randomUUID();
    this.tasks = new TaskExecutionService(options.coordinatorAddresses, options.pluginCallTimeout, options.spareTaskThread);
    this.tasks.pluginPackages = new WorkerPluginPackages(
      this.tasks.leader,
      options.pluginCacheDir || processPluginCache(),
      !options.pluginCacheDir,
    );
    this.epochs = new EpochGuard((epoch, address) => {
      log.info({ epoch, leader: address }, 'a new leader coordinator');
      this.tasks.leader.noteLeader(address);
    });
  }

  get address(): string {
    return this.options.advertisedAddress ?? `${this.options.host}:${this.port}`;
  }

  async start(): Promise<string> {
    const t = this.tasks;
    this.server.add('tideway.v1.WorkerService', WorkerServiceService, {
      deployTask: unaryHandler<DeployTaskRequest, Ack>(async (req, c) => {
        this.epochs.check(c.metadata);
        const epoch = this.epochs.current;
        await t.deploy(
          required(req.location, 'location'),
          required(req.slot, 'slot'),
          req.descriptor,
          () => epochMetadata(epoch),
          epoch,
          req.restoreCheckpointId,
        );
        return OK;
      }),
      listTaskGroups: unaryHandler<object, ListTaskGroupsResponse>((_req, c) => {
        this.epochs.check(c.metadata);
        return { workerId: this.workerId, taskGroups: t.running() };
      }),
      // Read-only: any coordinator (a follower too) may ask, without the leader's epoch.
      readJobLogs: unaryHandler<GetJobLogsRequest, GetJobLogsResponse>((req) => readLocalJobLogs(req)),
      // Read-only, for tideway plugins list (any coordinator asks).
      listLoadedPluginPackages: unaryHandler<object, ProcessPluginPackages>(() => ({
        process: 'worker',
        address: this.address,
        loaded: [...(t.pluginPackages?.loaded.values() ?? [])],
        error: '',
      })),
      notifyTaskRestore: unaryHandler<NotifyTaskRestoreRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.restore(required(req.location, 'location'), req.checkpointId, taskGroupStateCodec.decodeOptional(req.state));
        return OK;
      }),
      triggerCheckpoint: unaryHandler<TriggerCheckpointRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.triggerCheckpoint(required(req.location, 'location'), req.checkpointId, checkpointKindFromWire(req.type));
        return OK;
      }),
      notifyCheckpointComplete: unaryHandler<CheckpointNotification, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.notifyComplete(required(req.location, 'location'), req.checkpointId, checkpointKindFromWire(req.type));
        return OK;
      }),
      notifyCheckpointAborted: unaryHandler<CheckpointNotification, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.notifyAborted(required(req.location, 'location'), req.checkpointId);
        return OK;
      }),
      cancelTask: unaryHandler<CancelTaskRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.cancel(required(req.location, 'location'), req.reason);
        return OK;
      }),
    });
    this.server.add('tideway.v1.DataExchange', DataExchangeService, dataExchangeHandlers(t));
    this.port = await this.server.listen(this.options.host, this.options.port);
    t.start();
    // Reconnect at least once per heartbeat: a restarted resource manager must hear from this
    // worker (and the slots it holds) within its registry-rebuild window, whatever gRPC's
    // default reconnect backoff (up to two minutes) would say.
    const reconnectMs = Math.max(100, this.options.heartbeatIntervalMs);
    this.rm = new ResourceManagerServiceClient(this.options.resourceManagerAddress, channelCredentials(), {
      ...clientOptions,
      'grpc.initial_reconnect_backoff_ms': Math.min(1000, reconnectMs),
      'grpc.max_reconnect_backoff_ms': reconnectMs,
    });
    detach(this.registerLoop(), 'registering with the resource manager');
    this.scheduleLeaderReport();
    return this.address;
  }

  private scheduleLeaderReport(): void {
    this.leaderTimer = setTimeout(() => detach(this.reportToLeader(), 'reporting to the leader'), this.options.heartbeatIntervalMs);
    this.leaderTimer.unref();
  }

  /**
   * While task groups run: tells the leader which (it cancels orphans of earlier leaders), and
   * stops them all when no leader has been heard from for leader-loss-timeout.
   */
  private async reportToLeader(): Promise<void> {
    if (this.stopped) return;
    const running = this.tasks.running();
    const now = Date.now();
    if (running.length === 0) {
      this.lastLeaderContact = now;
    } else {
      try {
        const c = this.tasks.leader;
        await c.call(
          (client) =>
            call(
              client,
              'reportTaskGroups',
              { workerId: this.workerId, workerAddress: this.address, taskGroups: running },
              { deadlineMs: Math.max(1000, this.options.heartbeatIntervalMs) },
            ),
          Math.max(1000, this.options.heartbeatIntervalMs),
        );
        if (this.leaderLost) log.info({ leader: c.leader }, 'a leader coordinator answers again');
        this.leaderLost = false;
        this.lastLeaderContact = Date.now();
      } catch (err) {
        if (!this.leaderLost)
          log.warn({ err: (err as Error).message, coordinators: this.tasks.leader.known }, 'no leader coordinator answers');
        this.leaderLost = true;
      }
      const silentMs = Date.now() - Math.max(this.lastLeaderContact, this.epochs.lastLeaderCallMs);
      const limit = this.options.leaderLossTimeoutMs ?? 0;
      if (limit > 0 && silentMs > limit) {
        const n = this.tasks.cancelAll(`no leader coordinator for ${silentMs} ms (tideway.worker.leader-loss-timeout ${limit} ms)`);
        log.warn({ taskGroups: n, silentMs, limit }, 'no leader coordinator: cancelled every task group and freed their slots');
        this.lastLeaderContact = Date.now();
      }
    }
    if (!this.stopped) this.scheduleLeaderReport();
  }

  /**
   * The readiness probe's answer: ready once the resource manager has accepted this worker and
   * while its heartbeats get through; not ready before, while they fail, and once it stops.
   */
  readiness(): { ready: boolean; reason: string } {
    const rm = this.options.resourceManagerAddress;
    if (this.stopped) return { ready: false, reason: 'the worker is stopping' };
    if (this.stopping) return { ready: false, reason: 'the worker is stopping: it drains (its task groups move to other workers)' };
    if (this.drainRequested) return { ready: false, reason: 'the worker drains (tideway cluster drain): no new slots; undrain ends it' };
    if (!this.registered) return { ready: false, reason: `not yet registered with the resource manager at ${rm}` };
    if (this.heartbeatLost) return { ready: false, reason: `heartbeats to the resource manager at ${rm} fail` };
    return { ready: true, reason: `registered with the resource manager at ${rm}` };
  }

  /** Resolves once the resource manager has accepted this worker (at that moment: local mode's start waits on it). */
  waitRegistered(timeoutMs = 30_000): Promise<void> {
    if (this.registered) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const registered = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.onRegistered.splice(this.onRegistered.indexOf(registered), 1);
        reject(new Error(`worker ${this.address} could not register with the resource manager at ${this.options.resourceManagerAddress}`));
      }, timeoutMs);
      this.onRegistered.push(registered);
    });
  }

  profile(): WorkerProfile {
    const heap = getHeapStatistics();
    return {
      workerId: this.workerId,
      address: this.address,
      cpuCores: cpus().length,
      memoryMb: Math.round(totalmem() / 1048576),
      freeMemoryMb: Math.round(freemem() / 1048576),
      systemLoad: loadavg()[0] ?? 0,
      attributes: this.options.attributes,
      dynamicSlot: this.options.dynamicSlot,
      slotNum: this.options.slotNum,
      assignedSlots: this.tasks.heldSlots(),
      draining: this.drainRequested || this.stopping,
      stopping: this.stopping,
      heapUsedBytes: heap.used_heap_size,
      heapTotalBytes: heap.total_heap_size,
      heapMaxBytes: heap.heap_size_limit,
      health: processHealth(),
    };
  }

  /**
   * A stop with a drain first (SIGTERM): the worker tells the resource manager it is stopping
   * (no new slot is granted here, and the leader moves its task groups away at their next
   * checkpoint), then waits until it holds no slot, at most `graceMs`. Resolves whether it
   * emptied in time; the caller stops it either way.
   */
  async drainBeforeStop(graceMs: number, progress?: (slots: number) => void): Promise<boolean> {
    this.stopping = true;
    const until = Date.now() + graceMs;
    log.info({ graceMs, slots: this.tasks.heldSlots().length }, 'stopping: draining first');
    if (this.registered) await this.heartbeat(false);
    let last = -1;
    for (;;) {
      this.tasks.prune();
      const held = this.tasks.heldSlots().length;
      if (held !== last) progress?.(held);
      last = held;
      if (held === 0) return true;
      if (Date.now() >= until) {
        log.warn({ graceMs, slots: held }, 'the drain grace period ended with slots still held: stopping anyway');
        return false;
      }
      await sleep(Math.min(200, Math.max(1, until - Date.now())));
    }
  }

  private async registerLoop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        await call(this.rm!, 'registerWorker', { profile: this.profile() }, { deadlineMs: 5000 });
        this.registered = true;
        for (const registered of this.onRegistered.splice(0)) registered();
        break;
      } catch (err) {
        if (attempt === 3) log.warn({ rm: this.options.resourceManagerAddress }, 'waiting for the resource manager');
        await sleep(backoffDelay(attempt++, 50, 2000));
      }
    }
    if (!this.stopped) this.scheduleHeartbeat();
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer = setTimeout(() => detach(this.heartbeat(), 'a heartbeat'), this.options.heartbeatIntervalMs);
    this.heartbeatTimer.unref();
  }

  private async heartbeat(reschedule = true): Promise<void> {
    if (this.stopped) return;
    try {
      this.tasks.prune();
      const res = await call(this.rm!, 'heartbeat', { profile: this.profile() }, { deadlineMs: 5000 });
      if (res.known && res.draining !== this.drainRequested) {
        log.info({ draining: res.draining }, res.draining ? 'draining' : 'drain ended');
        this.drainRequested = res.draining;
      }
      if (!res.known) {
        // The resource manager restarted: register again, reporting the slots held here.
        const profile = this.profile();
        await call(this.rm!, 'registerWorker', { profile }, { deadlineMs: 5000 });
        log.info(
          { rm: this.options.resourceManagerAddress, heldSlots: profile.assignedSlots.length },
          'registered again with the resource manager',
        );
      }
      if (this.heartbeatLost) log.info({ rm: this.options.resourceManagerAddress }, 'the resource manager answers heartbeats again');
      this.heartbeatLost = false;
    } catch (err) {
      // Said once per outage; heartbeats go on every interval meanwhile.
      if (!this.heartbeatLost)
        log.warn(
          { rm: this.options.resourceManagerAddress, err: (err as Error).message },
          'waiting for the resource manager: heartbeats fail',
        );
      this.heartbeatLost = true;
    }
    if (!this.stopped && reschedule) this.scheduleHeartbeat();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    if (this.leaderTimer) clearTimeout(this.leaderTimer);
    await this.tasks.stop();
    this.tasks.pluginPackages?.close();
    this.rm?.close();
    await this.server.close(500);
  }
}
