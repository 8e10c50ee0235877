// Hand-written gateways for the unit tests of JobMaster and PipelineMaster (not built into dist).
import { serialize } from 'node:v8';
import type { CheckpointStorage, CompletedCheckpoint as StoredCheckpoint, CheckpointRef } from '@tideway/checkpoint';
import type { SlotProfile, TaskGroupLocation } from '@tideway/contracts';
import type { CheckpointKind } from '@tideway/runtime';
import type { ResourceGateway, WorkerGateway } from './gateways.js';

/** Workers that record the calls they get; deploys can be held until `releaseDeploys()`. */
export class FakeWorkers implements WorkerGateway {
  deployed: TaskGroupLocation[] = [];
  deployedTo: string[] = [];
  deployedFrom: number[] = [];
  cancelled: TaskGroupLocation[] = [];
  triggered: Array<{ loc: TaskGroupLocation; id: number; kind: CheckpointKind }> = [];
  completed: Array<{ loc: TaskGroupLocation; id: number }> = [];
  restored: Array<{ loc: TaskGroupLocation; id: number }> = [];
  private held?: { until: Promise<void>; release: () => void };

  /** Deploys from now on wait until releaseDeploys(). */
  holdDeploys(): void {
    let release!: () => void;
    this.held = { until: new Promise<void>((r) => (release = r)), release };
  }

  releaseDeploys(): void {
    this.held?.release();
    this.held = undefined;
  }

  async deploy(address: string, loc: TaskGroupLocation, _s: SlotProfile, _d: Buffer, restoreCheckpointId = 0): Promise<void> {
    this.deployed.push(loc);
    this.deployedTo.push(address);
    this.deployedFrom.push(restoreCheckpointId);
    if (this.held) await this.held.until;
  }
  async trigger(_a: string, loc: TaskGroupLocation, id: number, kind: CheckpointKind): Promise<void> {
    this.triggered.push({ loc, id, kind });
  }
  async notifyComplete(_a: string, loc: TaskGroupLocation, id: number): Promise<void> {
    this.completed.push({ loc, id });
  }
  async notifyAborted(): Promise<void> {}
  async restore(_a: string, loc: TaskGroupLocation, id: number): Promise<void> {
    this.restored.push({ loc, id });
  }
  async cancel(_a: string, loc: TaskGroupLocation): Promise<void> {
    this.cancelled.push(loc);
  }
}

/** A resource manager that grants every slot asked for, on the worker `nextWorker` names. */
export class FakeResources implements ResourceGateway {
  nextWorker = 'worker:1';
  released: string[][] = [];
  private granted = 0;
  async apply(jobId: string, owners: string[]): Promise<SlotProfile[]> {
    return owners.map((o) => slot(jobId, this.granted++, o, this.nextWorker));
  }
  async release(_jobId: string, slotIds: string[]): Promise<void> {
    this.released.push(slotIds);
  }
}

/** Checkpoint storage in memory. */
export class MemoryStorage implements CheckpointStorage {
  readonly description = 'memory';
  readonly maxRetained = 5;
  stored: StoredCheckpoint[] = [];
  async write(cp: StoredCheckpoint): Promise<CheckpointRef> {
    this.stored.push(cp);
    const bytes = serialize(cp).byteLength;
    return { jobId: cp.jobId, pipelineId: cp.pipelineId, checkpointId: cp.checkpointId, key: String(cp.checkpointId), bytes };
  }
  async readLatest(jobId: string, pipelineId: number) {
    const cp = this.stored.filter((c) => c.jobId === jobId && c.pipelineId === pipelineId).at(-1);
    return cp ? { checkpoint: cp, skipped: [] } : undefined;
  }
  async read(): Promise<StoredCheckpoint> {
    throw new Error('not used');
  }
  async listCheckpoints(): Promise<CheckpointRef[]> {
    return [];
  }
  async deleteJob(): Promise<void> {}
  async close(): Promise<void> {}
}

export function slot(jobId: string, i: number, owner = '', workerAddress = 'worker:1'): SlotProfile {
  return { slotId: `s${i}`, workerId: workerAddress, workerAddress, jobId, cpu: 0, memoryMb: 0, owner };
}

export const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond` holds (a loaded machine may take long), failing after `timeoutMs`. */
export async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick(5);
  }
}

/** A task group's state as a worker acknowledges it in a checkpoint. */
export const ackState = { readerSplits: {}, writerStates: {} };
