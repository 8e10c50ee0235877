import { sleep } from '@tideway/common';
import { isCoordinatorName, isWorkerName, type ClusterProcesses, type ClusterProcessName } from '@tideway/launchers';
import { maxAttempt, type JobProbe, type JobSample } from './job-probe.js';
import type { SeededRandom } from './random.js';
import { waitRowsMoving, type RecoveryOutcome } from './recovery.js';

/** What a killed process was to the job when it was killed. */
export type ProcessKind = 'leader' | 'follower' | 'resource-manager' | 'job worker' | 'idle worker';

/** Which kinds of process are hit how often: the leader and the job's workers matter most. */
const KIND_WEIGHTS: ReadonlyArray<readonly [ProcessKind, number]> = [
  ['leader', 3],
  ['follower', 1],
  ['resource-manager', 1],
  ['job worker', 3],
  ['idle worker', 1],
];

/** The jobs' processes the next kill may hit, by kind, from a look at the job. */
export function processesByKind(cluster: ClusterProcesses, s: JobSample): Map<ProcessKind, ClusterProcessName[]> {
  const leader = cluster.nameOf(s.leader);
  const byKind = new Map<ProcessKind, ClusterProcessName[]>(KIND_WEIGHTS.map(([k]) => [k, []]));
  for (const name of cluster.names()) {
    const kind: ProcessKind = isCoordinatorName(name)
      ? name === leader
        ? 'leader'
        : 'follower'
      : isWorkerName(name)
        ? s.workers.has(cluster.address(name))
          ? 'job worker'
          : 'idle worker'
        : 'resource-manager';
    byKind.get(kind)!.push(name);
  }
  return byKind;
}

/** One kill or pause and what followed. */
export interface KillRecord {
  n: number;
  /** Seconds since the job was submitted. */
  atSeconds: number;
  target: ClusterProcessName;
  kind: ProcessKind;
  signal: 'SIGKILL' | 'SIGSTOP';
  /** How long a paused process stayed paused. */
  pauseSeconds?: number;
  outcome: RecoveryOutcome['kind'];
  /** Seconds from the kill until rows moved again. */
  recoverySeconds?: number;
  leaderBefore?: ClusterProcessName;
  leaderAfter?: ClusterProcessName;
  attemptBefore: number;
  attemptAfter?: number;
}

/** What a kill step needs from its run. */
export interface KillContext {
  cluster: ClusterProcesses;
  probe: JobProbe;
  random: SeededRandom;
  /** The lease (ms): a pause lasts 1.2 to 2 times it. */
  leaseTtlMs: number;
  /** How long rows may take to move again before the job counts as stuck. */
  recoveryTimeoutMs: number;
  submittedAt: number;
  signal: AbortSignal;
}

/**
 * Kills (SIGKILL) or pauses (SIGSTOP, then SIGCONT after a random pause longer than the lease)
 * one process chosen at random by kind, and waits until the job's rows move again. A killed
 * process is not started again here (the caller does, after the measurement).
 */
export async function killOne(ctx: KillContext, n: number, before: JobSample): Promise<KillRecord> {
  const { cluster, random } = ctx;
  const byKind = processesByKind(cluster, before);
  const kind = random.weighted(KIND_WEIGHTS.map(([k, w]) => [k, byKind.get(k)!.length > 0 ? w : 0] as const));
  const target = random.pick(byKind.get(kind)!);
  const signal = random.next() < 0.5 ? 'SIGKILL' : 'SIGSTOP';
  const pauseMs = Math.round(ctx.leaseTtlMs * random.between(1.2, 2));
  const record: KillRecord = {
    n,
    atSeconds: (Date.now() - ctx.submittedAt) / 1000,
    target,
    kind,
    signal,
    outcome: 'stuck',
    leaderBefore: cluster.nameOf(before.leader),
    attemptBefore: maxAttempt(before),
  };
  const killedAt = Date.now();
  let resumedAt: number | undefined;
  let resumed: Promise<void> = Promise.resolve();
  if (signal === 'SIGKILL') await cluster.kill(target, 'SIGKILL');
  else {
    cluster.signal(target, 'SIGSTOP');
    record.pauseSeconds = pauseMs / 1000;
    resumed = sleep(pauseMs, ctx.signal).finally(() => {
      cluster.signal(target, 'SIGCONT');
      resumedAt = Date.now();
    });
    resumed.catch(() => undefined);
  }
  const disruptive = kind === 'leader' || kind === 'job worker';
  const outcome = await waitRowsMoving(
    ctx.probe,
    { killedAt, disruptive, attemptBefore: record.attemptBefore, resumedAt: () => resumedAt },
    ctx.recoveryTimeoutMs,
    ctx.signal,
  );
  await resumed;
  record.outcome = outcome.kind;
  const after = outcome.kind === 'stuck' ? outcome.last : outcome.sample;
  if (outcome.kind === 'recovered') record.recoverySeconds = outcome.seconds;
  if (after) {
    record.leaderAfter = cluster.nameOf(after.leader);
    record.attemptAfter = maxAttempt(after);
  }
  return record;
}
