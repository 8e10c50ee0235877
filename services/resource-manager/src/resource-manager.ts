import { randomUUID } from 'node:crypto';
import { ErrorCode, TidewayError, logger } from '@tideway/common';
import type { SlotProfile, WorkerProfile } from '@tideway/contracts';
import { allocateSlots, type SlotAllocateStrategy, type WorkerCapacity } from './slot-allocator.js';

const log = logger('resource-manager');

export interface ResourceManagerOptions {
  strategy: SlotAllocateStrategy;
  /** A worker silent for this long is declared lost. */
  heartbeatTimeoutMs: number;
  /** How often workers should heartbeat. */
  heartbeatIntervalMs: number;
  /** Told when a worker is declared lost. */
  onWorkerLost?: (worker: WorkerProfile, reason: string) => void;
  /**
   * After a start, no slot is granted for this long, so that workers of a running cluster can
   * re-register with the slots they hold before any of those slots could be handed out again
   * (a restarted resource manager rebuilds its registry from heartbeats). 0 in local mode,
   * where the registry starts empty by construction.
   */
  registryRebuildMs?: number;
  /**
   * Checks a worker that missed heartbeats: resolves 'refused' when its port refuses
   * connections (the process is gone: it is declared lost at once, long before the timeout),
   * 'alive' when it answers, 'silent' otherwise (paused or overloaded: the timeout decides).
   */
  probe?: (address: string) => Promise<ProbeResult>;
}

export type ProbeResult = 'alive' | 'refused' | 'silent';

/** Slots granted this recently are never freed by a leader's sync (its list may predate them). */
const SYNC_GRACE_MS = 10_000;

interface WorkerEntry {
  profile: WorkerProfile;
  lastHeartbeat: number;
  /** Slots granted on this worker, by slot id. */
  slots: Map<string, SlotProfile>;
  /** When each slot was granted here (ms since epoch). */
  grantedAt: Map<string, number>;
  /** A probe of this worker is in flight. */
  probing: boolean;
  /**
   * An operator drains the worker (SetDraining). Answered in each heartbeat; a registration
   * (after a restart of this resource manager) takes it from the worker's own report.
   */
  drainRequested: boolean;
}

/** Whether a worker drains: by an operator's drain or because it is stopping. */
const drains = (e: WorkerEntry): boolean => e.drainRequested || e.profile.stopping;

/**
 * The resource manager's registry: workers, their slots, and who holds them. Stateless
 * across restarts by design: workers re-register and report the slots they hold, and the
 * registry is rebuilt from that.
 */
export class ResourceManager {
  private readonly workers = new Map<string, WorkerEntry>();
  private sweeper?: NodeJS.Timeout;
  private grantsFrom = 0;
  /** Workers declared lost since the start (exported as a Prometheus counter). */
  lostWorkers = 0;

  constructor(private readonly options: ResourceManagerOptions) {}

