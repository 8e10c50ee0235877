import { NoEnoughResourceError, ErrorCode } from '@tideway/common';

/** SeaTunnel's slot-allocate-strategy values. */
export type SlotAllocateStrategy = 'RANDOM' | 'SLOT_RATIO' | 'SYSTEM_LOAD';

/** What the allocator needs to know of a worker. */
export interface WorkerCapacity {
  workerId: string;
  address: string;
  attributes: Record<string, string>;
  dynamicSlot: boolean;
  /** Fixed slot-num (ignored with dynamic slots). */
  slotNum: number;
  cpuCores: number;
  memoryMb: number;
  systemLoad: number;
  /** Slots in use now. */
  usedSlots: number;
  usedCpu: number;
  usedMemoryMb: number;
  /** Draining (tideway cluster drain, or stopping): no slot is granted on it. */
  draining?: boolean;
}

export interface SlotRequest {
  jobId: string;
  slotCount: number;
  cpuPerSlot: number;
  memoryMbPerSlot: number;
  tagFilter: Record<string, string>;
}

/** One granted slot: which worker. */
export interface Grant {
  workerId: string;
}

/** Whether a worker's attributes match a tag filter key by key (SeaTunnel's rule). */
export function matchesTagFilter(attributes: Record<string, string>, filter: Record<string, string>): boolean {
  return Object.entries(filter).every(([k, v]) => attributes[k] === v);
}

function freeSlots(w: WorkerCapacity, req: SlotRequest, taken: number): number {
  if (!w.dynamicSlot) return Math.max(0, w.slotNum - w.usedSlots - taken);
  // Dynamic slots: as many as the worker's free cpu and memory allow (unbounded when the
  // request asks for none, as SeaTunnel's default zero resource profile does).
  const byCpu = req.cpuPerSlot > 0 ? Math.floor((w.cpuCores - w.usedCpu) / req.cpuPerSlot) - taken : Infinity;
  const byMem = req.memoryMbPerSlot > 0 ? Math.floor((w.memoryMb - w.usedMemoryMb) / req.memoryMbPerSlot) - taken : Infinity;
  return Math.max(0, Math.min(byCpu, byMem));
}

/**
 * Chooses workers for a job's slots, all or nothing. Pure: the caller applies the grants.
 * Throws NoEnoughResourceError naming what was needed, what exists and the tag filter.
 */
export function allocateSlots(
  workers: readonly WorkerCapacity[],
  req: SlotRequest,
  strategy: SlotAllocateStrategy,
  random: () => number = Math.random,
): Grant[] {
  const eligible = workers.filter((w) => !w.draining && matchesTagFilter(w.attributes, req.tagFilter));
  const taken = new Map<string, number>();
  const grants: Grant[] = [];
  for (let i = 0; i < req.slotCount; i++) {
    const candidates = eligible.filter((w) => freeSlots(w, req, taken.get(w.workerId) ?? 0) > 0);
    if (candidates.length === 0) break;
    const pick = choose(candidates, strategy, taken, random);
    taken.set(pick.workerId, (taken.get(pick.workerId) ?? 0) + 1);
    grants.push({ workerId: pick.workerId });
  }
  if (grants.length < req.slotCount) throw noEnoughResource(workers, eligible, req);
  return grants;
}

function choose(
  candidates: WorkerCapacity[],
  strategy: SlotAllocateStrategy,
  taken: Map<string, number>,
  random: () => number,
): WorkerCapacity {
  switch (strategy) {
    case 'RANDOM':
      return candidates[Math.floor(random() * candidates.length)];
    case 'SYSTEM_LOAD':
      // Lowest load first; slots granted in this request count as load so they spread.
      return minBy(candidates, (w) => w.systemLoad + (taken.get(w.workerId) ?? 0) + w.usedSlots * 0.01);
    case 'SLOT_RATIO':
      return minBy(candidates, (w) => {
        const used = w.usedSlots + (taken.get(w.workerId) ?? 0);
        const total = w.dynamicSlot ? Math.max(1, w.cpuCores) : Math.max(1, w.slotNum);
        return used / total;
      });
  }
}

function minBy<T>(items: T[], score: (t: T) => number): T {
  let best: T = items[0];
  let bestScore = score(best);
  for (const item of items.slice(1)) {
    const s = score(item);
    if (s < bestScore) {
      best = item;
      bestScore = s;
    }
  }
  return best;
}

function noEnoughResource(all: readonly WorkerCapacity[], eligible: WorkerCapacity[], req: SlotRequest): NoEnoughResourceError {
  const free = eligible.reduce((n, w) => n + Math.min(freeSlots(w, req, 0), 1e9), 0);
  const total = eligible.reduce((n, w) => n + (w.dynamicSlot ? Infinity : w.slotNum), 0);
  const filterText = Object.keys(req.tagFilter).length ? ` with tag_filter ${JSON.stringify(req.tagFilter)}` : '';
  let why: string;
  const draining = all.filter((w) => w.draining).length;
  const drainingText = draining > 0 ? ` (${draining} draining worker(s) left out)` : '';
  if (all.length === 0) why = 'no worker is registered';
  else if (eligible.length === 0 && draining === all.length) why = `every one of the ${all.length} worker(s) is draining`;
  else if (eligible.length === 0)
    why = `tag_filter ${JSON.stringify(req.tagFilter)} matches none of the ${all.length} worker(s)${drainingText}`;
  else
    why = `${eligible.length} worker(s)${filterText} have ${Number.isFinite(total) ? total : 'dynamic'} slot(s) in all, ${free} free${drainingText}`;
  return new NoEnoughResourceError(
    ErrorCode.NO_ENOUGH_RESOURCE,
    `NoEnoughResource: job ${req.jobId} needs ${req.slotCount} slot(s), but ${why}`,
    {
      jobId: req.jobId,
      retryable: true,
      details: { needed: req.slotCount, free, eligibleWorkers: eligible.length, workers: all.length },
    },
  );
}
