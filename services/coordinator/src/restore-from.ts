import type { PlannedJob } from '@tideway/planner';
import { createSink } from '@tideway/plugins/lazy';
import type { RestorePoint } from './checkpoint-records.js';
import { fitRestorePoint, type RescaleAbilities } from './rescale.js';

/**
 * The job whose checkpoints a submitted (or taken over) job starts from: its own id with -r,
 * another ended job's with --restore-with-checkpoint; undefined for a fresh start.
 */
export function restoreSourceOf(req: { restoreJobId: string; restoreWithCheckpoint?: string }): string | undefined {
  return req.restoreWithCheckpoint || req.restoreJobId || undefined;
}

/** Whether each plugin of a pipeline lets a restore change its parallelism (Source/Sink.rescalable). */
function abilitiesOf(job: PlannedJob, p: PlannedJob['pipelines'][number]): RescaleAbilities {
  return {
    source: { name: p.source.plugin.name, rescalable: p.source.rescalable },
    sinks: new Map(
      p.sinks.map((s) => {
        const sink = createSink(
          s.plugin,
          { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables },
          job.registry,
        );
        return [s.vertexId, { name: s.plugin.name, rescalable: sink.rescalable === true }];
      }),
    ),
  };
}

/**
 * The restore points of `from`'s pipelines fitted to the planned job's parallelisms
 * (rescale.ts); throws, naming the plugin, when one cannot take the change.
 */
export function fitRestorePoints(points: Map<number, RestorePoint>, job: PlannedJob, from: string): Map<number, RestorePoint> {
  const out = new Map<number, RestorePoint>();
  for (const p of job.pipelines) {
    const point = points.get(p.pipelineId);
    if (point) out.set(p.pipelineId, fitRestorePoint(point, p, abilitiesOf(job, p), from));
  }
  return out;
}
