import type { RunningTaskGroup, SlotProfile, WorkerProfile } from '@tideway/contracts';
import { backoffDelay, logger, sleep } from '@tideway/common';
import type { StoredJob } from '@tideway/cluster';
import type { Leadership } from './leadership.js';
import type { RemoteResourceManager, RemoteWorkers } from './remote-gateways.js';

const log = logger('coordinator');

/** What a new leader found on the workers: who runs what, and which slots are still held. */
export interface ClusterSnapshot {
  workers: WorkerProfile[];
  /** Granted slots, by slot id (the resource manager's table). */
  slots: Map<string, SlotProfile>;
  /** Task groups the workers run, by worker address. */
  running: Map<string, RunningTaskGroup[]>;
}

/**
 * The first steps of a take-over, before any job is resumed: learn the workers and their slots
 * from the resource manager (waiting while it is away), ask every worker for the task groups
 * it runs (each call carries the new epoch, so from then on the workers refuse the old
 * leader), cancel them all (they belong to earlier leaders: this one deployed nothing yet),
 * and wait a little until they have stopped, so that redeployed task groups never run beside
 * them.
 */
export async function reconcileWorkers(
  fence: Leadership,
  rm: RemoteResourceManager,
  workers: RemoteWorkers,
  stopWaitMs = 10_000,
): Promise<ClusterSnapshot> {
  let profiles: WorkerProfile[];
  for (let attempt = 0; ; attempt++) {
    fence.check();
    try {
      profiles = (await rm.listWorkers()).workers;
      break;
    } catch (err) {
      if (attempt === 2) log.warn({ err: (err as Error).message }, 'take-over waits for the resource manager');
      await sleep(backoffDelay(attempt, 100, 2000) + 50);
    }
  }
  const slots = new Map(profiles.flatMap((w) => w.assignedSlots.map((s) => [s.slotId, s] as const)));
  const running = await listAll(profiles, workers);
  const reason = `taken over by a new leader (epoch ${fence.epoch})`;
  let cancelled = 0;
  await Promise.all(
    [...running].flatMap(([address, groups]) =>
      groups.map(async (g) => {
        cancelled++;
        await workers
          .cancel(address, g.location!, reason)
          .catch((err: unknown) => log.debug({ err: (err as Error).message, address }, 'cancel on take-over not delivered'));
      }),
    ),
  );
  if (cancelled > 0) {
    log.info({ taskGroups: cancelled, workers: running.size }, 'take-over: cancelled the task groups of earlier leaders');
    const until = Date.now() + stopWaitMs;
    while (Date.now() < until) {
      const still = await listAll(profiles, workers);
      if ([...still.values()].every((g) => g.length === 0)) break;
      await sleep(100);
    }
  }
  return { workers: profiles, slots, running };
}

async function listAll(profiles: WorkerProfile[], workers: RemoteWorkers): Promise<Map<string, RunningTaskGroup[]>> {
  const out = new Map<string, RunningTaskGroup[]>();
  await Promise.all(
    profiles.map(async (w) => {
      try {
        out.set(w.address, await workers.listTaskGroups(w.address));
      } catch (err) {
        // A worker that does not answer is found lost by the resource manager; its task groups
        // are replaced when their pipelines restart.
        log.debug({ err: (err as Error).message, worker: w.address }, 'take-over: worker did not list its task groups');
      }
    }),
  );
  return out;
}

/**
 * The slots a recorded pipeline's task groups can keep: those the resource manager still
 * grants to the same job on the same worker. Others are re-applied for.
 */
export function reusableSlots(job: StoredJob, pipelineId: number, slots: Map<string, SlotProfile>): Array<SlotProfile | undefined> {
  const p = job.state.pipelines.find((x) => x.pipelineId === pipelineId);
  return (p?.taskGroups ?? []).map((t) => {
    const held = t.slot ? slots.get(t.slot.slotId) : undefined;
    return held && held.jobId === job.info.jobId && held.workerAddress === t.slot!.workerAddress ? held : undefined;
  });
}
