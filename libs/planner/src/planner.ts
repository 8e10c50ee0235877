import type { CatalogTable, JobMode, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { parseJobConfig, validateEnv, type EnvConfig, type JobConfig, type ParseOptions, type PluginConfig } from '@tideway/config';
import { planJobConfig, formatPlan, planToJson, type JobPlan, type Pipeline, type PipelineVertex, type PluginBlock } from '@tideway/dag';
import { createSource, createTransform, createSink, resolveOptions, registry } from '@tideway/plugins';
import type { ChainNode, TaskGroupDescriptor } from '@tideway/runtime';

/** A task group ready to deploy (attempt and restore state are added at deploy time). */
export interface PlannedTaskGroup {
  index: number;
  descriptor: Omit<TaskGroupDescriptor, 'attempt'>;
}

export interface PlannedPipeline {
  pipelineId: number;
  /** The source vertex (each pipeline is a tree rooted at one source). */
  source: { vertexId: number; plugin: PluginConfig; parallelism: number };
  /** Sinks of the pipeline, with the tables they receive (for aggregated committers). */
  sinks: Array<{ vertexId: number; plugin: PluginConfig; parallelism: number; inputTables: CatalogTable[] }>;
  taskGroups: PlannedTaskGroup[];
}

/** A job parsed, validated and planned: what JobMaster runs. */
export interface PlannedJob {
  jobId: string;
  jobName: string;
  jobMode: JobMode;
  env: EnvConfig;
  config: JobConfig;
  plan: JobPlan;
  pipelines: PlannedPipeline[];
  /** Output tables of each logical vertex (for `tideway plan`). */
  schemas: Map<number, CatalogTable[]>;
  /** Total slots the job needs. */
  slots: number;
}

export interface PlanRequest extends ParseOptions {
  jobId: string;
  /** -n: overrides env job.name. */
  jobName?: string;
}

/**
 * Turns a job config's text into a PlannedJob: parse (HOCON/JSON, `-i` variables), validate
 * every plugin's options against its spec, build LogicalDag -> pipelines -> physical plan, and
 * infer each vertex's tables by creating its plugin (sources report their tables, transforms
 * infer theirs). Any problem is a ConfigError naming file:line and the option.
 */
export async function planJobText(text: string, req: PlanRequest): Promise<PlannedJob> {
  const config = parseJobConfig(text, req);
  const env = validateEnv(config.env, config.envLines, config.file);
  const optionsByBlock = new Map<PluginBlock, PluginOptions>();
  for (const block of [...config.sources, ...config.transforms, ...config.sinks]) optionsByBlock.set(block, resolveOptions(block, registry));
  const plan = planJobConfig(config, (b) => optionsByBlock.get(b)!);
  const jobMode = env.jobMode;
  const schemas = new Map<number, CatalogTable[]>();
  const pipelines: PlannedPipeline[] = [];
  const facts = { jobId: req.jobId, jobMode, jobName: req.jobName ?? env.jobName, rowsPerSecond: env.readLimitRowsPerSecond ?? 0 };
  for (const p of plan.pipelines) pipelines.push(await planPipeline(p, plan, facts, config, schemas));
  return {
    jobId: req.jobId,
    jobName: req.jobName ?? env.jobName,
    jobMode,
    env,
    config,
    plan,
    pipelines,
    schemas,
    slots: pipelines.reduce((n, p) => n + p.taskGroups.length, 0),
  };
}

/** The text and JSON `tideway plan` prints. */
export function describePlan(job: PlannedJob): { text: string; json: string } {
  const text = formatPlan(job.plan, { schemas: job.schemas });
  const json = JSON.stringify(planToJson(job.plan, { schemas: job.schemas }), null, 2);
  return { text, json };
}

function blockOf(config: JobConfig, v: PipelineVertex): PluginConfig {
  const list = v.plugin.type === 'source' ? config.sources : v.plugin.type === 'transform' ? config.transforms : config.sinks;
  return list[v.plugin.index]!;
}

interface JobFacts {
  jobId: string;
  jobName: string;
  jobMode: JobMode;
  rowsPerSecond: number;
}

async function planPipeline(p: Pipeline, plan: JobPlan, job: JobFacts, config: JobConfig, schemas: Map<number, CatalogTable[]>): Promise<PlannedPipeline> {
  const physical = plan.physical.pipelines.find((x) => x.pipelineId === p.id)!;
  if (physical.stages.length > 1) {
    const shuffle = physical.shuffles[0]!;
    const v = p.vertices.find((x) => x.id === shuffle.downstream.vertexId)!;
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `parallelism ${v.parallelism} differs from its input's ${shuffle.upstream.parallelism}; running a shuffle between different parallelisms is not supported yet: give the plugins of one pipeline the same parallelism`,
      { place: { file: v.plugin.file, line: v.plugin.line, plugin: v.plugin.name, option: 'parallelism' } },
    );
  }
  const byId = new Map(p.vertices.map((v) => [v.id, v]));
  const children = new Map<number, number[]>();
  for (const e of p.edges) children.set(e.from, [...(children.get(e.from) ?? []), e.to]);
  const parentOf = new Map(p.edges.map((e) => [e.to, e.from]));

  // Infer tables parents first (vertices are listed parents first).
  const outTables = new Map<number, CatalogTable[]>();
  const inTables = new Map<number, CatalogTable[]>();
  for (const v of p.vertices) {
    const plugin = blockOf(config, v);
    const inputs = v.plugin.type === 'source' ? [] : outTables.get(parentOf.get(v.id)!) ?? [];
    inTables.set(v.id, inputs);
    const ctx = { jobId: job.jobId, jobMode: job.jobMode, parallelism: v.parallelism, inputTables: inputs };
    if (v.plugin.type === 'source') {
      const source = createSource(plugin, ctx);
      // Sources that must look at an external system first (Jdbc reads table schemas).
      await source.prepare?.();
      outTables.set(v.id, source.catalogTables());
    }
    else if (v.plugin.type === 'transform') outTables.set(v.id, createTransform(plugin, ctx).outputTables());
    else createSink(plugin, ctx); // validates the sink against its input tables now, not on a worker
    if (v.plugin.type !== 'sink' && !schemas.has(v.logicalId)) schemas.set(v.logicalId, outTables.get(v.id)!);
  }

  const chain = (id: number): ChainNode => {
    const v = byId.get(id)!;
    return { vertexId: v.id, plugin: blockOf(config, v), parallelism: v.parallelism, inputTables: inTables.get(v.id)!, children: (children.get(id) ?? []).map(chain) };
  };
  const root = chain(p.sourceVertexId);
  const source = byId.get(p.sourceVertexId)!;
  return {
    pipelineId: p.id,
    source: { vertexId: source.id, plugin: blockOf(config, source), parallelism: source.parallelism },
    sinks: p.vertices
      .filter((v) => v.plugin.type === 'sink')
      .map((v) => ({ vertexId: v.id, plugin: blockOf(config, v), parallelism: v.parallelism, inputTables: inTables.get(v.id)! })),
    taskGroups: physical.taskGroups.map((tg, i) => ({
      index: i,
      descriptor: {
        jobId: job.jobId,
        jobName: job.jobName,
        jobMode: job.jobMode,
        pipelineId: p.id,
        taskGroupIndex: i,
        subtaskIndex: tg.subtaskIndex,
        root,
        rowsPerSecond: job.rowsPerSecond,
      },
    })),
  };
}
