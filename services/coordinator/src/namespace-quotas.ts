import type { NamespaceLimits } from '@tideway/config';
import type { NamespaceUsage } from '@tideway/contracts';
import type { JobMaster } from './job-master.js';
import type { QueuePolicy, Quota } from './scheduler.js';

/** What the quotas see of the dispatcher: its jobs, their namespaces, the configured limits. */
export interface QuotaSource {
  jobs(): Iterable<JobMaster>;
  namespaceOf(jobId: string): string;
  limits?: Readonly<Record<string, NamespaceLimits>>;
}

/** A job holds slots from the moment it got them until it ends (ended pipelines gave theirs back). */
function holdsSlots(job: JobMaster): boolean {
  return !job.isEnded() && job.status !== 'CREATED' && job.status !== 'PENDING';
}

function quotaOf(src: QuotaSource, ns: string): Quota {
  const l = src.limits?.[ns];
  return { maxRunningJobs: l?.maxRunningJobs ?? 0, maxSlots: l?.maxSlots ?? 0 };
}

function usageOf(src: QuotaSource, ns: string): { runningJobs: number; slots: number } {
  let runningJobs = 0;
  let slots = 0;
  for (const j of src.jobs()) {
    if (!holdsSlots(j) || src.namespaceOf(j.jobId) !== ns) continue;
    runningJobs++;
    slots += j.pipelines.reduce((n, p) => n + p.slotIds().length, 0);
  }
  return { runningJobs, slots };
}

/** The queue's view of namespaces and their quotas (tideway.auth.namespaces). */
export function quotaPolicy(src: QuotaSource): QueuePolicy {
  return {
    namespaceOf: (job) => src.namespaceOf(job.jobId),
    quotaOf: (ns) => quotaOf(src, ns),
    usageOf: (ns) => usageOf(src, ns),
  };
}

/**
 * Usage against quota of every namespace that has a quota, or jobs holding or waiting for
 * slots (tideway overview, the dashboard), in name order.
 */
export function namespaceUsage(src: QuotaSource, pending: ReadonlyMap<string, number>): NamespaceUsage[] {
  const names = new Set<string>([...pending.keys()]);
  for (const [ns, l] of Object.entries(src.limits ?? {})) if ((l.maxRunningJobs ?? 0) > 0 || (l.maxSlots ?? 0) > 0) names.add(ns);
  for (const j of src.jobs()) if (holdsSlots(j)) names.add(src.namespaceOf(j.jobId));
  return [...names].sort().map((namespace) => {
    const q = quotaOf(src, namespace);
    const u = usageOf(src, namespace);
    return {
      namespace,
      runningJobs: u.runningJobs,
      maxRunningJobs: q.maxRunningJobs,
      slots: u.slots,
      maxSlots: q.maxSlots,
      pendingJobs: pending.get(namespace) ?? 0,
    };
  });
}
