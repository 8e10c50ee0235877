import * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceClient,
  ResourceManagerServiceService,
  WorkerServiceClient,
  type ProbeWorkerRequest,
  type ProbeWorkerResponse,
  type SyncSlotsRequest,
  type WorkerProfile,
  type ApplyResourcesRequest,
  type ApplyResourcesResponse,
  type Ack,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type ListWorkersResponse,
  type RegisterWorkerRequest,
  type RegisterWorkerResponse,
  type ReleaseResourcesRequest,
  type SetDrainingRequest,
  type SetDrainingResponse,
} from '@tideway/contracts';
import { EpochGuard, LeaderCaller, TidewayServer, call, clientOptions, channelCredentials, unaryHandler, required } from '@tideway/rpc';
import { detach, ErrorCode, TidewayError, backoffDelay, logger, sleep } from '@tideway/common';
import { ResourceManager, type ProbeResult, type ResourceManagerOptions } from './resource-manager.js';

const log = logger('resource-manager');

export interface ResourceManagerServiceOptions extends Omit<ResourceManagerOptions, 'onWorkerLost' | 'probe'> {
  host: string;
  port: number;
  /** The coordinators, told about lost workers (the leader among them); may be set later. */
  coordinatorAddresses?: readonly string[];
}

/** The resource manager as a gRPC service. */
export class ResourceManagerService {
  readonly manager: ResourceManager;
  private readonly server = new TidewayServer();
  private readonly epochs = new EpochGuard((_epoch, address) => this.coordinators?.noteLeader(address));
  private coordinators?: LeaderCaller<CoordinatorServiceClient>;
  port = 0;
  private serving = false;

  constructor(private readonly options: ResourceManagerServiceOptions) {
    this.manager = new ResourceManager({
      ...options,
      onWorkerLost: (w, reason) => detach(this.tellWorkerLost(w.workerId, w.address, reason), 'telling the coordinator a worker was lost'),
      probe: (address) => probeWorker(address, Math.max(500, options.heartbeatIntervalMs)),
    });
    if (options.coordinatorAddresses?.length) this.setCoordinators(options.coordinatorAddresses);
  }

  setCoordinators(addresses: readonly string[]): void {
    this.coordinators?.close();
    this.coordinators = new LeaderCaller(addresses, (a) => new CoordinatorServiceClient(a, channelCredentials(), clientOptions));
  }

  get address(): string {
    return `${this.options.host}:${this.port}`;
  }

