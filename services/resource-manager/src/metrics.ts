import { onFirstUse } from '@tideway/common';
import type { Registry } from 'prom-client';
import type { ResourceManager } from './resource-manager.js';

/** prom-client, loaded when metrics are first registered: a process serving none (a local-mode job) skips its 90 modules. */
const prom = onFirstUse<typeof import('prom-client')>('prom-client', import.meta.url);

/**
 * The resource manager's Prometheus metrics, read from its registry at scrape time:
 * registered workers (and those draining), slots (total, used, free) and workers declared lost.
 * Workers with dynamic slots have no fixed total: they add their used slots to `used` only, and
 * nothing to `total` or `free`; a draining worker's unused slots are not `free` (none is granted
 * there).
 */
export function registerResourceManagerMetrics(registry: Registry, manager: ResourceManager): void {
  new (prom().Gauge)({
    name: 'tideway_workers',
    help: 'Workers registered with the resource manager.',
    registers: [registry],
    collect() {
      this.set(manager.listWorkers().length);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_workers_draining',
    help: 'Workers draining (tideway cluster drain, or stopping): no slot is granted on them.',
    registers: [registry],
    collect() {
      this.set(manager.listWorkers().filter((w) => w.draining).length);
    },
  });
  const slots = (help: string, name: string, pick: (s: { total: number; used: number; free: number }) => number) =>
    new (prom().Gauge)({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(slotCounts(manager)));
      },
    });
  slots('Fixed slots offered by all workers (dynamic-slot workers count none).', 'tideway_slots', (s) => s.total);
  slots('Slots granted to jobs.', 'tideway_slots_used', (s) => s.used);
  slots('Fixed slots not granted to any job.', 'tideway_slots_free', (s) => s.free);
  new (prom().Counter)({
    name: 'tideway_workers_lost_total',
    help: 'Workers declared lost after missing heartbeats.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(manager.lostWorkers);
    },
  });
}

/** Slot totals over every registered worker. */
export function slotCounts(manager: ResourceManager): { total: number; used: number; free: number } {
  let total = 0;
  let used = 0;
  let free = 0;
  for (const w of manager.listWorkers()) {
    used += w.assignedSlots.length;
    if (w.dynamicSlot) continue;
    total += w.slotNum;
    if (!w.draining) free += Math.max(0, w.slotNum - w.assignedSlots.length);
  }
  return { total, used, free };
}
