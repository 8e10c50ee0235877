import * as grpc from '@grpc/grpc-js';
import {
  CheckpointType,
  ResourceManagerServiceClient,
  WorkerServiceClient,
  type SlotProfile,
  type TaskGroupLocation,
} from '@tideway/contracts';
import { backoffDelay, sleep, type TidewayError } from '@tideway/common';
import { call, clientOptions, epochMetadata, insecure } from '@tideway/rpc';
import type { CheckpointKind } from '@tideway/runtime';
import type { ResourceGateway, WorkerGateway } from './gateways.js';

const KIND_TO_WIRE: Record<CheckpointKind, CheckpointType> = {
  CHECKPOINT: CheckpointType.CHECKPOINT,
  SAVEPOINT: CheckpointType.SAVEPOINT,
  COMPLETED_POINT: CheckpointType.COMPLETED_POINT,
};

/** WorkerService over gRPC, one client per worker address, every call carrying the epoch. */
export class RemoteWorkers implements WorkerGateway {
  private readonly clients = new Map<string, WorkerServiceClient>();

  constructor(private readonly epoch: () => number) {}

  private client(address: string): WorkerServiceClient {
    let c = this.clients.get(address);
    if (!c) {
      c = new WorkerServiceClient(address, insecure, clientOptions);
      this.clients.set(address, c);
    }
    return c;
  }

  private meta(): grpc.Metadata {
    return epochMetadata(this.epoch());
  }

  async deploy(address: string, location: TaskGroupLocation, slot: SlotProfile, descriptor: Buffer): Promise<void> {
    const c = this.client(address);
    await call(c.deployTask, c, { location, slot, descriptor, restoreCheckpointId: 0 }, { metadata: this.meta(), deadlineMs: 30_000 });
  }

  async trigger(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void> {
    const c = this.client(address);
    await call(c.triggerCheckpoint, c, { location, checkpointId, type: KIND_TO_WIRE[kind], timestampMs: Date.now() }, { metadata: this.meta(), deadlineMs: 10_000 });
  }

  async notifyComplete(address: string, location: TaskGroupLocation, checkpointId: number, kind: CheckpointKind): Promise<void> {
    const c = this.client(address);
    await call(c.notifyCheckpointComplete, c, { location, checkpointId, type: KIND_TO_WIRE[kind] }, { metadata: this.meta(), deadlineMs: 10_000 });
  }

  async notifyAborted(address: string, location: TaskGroupLocation, checkpointId: number): Promise<void> {
    const c = this.client(address);
    await call(c.notifyCheckpointAborted, c, { location, checkpointId, type: CheckpointType.CHECKPOINT }, { metadata: this.meta(), deadlineMs: 10_000 });
  }

  async cancel(address: string, location: TaskGroupLocation, reason: string): Promise<void> {
    const c = this.client(address);
    await call(c.cancelTask, c, { location, reason }, { metadata: this.meta(), deadlineMs: 10_000 });
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}

/** ResourceManagerService over gRPC. */
export class RemoteResourceManager implements ResourceGateway {
  private readonly client: ResourceManagerServiceClient;

  constructor(
    address: string,
    private readonly epoch: () => number,
  ) {
    this.client = new ResourceManagerServiceClient(address, insecure, clientOptions);
  }

  async apply(jobId: string, owners: string[], tagFilter: Record<string, string>): Promise<SlotProfile[]> {
    const res = await call(
      this.client.applyResources,
      this.client,
      { jobId, slotCount: owners.length, cpuPerSlot: 0, memoryMbPerSlot: 0, tagFilter, owners },
      { metadata: epochMetadata(this.epoch()), deadlineMs: 30_000 },
    );
    return res.slots;
  }

  /**
   * Releases slots, retrying with backoff for about a minute while the resource manager is
   * unreachable: a slot must never stay granted to an ended job. (A resource manager that
   * restarts meanwhile forgets the slots anyway: workers report only what they still hold.)
   */
  async release(jobId: string, slotIds: string[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await call(this.client.releaseResources, this.client, { jobId, slotIds }, { metadata: epochMetadata(this.epoch()), deadlineMs: 10_000 });
        return;
      } catch (err) {
        if (!(err as TidewayError).retryable || attempt === 15) throw err;
        await sleep(backoffDelay(attempt, 200, 5000));
      }
    }
  }

  async listWorkers() {
    return call(this.client.listWorkers, this.client, {}, { deadlineMs: 10_000 });
  }

  close(): void {
    this.client.close();
  }
}