  async start(): Promise<string> {
    const m = this.manager;
    this.server.add('tideway.v1.ResourceManagerService', ResourceManagerServiceService, {
      registerWorker: unaryHandler<RegisterWorkerRequest, RegisterWorkerResponse>((req) => {
        m.register(checkedProfile(req.profile));
        return { heartbeatIntervalMs: m.heartbeatIntervalMs };
      }),
      heartbeat: unaryHandler<HeartbeatRequest, HeartbeatResponse>((req) => m.heartbeat(checkedProfile(req.profile))),
      // Any caller may drain: the coordinator checks the operator's role before it calls here
      // (the internal services are protected by mutual TLS, docs/security.md).
      setDraining: unaryHandler<SetDrainingRequest, SetDrainingResponse>((req) => {
        if (req.worker === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'SetDraining names no worker (an id or host:port)');
        return { worker: m.setDraining(req.worker, req.draining) };
      }),
      applyResources: unaryHandler<ApplyResourcesRequest, ApplyResourcesResponse>((req, callCtx) => {
        this.epochs.check(callCtx.metadata);
        if (req.jobId === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'ApplyResources has no jobId');
        if (!Number.isSafeInteger(req.slotCount) || req.slotCount < 1)
          throw new TidewayError(ErrorCode.BAD_REQUEST, `job ${req.jobId}: slotCount ${req.slotCount} is not a positive number of slots`);
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
      probeWorker: unaryHandler<ProbeWorkerRequest, ProbeWorkerResponse>(async (req, callCtx) => {
        this.epochs.check(callCtx.metadata);
        checkedAddress(req.address, 'ProbeWorker');
        const known = m.workerAt(req.address) !== undefined;
        const r = await probeWorker(req.address, 2000);
        if (r === 'alive') return { alive: true, lost: false, reason: '' };
        if (r === 'refused') {
          if (known) m.declareLost(req.address, 'its port refuses connections (probed before a restart)');
          return { alive: false, lost: true, reason: 'its port refuses connections' };
        }
        return { alive: false, lost: !known, reason: known ? 'it does not answer' : 'it is not registered' };
      }),
      syncSlots: unaryHandler<SyncSlotsRequest, Ack>((req, callCtx) => {
        this.epochs.check(callCtx.metadata);
        m.sync(req.heldSlotIds);
        return { ok: true, error: undefined };
      }),
    });
    this.port = await this.server.listen(this.options.host, this.options.port);
    m.start();
    this.serving = true;
    log.info({ address: this.address }, 'resource manager listening');
    return this.address;
  }

  /**
   * The readiness probe's answer: ready while it serves (workers register with it even while it
   * rebuilds its slot registry after a restart), not before it listens nor once it stops.
   */
  readiness(): { ready: boolean; reason: string } {
    return this.serving ? { ready: true, reason: `serving at ${this.address}` } : { ready: false, reason: 'not serving' };
  }

  async stop(): Promise<void> {
    this.serving = false;
    this.manager.stop();
    this.coordinators?.close();
    await this.server.close();
  }

  /** Tells the leader, following it across fail-overs and retrying while none answers. */
  private async tellWorkerLost(workerId: string, address: string, reason: string): Promise<void> {
    for (let attempt = 0; attempt < 12; attempt++) {
      const leader = this.coordinators;
      if (!leader) return;
      try {
        await leader.call((c) => call(c, 'workerLost', { workerId, address, reason }, { deadlineMs: 5000 }), 10_000);
        return;
      } catch (err) {
        if (attempt === 0)
          log.warn(
            { err: (err as Error).message, workerId, coordinators: leader.known },
            'waiting for the leader coordinator to tell it a worker was lost',
          );
        await sleep(backoffDelay(attempt, 200, 5000));
      }
    }
    log.warn({ workerId, address }, 'gave up telling the coordinator about a lost worker');
  }
}

/** A host name, IPv4 or [IPv6] address, a colon and a port. */
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/;

/**
 * The profile of a RegisterWorker or Heartbeat call, refused with INVALID_ARGUMENT without a
 * worker id or with an address others cannot dial (the resource manager probes it, the
 * coordinator deploys to it).
 */
function checkedProfile(profile: WorkerProfile | undefined): WorkerProfile {
  const p = required(profile, 'profile');
  if (p.workerId === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'the worker profile has no workerId');
  checkedAddress(p.address, `worker ${p.workerId}`);
  return p;
}

/** Refuses (INVALID_ARGUMENT) an address that is not host:port. */
function checkedAddress(address: string, whose: string): void {
  if (!HOST_PORT.test(address) || Number(address.slice(address.lastIndexOf(':') + 1)) > 65535)
    throw new TidewayError(ErrorCode.BAD_REQUEST, `${whose}: address '${address}' is not host:port`);
}

/**
 * One call to a worker (ListTaskGroups, which needs no epoch): 'refused' when the connection
 * is refused (the process is gone), 'silent' when it does not answer in time.
 */
export async function probeWorker(address: string, timeoutMs: number): Promise<ProbeResult> {
  const client = new WorkerServiceClient(address, channelCredentials(), {
    ...clientOptions,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 200,
  });
  try {
    await call(client, 'listTaskGroups', {}, { deadlineMs: timeoutMs });
    return 'alive';
  } catch (err) {
    const e = err as { details?: { grpcCode?: number }; message?: string };
    const refused =
      e.details?.grpcCode === grpc.status.UNAVAILABLE && /ECONNREFUSED|connection refused|No connection established/i.test(e.message ?? '');
    return refused ? 'refused' : 'silent';
  } finally {
    client.close();
  }
}
