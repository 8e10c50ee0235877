import { randomUUID } from 'node:crypto';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { deserialize } from 'node:v8';
import {
  DataExchangeService,
  ResourceManagerServiceClient,
  WorkerServiceService,
  type Ack,
  type CancelTaskRequest,
  type CheckpointNotification,
  type DeployTaskRequest,
  type NotifyTaskRestoreRequest,
  type TriggerCheckpointRequest,
  type WorkerProfile,
} from '@tideway/contracts';
import { backoffDelay, logger, sleep } from '@tideway/common';
import { EpochGuard, TidewayServer, call, clientOptions, epochMetadata, insecure, unaryHandler } from '@tideway/rpc';
import type { TaskGroupState } from '@tideway/runtime';
import { TaskExecutionService, checkpointKind } from './task-execution-service.js';
import { dataExchangeHandlers } from './data-exchange-service.js';

const log = logger('worker');
const OK: Ack = { ok: true, error: undefined };

export interface WorkerOptions {
  host: string;
  port: number;
  /** Address other processes use to reach this worker (defaults to host:port). */
  advertisedAddress?: string;
  resourceManagerAddress: string;
  coordinatorAddress: string;
  workerId?: string;
  dynamicSlot: boolean;
  slotNum: number;
  attributes: Record<string, string>;
  heartbeatIntervalMs: number;
}

/**
 * A worker process's services: WorkerService over gRPC, task execution in worker threads, and
 * registration plus heartbeats with the resource manager (which learns the slots held here).
 */
export class WorkerServer {
  readonly workerId: string;
  readonly tasks: TaskExecutionService;
  private readonly server = new TidewayServer();
  private readonly epochs = new EpochGuard();
  private rm?: ResourceManagerServiceClient;
  private heartbeatTimer?: NodeJS.Timeout;
  private stopped = false;
  private registered = false;
  /** Whether the last heartbeat failed (the resource manager is away). */
  private heartbeatLost = false;
  port = 0;

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? randomUUID();
    this.tasks = new TaskExecutionService(() => this.options.coordinatorAddress);
  }

  get address(): string {
    return this.options.advertisedAddress ?? `${this.options.host}:${this.port}`;
  }

  async start(): Promise<string> {
    const t = this.tasks;
    this.server.add('tideway.v1.WorkerService', WorkerServiceService, {
      deployTask: unaryHandler<DeployTaskRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        const epoch = this.epochs.current;
        t.deploy(req.location!, req.slot!, req.descriptor, () => epochMetadata(epoch));
        return OK;
      }),
      notifyTaskRestore: unaryHandler<NotifyTaskRestoreRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        // Restore state travels with DeployTask in this version; this call re-sends it for a
        // task group that is already deployed and waiting.
        const state = req.state.length > 0 ? (deserialize(req.state) as TaskGroupState) : undefined;
        if (!t.get(req.location!)) throw new Error(`task group ${req.location!.jobId}/${req.location!.pipelineId}/${req.location!.taskGroupIndex} is not deployed here`);
        log.debug({ checkpointId: req.checkpointId, hasState: state !== undefined }, 'restore notified');
        return OK;
      }),
      triggerCheckpoint: unaryHandler<TriggerCheckpointRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.triggerCheckpoint(req.location!, req.checkpointId, checkpointKind(req.type));
        return OK;
      }),
      notifyCheckpointComplete: unaryHandler<CheckpointNotification, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.notifyComplete(req.location!, req.checkpointId, checkpointKind(req.type));
        return OK;
      }),
      notifyCheckpointAborted: unaryHandler<CheckpointNotification, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.notifyAborted(req.location!, req.checkpointId);
        return OK;
      }),
      cancelTask: unaryHandler<CancelTaskRequest, Ack>((req, c) => {
        this.epochs.check(c.metadata);
        t.cancel(req.location!, req.reason);
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
    this.rm = new ResourceManagerServiceClient(this.options.resourceManagerAddress, insecure, {
      ...clientOptions,
      'grpc.initial_reconnect_backoff_ms': Math.min(1000, reconnectMs),
      'grpc.max_reconnect_backoff_ms': reconnectMs,
    });
    void this.registerLoop();
    return this.address;
  }

  /** Resolves once the resource manager has accepted this worker. */
  async waitRegistered(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.registered) {
      if (Date.now() > until) throw new Error(`worker ${this.address} could not register with the resource manager at ${this.options.resourceManagerAddress}`);
      await sleep(20);
    }
  }

  profile(): WorkerProfile {
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
    };
  }

  private async registerLoop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        await call(this.rm!.registerWorker, this.rm!, { profile: this.profile() }, { deadlineMs: 5000 });
        this.registered = true;
        break;
      } catch (err) {
        if (attempt === 3) log.warn({ rm: this.options.resourceManagerAddress }, 'waiting for the resource manager');
        await sleep(backoffDelay(attempt++, 50, 2000));
      }
    }
    if (!this.stopped) this.scheduleHeartbeat();
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer = setTimeout(() => void this.heartbeat(), this.options.heartbeatIntervalMs);
    this.heartbeatTimer.unref();
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    try {
      this.tasks.prune();
      const res = await call(this.rm!.heartbeat, this.rm!, { profile: this.profile() }, { deadlineMs: 5000 });
      if (!res.known) {
        // The resource manager restarted: register again, reporting the slots held here.
        const profile = this.profile();
        await call(this.rm!.registerWorker, this.rm!, { profile }, { deadlineMs: 5000 });
        log.info({ rm: this.options.resourceManagerAddress, heldSlots: profile.assignedSlots.length }, 'registered again with the resource manager');
      }
      if (this.heartbeatLost) log.info({ rm: this.options.resourceManagerAddress }, 'the resource manager answers heartbeats again');
      this.heartbeatLost = false;
    } catch (err) {
      // Said once per outage; heartbeats go on every interval meanwhile.
      if (!this.heartbeatLost) log.warn({ rm: this.options.resourceManagerAddress, err: (err as Error).message }, 'waiting for the resource manager: heartbeats fail');
      this.heartbeatLost = true;
    }
    if (!this.stopped) this.scheduleHeartbeat();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    await this.tasks.stop();
    this.rm?.close();
    await this.server.close(500);
  }
}