  start(): void {
    const rebuildMs = this.options.registryRebuildMs ?? 0;
    this.grantsFrom = Date.now() + rebuildMs;
    if (rebuildMs > 0) log.info({ rebuildMs }, 'rebuilding the slot registry from worker heartbeats before granting slots');
    this.sweeper = setInterval(() => this.sweep(), Math.max(100, Math.floor(this.options.heartbeatTimeoutMs / 4)));
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  get heartbeatIntervalMs(): number {
    return this.options.heartbeatIntervalMs;
  }

  register(profile: WorkerProfile): void {
    const existing = this.workers.get(profile.workerId);
    // Another worker registered at this address is gone: a restarted process (a rolling upgrade,
    // a pod of a StatefulSet) took its port. It is lost now, not after its heartbeat timeout, so
    // that neither its slots nor its drain are mistaken for the new process's.
    // One that held no slot is simply forgotten (the leader has nothing to fail over).
    if (!existing)
      for (const [id, other] of this.workers) {
        if (other.profile.address !== profile.address) continue;
        if (other.slots.size > 0) this.lose(id, other, `worker ${profile.workerId} registered at its address`);
        else {
          this.workers.delete(id);
          log.info({ workerId: id, address: profile.address, by: profile.workerId }, 'worker replaced at its address');
        }
      }
    const entry: WorkerEntry = existing ?? {
      profile,
      lastHeartbeat: Date.now(),
      slots: new Map(),
      grantedAt: new Map(),
      probing: false,
      // A worker that was draining before this resource manager (re)started still is.
      drainRequested: profile.draining && !profile.stopping,
    };
    entry.profile = profile;
    entry.lastHeartbeat = Date.now();
    // The worker's own report of the slots it holds wins: it owns them.
    for (const slot of profile.assignedSlots) entry.slots.set(slot.slotId, slot);
    this.workers.set(profile.workerId, entry);
    if (!existing)
      log.info({ workerId: profile.workerId, address: profile.address, slots: profile.assignedSlots.length }, 'worker registered');
  }

  /**
   * `known` false when the worker is unknown (it must register again); `draining`: whether an
   * operator drains it (the worker reports it back, and is not ready meanwhile).
   */
  heartbeat(profile: WorkerProfile): { known: boolean; draining: boolean } {
    const entry = this.workers.get(profile.workerId);
    if (!entry) return { known: false, draining: false };
    if (profile.stopping && !entry.profile.stopping)
      log.info({ workerId: profile.workerId, address: profile.address }, 'worker stopping: draining');
    entry.profile = profile;
    entry.lastHeartbeat = Date.now();
    for (const slot of profile.assignedSlots) if (!entry.slots.has(slot.slotId)) entry.slots.set(slot.slotId, slot);
    return { known: true, draining: entry.drainRequested };
  }

  /**
   * Drains a worker (no slot is granted on it any more) or ends its drain. `worker` is its id or
   * its address; NOT_FOUND naming it when no registered worker matches.
   */
  setDraining(worker: string, draining: boolean): WorkerProfile {
    const entry = this.workers.get(worker) ?? [...this.workers.values()].find((w) => w.profile.address === worker);
    if (!entry) {
      const known = [...this.workers.values()].map((w) => `${w.profile.workerId} (${w.profile.address})`).join(', ') || 'none';
      throw new TidewayError(ErrorCode.NOT_FOUND, `no registered worker has the id or address '${worker}'; registered: ${known}`);
    }
    if (entry.drainRequested !== draining)
      log.info({ workerId: entry.profile.workerId, address: entry.profile.address }, draining ? 'worker draining' : 'worker drain ended');
    entry.drainRequested = draining;
    return this.view(entry);
  }

  /** Grants `slotCount` slots to a job, all or nothing (NoEnoughResourceError otherwise). */
  apply(req: {
    jobId: string;
    slotCount: number;
    cpuPerSlot: number;
    memoryMbPerSlot: number;
    tagFilter: Record<string, string>;
    owners: string[];
  }): SlotProfile[] {
    const wait = this.grantsFrom - Date.now();
    if (wait > 0) {
      throw new TidewayError(
        ErrorCode.INTERNAL,
        `the resource manager is rebuilding its slot registry from worker heartbeats; it grants slots in ${wait} ms`,
        {
          jobId: req.jobId,
          retryable: true,
        },
      );
    }
    const capacities = [...this.workers.values()].map((w) => this.capacity(w));
    const grants = allocateSlots(capacities, req, this.options.strategy);
    // Allocation above is synchronous, so concurrent requests cannot be granted one slot twice.
    return grants.map((g, i) => {
      const entry = this.workers.get(g.workerId)!;
      const slot: SlotProfile = {
        slotId: randomUUID(),
        workerId: g.workerId,
        workerAddress: entry.profile.address,
        jobId: req.jobId,
        cpu: req.cpuPerSlot,
        memoryMb: req.memoryMbPerSlot,
        owner: req.owners[i] ?? '',
      };
      entry.slots.set(slot.slotId, slot);
      entry.grantedAt.set(slot.slotId, Date.now());
      return slot;
    });
  }

  /**
   * The leader's list of every slot its jobs hold: other granted slots (of jobs that ended or
   * that an earlier leader lost track of) are free again, unless granted in the last seconds.
   * Returns how many were freed.
   */
  sync(heldSlotIds: readonly string[]): number {
    const held = new Set(heldSlotIds);
    const before = Date.now() - SYNC_GRACE_MS;
    let freed = 0;
    for (const entry of this.workers.values()) {
      for (const id of [...entry.slots.keys()]) {
        if (held.has(id) || (entry.grantedAt.get(id) ?? 0) > before) continue;
        entry.slots.delete(id);
        entry.grantedAt.delete(id);
        freed++;
      }
    }
    if (freed > 0) log.info({ freed }, 'freed slots no job of the leader holds');
    return freed;
  }

  /** The worker registered at an address, if any. */
  workerAt(address: string): WorkerProfile | undefined {
    for (const w of this.workers.values()) if (w.profile.address === address) return w.profile;
    return undefined;
  }

  /** Declares the worker at an address lost now (a probe found its port closed). */
  declareLost(address: string, reason: string): boolean {
    for (const [id, entry] of this.workers) {
      if (entry.profile.address !== address) continue;
      this.lose(id, entry, reason);
      return true;
    }
    return false;
  }

  private lose(id: string, entry: WorkerEntry, reason: string): void {
    this.workers.delete(id);
    this.lostWorkers++;
    log.warn({ workerId: id, address: entry.profile.address, reason }, 'worker lost');
    this.options.onWorkerLost?.(entry.profile, reason);
  }

  /** Releases the given slots of a job, or all of its slots when `slotIds` is empty. */
  release(jobId: string, slotIds: string[]): number {
    let released = 0;
    const only = new Set(slotIds);
    for (const entry of this.workers.values()) {
      for (const [id, slot] of entry.slots) {
        if (slot.jobId === jobId && (only.size === 0 || only.has(id))) {
          entry.slots.delete(id);
          entry.grantedAt.delete(id);
          released++;
        }
      }
    }
    return released;
  }

  listWorkers(): WorkerProfile[] {
    return [...this.workers.values()].map((w) => this.view(w));
  }

  private view(w: WorkerEntry): WorkerProfile {
    return { ...w.profile, assignedSlots: [...w.slots.values()], draining: drains(w) };
  }

  private capacity(w: WorkerEntry): WorkerCapacity {
    let usedCpu = 0;
    let usedMemoryMb = 0;
    for (const s of w.slots.values()) {
      usedCpu += s.cpu;
      usedMemoryMb += s.memoryMb;
    }
    return {
      workerId: w.profile.workerId,
      address: w.profile.address,
      attributes: w.profile.attributes,
      dynamicSlot: w.profile.dynamicSlot,
      slotNum: w.profile.slotNum,
      cpuCores: w.profile.cpuCores,
      memoryMb: w.profile.memoryMb,
      systemLoad: w.profile.systemLoad,
      usedSlots: w.slots.size,
      usedCpu,
      usedMemoryMb,
      draining: drains(w),
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.workers) {
      const silentMs = now - entry.lastHeartbeat;
      // A worker that missed a heartbeat (1.5 intervals of silence) is probed: a refused
      // connection means the process is gone, long before the timeout says so.
      const probeAfterMs = 1.5 * this.options.heartbeatIntervalMs;
      if (silentMs > probeAfterMs && silentMs <= this.options.heartbeatTimeoutMs && this.options.probe && !entry.probing) {
        entry.probing = true;
        void this.options
          .probe(entry.profile.address)
          .then((r) => {
            if (r === 'refused' && this.workers.get(id) === entry && Date.now() - entry.lastHeartbeat > probeAfterMs) {
              this.declareLost(
                entry.profile.address,
                `no heartbeat for ${Date.now() - entry.lastHeartbeat} ms and its port refuses connections`,
              );
            }
          })
          // A probe that cannot even be made (an address grpc-js refuses) proves nothing.
          .catch((err: unknown) => log.warn({ err: (err as Error).message, workerId: id }, 'could not probe a silent worker'))
          .finally(() => (entry.probing = false));
      }
      if (silentMs > this.options.heartbeatTimeoutMs) {
        this.workers.delete(id);
        this.lostWorkers++;
        const reason = `no heartbeat for ${silentMs} ms (timeout ${this.options.heartbeatTimeoutMs} ms)`;
        log.warn({ workerId: id, address: entry.profile.address, silentMs }, 'worker lost');
        this.options.onWorkerLost?.(entry.profile, reason);
      }
    }
  }
}
