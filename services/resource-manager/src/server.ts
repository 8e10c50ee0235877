import {
  CoordinatorServiceClient,
  ResourceManagerServiceService,
  type ApplyResourcesRequest,
  type ApplyResourcesResponse,
  type Ack,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type ListWorkersResponse,
  type RegisterWorkerRequest,
  type RegisterWorkerResponse,
  type ReleaseResourcesRequest,
} from '@tideway/contracts';
import { EpochGuard, TidewayServer, call, clientOptions, insecure, unaryHandler } from '@tideway/rpc';
import { backoffDelay, logger, sleep } from '@tideway/common';
import { ResourceManager, type ResourceManagerOptions } from './resource-manager.js';

const log = logger('resource-manager');

export interface ResourceManagerServiceOptions extends Omit<ResourceManagerOptions, 'onWorkerLost'> {
  host: string;
  port: number;
  /** Where to tell about lost workers (the coordinator); may be set later. */
  coordinatorAddress?: string;
}

/** The resource manager as a gRPC service. */
export class ResourceManagerService {
  readonly manager: ResourceManager;
  private readonly server = new TidewayServer();
  private readonly epochs = new EpochGuard();
  private coordinator?: CoordinatorServiceClient;
  port = 0;

  constructor(private readonly options: ResourceManagerServiceOptions) {
    this.manager = new ResourceManager({ ...options, onWorkerLost: (w, reason) => void this.tellWorkerLost(w.workerId, w.address, reason) });
    if (options.coordinatorAddress) this.setCoordinator(options.coordinatorAddress);
  }

  setCoordinator(address: string): void {
    this.coordinator?.close();
    this.coordinator = new CoordinatorServiceClient(address, insecure, clientOptions);
  }

  get address(): string {
    return `${this.options.host}:${this.port}`;
  }

  async start(): Promise<string> {
    const m = this.manager;
    this.server.add('tideway.v1.ResourceManagerService', ResourceManagerServiceService, {
      registerWorker: unaryHandler<RegisterWorkerRequest, RegisterWorkerResponse>((req) => {
        m.register(req.profile!);
        return { heartbeatIntervalMs: m.heartbeatIntervalMs };
      }),
      heartbeat: unaryHandler<HeartbeatRequest, HeartbeatResponse>((req) => ({ known: m.heartbeat(req.profile!) })),
      applyResources: unaryHandler<ApplyResourcesRequest, ApplyResourcesResponse>((req, callCtx) => {
        this.epochs.check(callCtx.metadata);
        const slots = m.apply({
          jobId: req.jobId,
          slotCount: req.slotCount,
          cpuPerSlot: req.cpuPerSlot,
          memoryMbPerSlot: req.memoryMbPerSlot,
          tagFilter: req.tagFilter,
          owners: req.owners,
        });
        return { slots };
      }),
      releaseResources: unaryHandler<ReleaseResourcesRequest, Ack>((req, callCtx) => {
        this.epochs.check(callCtx.metadata);
        m.release(req.jobId, req.slotIds);
        return { ok: true, error: undefined };
      }),
      listWorkers: unaryHandler<object, ListWorkersResponse>(() => ({ workers: m.listWorkers(), nowMs: Date.now() })),
    });
    this.port = await this.server.listen(this.options.host, this.options.port);
    m.start();
    log.info({ address: this.address }, 'resource manager listening');
    return this.address;
  }

  async stop(): Promise<void> {
    this.manager.stop();
    this.coordinator?.close();
    await this.server.close();
  }

  /** Tells the coordinator, retrying with backoff while it is unreachable (it may be restarting). */
  private async tellWorkerLost(workerId: string, address: string, reason: string): Promise<void> {
    for (let attempt = 0; attempt < 12; attempt++) {
      const client = this.coordinator;
      if (!client) return;
      try {
        await call(client.workerLost, client, { workerId, address, reason }, { deadlineMs: 5000 });
        return;
      } catch (err) {
        if (attempt === 0) log.warn({ err: (err as Error).message, workerId, coordinator: this.options.coordinatorAddress }, 'waiting for the coordinator to tell it a worker was lost');
        await sleep(backoffDelay(attempt, 200, 5000));
      }
    }
    log.warn({ workerId, address }, 'gave up telling the coordinator about a lost worker');
  }
}
