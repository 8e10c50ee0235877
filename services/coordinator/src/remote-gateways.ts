import {
  ResourceManagerServiceClient,
  checkpointKindToWire,
  WorkerServiceClient,
  type RunningTaskGroup,
  type SlotProfile,
  type TaskGroupLocation,
  type WorkerProfile,
} from '@tideway/contracts';
import { ErrorCode, backoffDelay, sleep, type TidewayError } from '@tideway/common';
import {
  ClientPool,
  call,
  clientOptions,
  channelCredentials,
  isUnreachable,
  type RequestOf,
  type ResponseOf,
  type UnaryMethodName,
} from '@tideway/rpc';
import type { CheckpointKind } from '@tideway/runtime';
import type { ResourceGateway, WorkerGateway } from './gateways.js';
import type { Leadership } from './leadership.js';

/**
 * WorkerService over gRPC, one client per worker address. Every call passes the leadership
 * fence (refused once this coordinator stops leading) and carries the epoch.
 */
export class RemoteWorkers implements WorkerGateway {
  private readonly clients = new ClientPool(
    (address) => new WorkerServiceClient(address, channelCredentials(), clientOptions),
    (address) => this.onDisconnected(address),
  );

  constructor(
    private readonly fence: Leadership,
    /** Told when a worker refuses a connection (it may be dead: the resource manager checks). */
    private readonly onRefused: (address: string) => void = () => undefined,
    /** Told when the connection to a worker dropped (its process may have died). */
    private readonly onDisconnected: (address: string) => void = () => undefined,
  ) {}

  /** One fenced call: refused before it leaves when not leading; a stale-epoch answer steps down. */
  private send<K extends UnaryMethodName<WorkerServiceClient>>(
    address: string,
    method: K,
    req: RequestOf<WorkerServiceClient, K>,
    deadlineMs: number,
  ): Promise<ResponseOf<WorkerServiceClient, K>> {
    const c = this.clients.get(address);
    return this.fence.run(() =>
      call(c, method, req, { metadata: this.fence.metadata(), deadlineMs }).catch((err: unknown) => {
        if (isUnreachable(err) && /ECONNREFUSED|connection refused/i.test((err as Error).message)) this.onRefused(address);
        throw err;
      }),
    );
  }

  async deploy(
    address: string,
    location: TaskGroupLocation,
    slot: SlotProfile,
    descriptor: Buffer,
    restoreCheckpointId = 0,
  ): Promise<void> {
    await this.send(address, 'deployTask', { location, slot, descriptor, restoreCheckpointId }, 30_000);
  }

  async restore(address: string, location: TaskGroupLocation, checkpointId: number, state: Buffer): Promise<void> {
    await this.send(address, 'notifyTaskRestore', { location, checkpointId, state }, 30_000);
  }

  async trigger(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void> {
    await this.send(
      address,
      'triggerCheckpoint',
      { location, checkpointId, type: checkpointKindToWire(kind), timestampMs: Date.now() },
      10_000,
    );
  }

  async notifyComplete(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void> {
    await this.send(address, 'notifyCheckpointComplete', { location, checkpointId, type: checkpointKindToWire(kind) }, 10_000);
  }

  async notifyAborted(address: string, location: TaskGroupLocation, checkpointId: number): Promise<void> {
    await this.send(address, 'notifyCheckpointAborted', { location, checkpointId, type: checkpointKindToWire('CHECKPOINT') }, 10_000);
  }

  async cancel(address: string, location: TaskGroupLocation, reason: string): Promise<void> {
    await this.send(address, 'cancelTask', { location, reason }, 10_000);
  }

  /** The task groups a worker runs (the call also tells it, by its epoch, who leads now). */
  async listTaskGroups(address: string): Promise<RunningTaskGroup[]> {
    return (await this.send(address, 'listTaskGroups', {}, 5000)).taskGroups;
  }

  close(): void {
    this.clients.close();
  }
}

/** ResourceManagerService over gRPC. */
export class RemoteResourceManager implements ResourceGateway {
  private readonly client: ResourceManagerServiceClient;

  constructor(
    address: string,
    private readonly fence: Leadership,
  ) {
    this.client = new ResourceManagerServiceClient(address, channelCredentials(), clientOptions);
  }

  private send<K extends UnaryMethodName<ResourceManagerServiceClient>>(
    method: K,
    req: RequestOf<ResourceManagerServiceClient, K>,
    deadlineMs: number,
  ): Promise<ResponseOf<ResourceManagerServiceClient, K>> {
    return this.fence.run(() => call(this.client, method, req, { metadata: this.fence.metadata(), deadlineMs }));
  }

  async apply(jobId: string, owners: string[], tagFilter: Record<string, string>): Promise<SlotProfile[]> {
    const res = await this.send(
      'applyResources',
      { jobId, slotCount: owners.length, cpuPerSlot: 0, memoryMbPerSlot: 0, tagFilter, owners },
      30_000,
    );
    return res.slots;
  }

  /** Asks the resource manager to check a worker now; a worker refusing connections is lost. */
  async probe(address: string): Promise<{ alive: boolean; lost: boolean; reason: string }> {
    return this.send('probeWorker', { address }, 10_000);
  }

  /** Frees every granted slot that no job of this leader holds (after a take-over). */
  async syncSlots(heldSlotIds: string[]): Promise<void> {
    await this.send('syncSlots', { heldSlotIds }, 10_000);
  }

  /**
   * Releases slots, retrying with backoff for about a minute while the resource manager is
   * unreachable: a slot must never stay granted to an ended job. (A resource manager that
   * restarts meanwhile forgets the slots anyway: workers report only what they still hold.)
   */
  async release(jobId: string, slotIds: string[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.send('releaseResources', { jobId, slotIds }, 10_000);
        return;
      } catch (err) {
        if (!(err as TidewayError).retryable || (err as TidewayError).code === ErrorCode.NOT_LEADER || attempt === 15) throw err;
        await sleep(backoffDelay(attempt, 200, 5000));
      }
    }
  }

  /** Drains a worker (by id or address) or ends its drain; answers with the worker as now registered. */
  async setDraining(worker: string, draining: boolean): Promise<WorkerProfile> {
    const res = await this.send('setDraining', { worker, draining }, 10_000);
    return res.worker!;
  }

  async listWorkers(): Promise<{ workers: WorkerProfile[]; nowMs: number }> {
    return call(this.client, 'listWorkers', {}, { deadlineMs: 10_000 });
  }

  close(): void {
    this.client.close();
  }
}
