import { onFirstUse } from '@tideway/common';
import type { Registry } from 'prom-client';
import type { WorkerServer } from './server.js';

/** prom-client, loaded when metrics are first registered: a process serving none (a local-mode job) skips its 90 modules. */
const prom = onFirstUse<typeof import('prom-client')>('prom-client', import.meta.url);

/**
 * A worker's Prometheus metrics, read at scrape time: task groups running here, the slots it
 * holds for jobs and, with a fixed slot-num, the slots it offers.
 */
export function registerWorkerMetrics(registry: Registry, worker: WorkerServer): void {
  new (prom().Gauge)({
    name: 'tideway_worker_task_groups_running',
    help: 'Task groups running on this worker (one worker thread each).',
    registers: [registry],
    collect() {
      this.set(worker.tasks.runningCount());
    },
  });
  new (prom().Gauge)({
    name: 'tideway_worker_slots_used',
    help: 'Slots this worker holds for running task groups.',
    registers: [registry],
    collect() {
      this.set(worker.tasks.heldSlots().length);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_worker_slots',
    help: 'Slots this worker offers (slot-num; 0 with dynamic-slot).',
    registers: [registry],
    collect() {
      const p = worker.profile();
      this.set(p.dynamicSlot ? 0 : p.slotNum);
    },
  });
}
