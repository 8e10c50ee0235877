import { ConfigError, ErrorCode } from '@tideway/common';
import { isComparable, type ComparableTables, type ComparedTable } from '@tideway/connector-jdbc';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSink } from '@tideway/plugins/lazy';

/** A pipeline's source and its sinks, each with the tables `tideway verify` compares. */
export interface ComparedPipeline {
  readonly pipelineId: number;
  /** The source instance planning prepared (schemas read). */
  readonly source: ComparableTables;
  readonly sourceTables: readonly ComparedTable[];
  readonly sinks: ReadonlyArray<{ readonly sink: ComparableTables; readonly tables: readonly ComparedTable[] }>;
}

/**
 * Finds the tables to compare in a planned job: each pipeline's source tables and the tables
 * its sinks write them to. Refused (ConfigError, exit 2) when rows change between them
 * (transforms) or a plugin cannot say where its rows are (queries, non-Jdbc sinks).
 */
export function comparedPipelines(job: PlannedJob): ComparedPipeline[] {
  return job.pipelines.map((p) => comparedPipeline(job, p));
}

function comparedPipeline(job: PlannedJob, p: PlannedPipeline): ComparedPipeline {
  const { source, sourceTables } = comparedSource(job, p);
  return { pipelineId: p.pipelineId, source, sourceTables, sinks: comparedSinks(job, p) };
}

/** A pipeline's sinks, which must be comparable (Jdbc), each with its tables. */
export function comparedSinks(job: PlannedJob, p: PlannedPipeline): ComparedPipeline['sinks'] {
  return p.sinks.map((s) => {
    const ctx = { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables };
    const sink = createSink(s.plugin, ctx, job.registry);
    if (!isComparable(sink)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `verify cannot read the tables of sink ${s.plugin.name}: only Jdbc sinks can be compared${/^kafka$/i.test(s.plugin.name) ? ' (a CDC -> Kafka -> Jdbc pipeline: verify this job with --then <the job reading its topics>)' : ''}`,
        { place: { file: s.plugin.file, line: s.plugin.line } },
      );
    }
    return { sink, tables: comparedOrRefuse(sink, s.plugin) };
  });
}

/** Refuses a pipeline with transforms: they change the rows between the compared tables. */
export function refuseTransforms(job: PlannedJob, p: PlannedPipeline): void {
  const pipeline = job.plan.pipelines.find((x) => x.id === p.pipelineId)!;
  const transform = pipeline.vertices.find((v) => v.plugin.type === 'transform');
  if (transform) {
    const cfg = job.config.transforms[transform.plugin.index];
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `verify compares a source's tables with its sink's, but transform ${cfg.name} changes the rows between them; verify a job without transforms`,
      {
        place: { file: cfg.file, line: cfg.line },
      },
    );
  }
}

/** A pipeline's source, which must be comparable, and its tables. */
export function comparedSource(job: PlannedJob, p: PlannedPipeline): { source: ComparableTables; sourceTables: ComparedTable[] } {
  refuseTransforms(job, p);
  const source = p.source.prepared;
  const srcCfg = p.source.plugin;
  if (!isComparable(source)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `verify cannot read the tables of source ${srcCfg.name}: only Jdbc, MySQL-CDC and Postgres-CDC sources can be compared`,
      {
        place: { file: srcCfg.file, line: srcCfg.line },
      },
    );
  }
  return { source, sourceTables: comparedOrRefuse(source, srcCfg) };
}

export function comparedOrRefuse(x: ComparableTables, cfg: { name: string; file?: string; line?: number }): ComparedTable[] {
  const t = x.comparedTables();
  if (typeof t === 'string')
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `verify cannot compare ${cfg.name}: ${t}`, {
      place: { file: cfg.file, line: cfg.line },
    });
  return t;
}
