import { EXECUTION_STATE } from '@tideway/dag';
import type { TaskGroupLocation } from '@tideway/contracts';
import type { PlannedPipeline } from '@tideway/planner';
import { descriptorCodec, taskGroupStateCodec, type TaskGroupDescriptor, type TaskGroupState } from '@tideway/runtime';
import type { RestorePoint } from './checkpoint-records.js';
import type { WorkerGateway } from './gateways.js';
import { moveTrack, type TaskGroupTrack } from './task-group-track.js';

/** What deploying one attempt's task groups needs of its pipeline. */
export interface DeploymentContext {
  workers: WorkerGateway;
  attempt: number;
  location(index: number): TaskGroupLocation;
  /** Whether the pipeline is still deploying this attempt. */
  deploying(): boolean;
  /** Whether the pipeline is stopping this attempt (a cancel, or another task group failed). */
  stopping(): boolean;
  /** A task group counts as cancelled (nothing of it runs on its worker). */
  onCancelled(index: number): void;
}

/**
 * Deploys every task group of an attempt into its slot (restored ones then get their state by
 * NotifyTaskRestore). Nothing more goes out once the pipeline stopped deploying.
 */
export async function deployTaskGroups(
  ctx: DeploymentContext,
  plan: PlannedPipeline,
  tracks: TaskGroupTrack[],
  restore?: RestorePoint,
): Promise<void> {
  const peers = Object.fromEntries(tracks.map((t) => [t.index, t.slot!.workerAddress]));
  await Promise.all(
    plan.taskGroups.map(async (tg) => {
      const track = tracks[tg.index];
      // A restored task group gets its state by NotifyTaskRestore once deployed (it waits
      // in WAITING_RESTORE meanwhile), not inside the descriptor.
      const descriptor: TaskGroupDescriptor = { ...tg.descriptor, attempt: ctx.attempt, peers };
      // Cancelled or failed meanwhile: nothing more goes out (its track was cancelled already).
      if (!ctx.deploying()) return;
      moveTrack(track, 'DEPLOYING');
      await deployOrCancel(
        ctx,
        track,
        descriptorCodec.encode(descriptor),
        restore && { checkpointId: restore.checkpointId, state: restore.taskStates.get(tg.index) },
      );
    }),
  );
}

/**
 * Deploys one task group. A cancel that reached the worker before this deploy found nothing
 * to stop there, so it is sent again once the deploy is acknowledged; a deploy that fails
 * while the pipeline is already stopping leaves nothing running, so the task group counts
 * as cancelled.
 */
async function deployOrCancel(
  ctx: DeploymentContext,
  track: TaskGroupTrack,
  descriptor: Buffer,
  restore?: { checkpointId: number; state: TaskGroupState | undefined },
): Promise<void> {
  const address = track.slot!.workerAddress;
  const location = ctx.location(track.index);
  try {
    await ctx.workers.deploy(address, location, track.slot!, descriptor, restore?.checkpointId ?? 0);
    if (restore && !ctx.stopping()) {
      await ctx.workers.restore(address, location, restore.checkpointId, taskGroupStateCodec.encodeOptional(restore.state));
    }
  } catch (err) {
    if (!ctx.stopping()) throw err;
    ctx.onCancelled(track.index);
    return;
  }
  if (!ctx.stopping() || EXECUTION_STATE.isTerminal(track.state)) return;
  ctx.workers.cancel(address, location, 'cancelled while deploying').catch(() => ctx.onCancelled(track.index));
}
