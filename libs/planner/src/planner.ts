import type { CatalogTable, JobMode, PluginOptions, PluginType, Source } from '@tideway/api';
import {
  deadLetterSink,
  parseJobConfig,
  validateEnv,
  type EnvConfig,
  type JobConfig,
  type ParseOptions,
  type PluginConfig,
} from '@tideway/config';
import { planJobConfig, formatPlan, planToJson, type JobPlan, type Pipeline, type PipelineVertex, type PluginBlock } from '@tideway/dag';
import {
  createSource,
  createTransform,
  createSink,
  loadPluginsFor,
  resolveOptions,
  type InstantiateContext,
  type PluginRegistry,
} from '@tideway/plugins/lazy';
import { logger, redactSecrets, redactText } from '@tideway/common';
import type { ChainNode, DeadLetterTarget, JobPluginPackage, RowErrorPolicy, TaskGroupDescriptor } from '@tideway/runtime';

/** A task group ready to deploy (attempt and restore state are added at deploy time). */
export interface PlannedTaskGroup {
  index: number;
  /** Whether it runs a source reader (checkpoints are triggered there; others get barriers in-band). */
  isSource: boolean;
  descriptor: Omit<TaskGroupDescriptor, 'attempt'>;
}

export interface PlannedPipeline {
  pipelineId: number;
  /** The source vertex (each pipeline is a tree rooted at one source). */
  source: {
    vertexId: number;
    plugin: PluginConfig;
    parallelism: number;
    /**
     * The source instance planning created and prepared (its schema read); the coordinator's
     * first attempt opens its split enumerator on it instead of reading the schema again. Absent
     * for a source the PlanningHost planned (a plugin package's, in a thread of its own).
     */
    prepared?: Source;
    /** Source.rescalable: whether a restore may change the source's parallelism. */
    rescalable: boolean;
  };
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
  /** The plugin packages of the cluster's store the job runs (every task deployment names them). */
  packages: JobPluginPackage[];
  /** The folders those packages were unpacked into here (the coordinator's plugin thread loads them from there). */
  packageDirs: string[];
  /** The job's plugins, loaded. */
  registry: PluginRegistry;
}

export interface PlanRequest extends ParseOptions {
  jobId: string;
  /** -n: overrides env job.name. */
  jobName?: string;
  /**
   * Called with every plugin block and its validated options before any plugin is created (no
   * source has connected to its system or read a file yet): throws to refuse the job.
   */
  admit?: (blocks: ReadonlyArray<{ block: PluginBlock; options: PluginOptions }>) => void;
  /**
   * Resolves the job's plugins that are not built-in to packages of the cluster's plugin store:
   * the plan loads them from `dirs` (unpacked by hash, so two jobs may run two versions) and
   * every task deployment names `refs`, which workers fetch and verify.
   */
  packages?: (blocks: ReadonlyArray<{ type: PluginType; name: string }>) => Promise<{ refs: JobPluginPackage[]; dirs: string[] }>;
  /**
   * Where the planning-time code of some plugins runs instead of here (the coordinator puts a
   * plugin package's factories, Source.prepare and its tables' inference in a thread under the
   * call clock: docs/decisions/0093). Without it, every plugin is planned on this thread.
   */
  host?: PlanningHost;
}

/** Runs the planning-time code of the plugins it `hosts` elsewhere; what crosses is plain data. */
export interface PlanningHost {
  hosts(type: PluginType, name: string): boolean;
  /** Creates and prepares the source: its tables, and whether it is rescalable. */
  source(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<{ tables: CatalogTable[]; rescalable: boolean }>;
  /** Creates the transform: its output tables. */
  transform(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<CatalogTable[]>;
  /** Creates the sink (it checks its options against its input tables). */
  sink(vertexId: number, plugin: PluginConfig, ctx: InstantiateContext): Promise<void>;
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
  const route = env.errorHandling.transform.route ?? env.errorHandling.sink.route;
  // mode ROUTE: the dead-letter sink is a sink block of the job for validation, admission and the committers.
  const deadLetter = route ? deadLetterSink(route, config, config.sinks.length) : undefined;
  const blocks = [...config.sources, ...config.transforms, ...config.sinks, ...(deadLetter ? [deadLetter.plugin] : [])];
  const packages = (await req.packages?.(blocks)) ?? { refs: [], dirs: [] };
  const registry = await loadPluginsFor(blocks, packages.dirs);
  const optionsByBlock = new Map<PluginBlock, PluginOptions>();
  for (const block of blocks) optionsByBlock.set(block, resolveOptions(block, registry));
  // Retired options (SeaTunnel dropped them and ignores them): said once per job, here, not by every task that re-validates.
  const log = logger('planner', { jobId: req.jobId });
  for (const o of optionsByBlock.values()) for (const w of o.warnings ?? []) log.warn(w);
  req.admit?.([...optionsByBlock].map(([block, options]) => ({ block, options })));
  const plan = planJobConfig(config, (b) => optionsByBlock.get(b)!);
  const jobMode = env.jobMode;
  const schemas = new Map<number, CatalogTable[]>();
  const pipelines: PlannedPipeline[] = [];
  const facts = {
    jobId: req.jobId,
    jobMode,
    jobName: req.jobName ?? env.jobName,
    rowsPerSecond: env.readLimitRowsPerSecond ?? 0,
    bytesPerSecond: env.readLimitBytesPerSecond ?? 0,
    rowErrors: rowErrorPolicy(env.errorHandling.transform),
    sinkRowErrors: rowErrorPolicy(env.errorHandling.sink),
    checkpoint: { intervalMs: env.checkpointInterval, timeoutMs: env.checkpointTimeout },
    ...(deadLetter
      ? { deadLetter: { ...deadLetter, firstVertexId: Math.max(0, ...plan.pipelines.flatMap((p) => p.vertices.map((v) => v.id))) + 1 } }
      : {}),
  };
  for (const p of plan.pipelines) pipelines.push(await planPipeline(p, plan, facts, config, schemas, registry, req.host));
  if (packages.refs.length > 0)
    for (const p of pipelines) for (const tg of p.taskGroups) tg.descriptor.pluginPackages = packages.refs.map((r) => ({ ...r }));
  return {
    packages: packages.refs,
    packageDirs: packages.dirs,
    jobId: req.jobId,
    jobName: req.jobName ?? env.jobName,
    jobMode,
    env,
    config,
    plan,
    pipelines,
    schemas,
    slots: pipelines.reduce((n, p) => n + p.taskGroups.length, 0),
    registry,
  };
}

/** The text and JSON `tideway plan` prints. */
export function describePlan(job: PlannedJob): { text: string; json: string } {
  // Secret options (passwords, keys) are masked: a plan is shown to people and stored.
  const text = redactText(formatPlan(job.plan, { schemas: job.schemas }));
  const json = JSON.stringify(redactSecrets(planToJson(job.plan, { schemas: job.schemas })), null, 2);
  return { text, json };
}

function blockOf(config: JobConfig, v: PipelineVertex): PluginConfig {
  const list = v.plugin.type === 'source' ? config.sources : v.plugin.type === 'transform' ? config.transforms : config.sinks;
  return list[v.plugin.index];
}

interface JobFacts {
  jobId: string;
  jobName: string;
  jobMode: JobMode;
  rowsPerSecond: number;
  bytesPerSecond: number;
  rowErrors?: RowErrorPolicy;
  sinkRowErrors?: RowErrorPolicy;
  /** env checkpoint.interval / checkpoint.timeout, for the plugins' planning-time checks. */
  checkpoint?: { intervalMs?: number; timeoutMs?: number };
  /**
   * mode ROUTE: the dead-letter sink block and its table; pipeline p's dead-letter vertex is
   * `firstVertexId + index of p` (after every vertex of the DAG).
   */
  deadLetter?: { plugin: PluginConfig; table: CatalogTable; firstVertexId: number };
}

/** A stage's row-level error handling for the task groups (absent when DISABLE). */
function rowErrorPolicy(t: EnvConfig['errorHandling']['transform']): RowErrorPolicy | undefined {
  if (t.mode === 'DISABLE') return undefined;
  const { mode, route, ...rest } = t;
  return { mode, ...rest, ...(route ? { queueCapacity: route.queueCapacity, queueOverflowPolicy: route.queueOverflowPolicy } : {}) };
}

async function planPipeline(
  p: Pipeline,
  plan: JobPlan,
  job: JobFacts,
  config: JobConfig,
  schemas: Map<number, CatalogTable[]>,
  registry: PluginRegistry,
  host: PlanningHost | undefined,
): Promise<PlannedPipeline> {
  const physical = plan.physical.pipelines.find((x) => x.pipelineId === p.id)!;
  const byId = new Map(p.vertices.map((v) => [v.id, v]));
  const children = new Map<number, number[]>();
  for (const e of p.edges) children.set(e.from, [...(children.get(e.from) ?? []), e.to]);
  const parentOf = new Map(p.edges.map((e) => [e.to, e.from]));

  // Infer tables parents first (vertices are listed parents first).
  const outTables = new Map<number, CatalogTable[]>();
  const inTables = new Map<number, CatalogTable[]>();
  let prepared: Source | undefined;
  let rescalable = false;
  for (const v of p.vertices) {
    const plugin = blockOf(config, v);
    const inputs = v.plugin.type === 'source' ? [] : (outTables.get(parentOf.get(v.id)!) ?? []);
    inTables.set(v.id, inputs);
    const ctx = { jobId: job.jobId, jobMode: job.jobMode, parallelism: v.parallelism, inputTables: inputs, checkpoint: job.checkpoint };
    if (host?.hosts(v.plugin.type, plugin.name)) {
      if (v.plugin.type === 'source') {
        const planned = await host.source(v.id, plugin, ctx);
        outTables.set(v.id, planned.tables);
        if (v.id === p.sourceVertexId) rescalable = planned.rescalable;
      } else if (v.plugin.type === 'transform') outTables.set(v.id, await host.transform(v.id, plugin, ctx));
      else await host.sink(v.id, plugin, ctx);
    } else if (v.plugin.type === 'source') {
      const source = createSource(plugin, ctx, registry);
      // Sources that must look at an external system first (Jdbc reads table schemas).
      await source.prepare?.();
      outTables.set(v.id, source.catalogTables());
      if (v.id === p.sourceVertexId) {
        prepared = source;
        rescalable = source.rescalable === true;
      }
    } else if (v.plugin.type === 'transform') outTables.set(v.id, createTransform(plugin, ctx, registry).outputTables());
    else createSink(plugin, ctx, registry); // validates the sink against its input tables now, not on a worker
    if (v.plugin.type !== 'sink' && !schemas.has(v.logicalId)) schemas.set(v.logicalId, outTables.get(v.id)!);
  }

  // Each stage is a fused tree; an edge into another stage becomes a shuffle output.
  const stageOf = new Map<number, number>();
  for (const st of physical.stages) for (const v of st.vertexIds) stageOf.set(v, st.id);
  const indexesOf = (ids: readonly number[]) => ids.map((id) => physical.taskGroups.findIndex((tg) => tg.id === id));
  const chain = (id: number): ChainNode => {
    const v = byId.get(id)!;
    const kids = children.get(id) ?? [];
    const shuffles = physical.shuffles
      .filter((sh) => sh.upstream.vertexId === id)
      .map((sh) => ({
        shuffleId: sh.id,
        targets: indexesOf(sh.downstream.taskGroupIds),
        keyIndexes: primaryKeyIndexes(outTables.get(id) ?? []),
      }));
    return {
      vertexId: v.id,
      plugin: blockOf(config, v),
      parallelism: v.parallelism,
      inputTables: inTables.get(v.id)!,
      children: kids.filter((k) => stageOf.get(k) === stageOf.get(id)).map(chain),
      ...(shuffles.length > 0 ? { shuffles } : {}),
    };
  };
  const stageRoots = new Map(physical.stages.map((st) => [st.id, chain(st.vertexIds[0])]));
  const inputOf = new Map(
    physical.shuffles.map((sh) => [sh.downstream.stageId, { shuffleId: sh.id, upstreamTaskGroups: indexesOf(sh.upstream.taskGroupIds) }]),
  );
  const source = byId.get(p.sourceVertexId)!;
  const sinks = p.vertices
    .filter((v) => v.plugin.type === 'sink')
    .map((v) => ({ vertexId: v.id, plugin: blockOf(config, v), parallelism: v.parallelism, inputTables: inTables.get(v.id)! }));
  let deadLetter: DeadLetterTarget | undefined;
  const routes = (n: ChainNode): boolean =>
    (n.plugin.type === 'transform' && job.rowErrors?.mode === 'ROUTE') ||
    (n.plugin.type === 'sink' && job.sinkRowErrors?.mode === 'ROUTE') ||
    n.children.some(routes);
  if (job.deadLetter && [...stageRoots.values()].some(routes)) {
    const { plugin, table, firstVertexId } = job.deadLetter;
    deadLetter = { vertexId: firstVertexId + plan.pipelines.indexOf(p), plugin, parallelism: physical.taskGroups.length, table };
    const ctx = {
      jobId: job.jobId,
      jobMode: job.jobMode,
      parallelism: deadLetter.parallelism,
      inputTables: [table],
      checkpoint: job.checkpoint,
    };
    // validates the dead-letter sink against the error table now
    if (host?.hosts('sink', plugin.name)) await host.sink(deadLetter.vertexId, plugin, ctx);
    else createSink(plugin, ctx, registry);
    sinks.push({ vertexId: deadLetter.vertexId, plugin, parallelism: deadLetter.parallelism, inputTables: [table] });
  }
  return {
    pipelineId: p.id,
    source: {
      vertexId: source.id,
      plugin: blockOf(config, source),
      parallelism: source.parallelism,
      ...(prepared ? { prepared } : {}),
      rescalable,
    },
    sinks,
    taskGroups: physical.taskGroups.map((tg, i) => ({
      index: i,
      isSource: tg.stageId === 1,
      descriptor: {
        jobId: job.jobId,
        jobName: job.jobName,
        jobMode: job.jobMode,
        pipelineId: p.id,
        taskGroupIndex: i,
        subtaskIndex: tg.subtaskIndex,
        root: stageRoots.get(tg.stageId)!,
        ...(inputOf.has(tg.stageId) ? { input: inputOf.get(tg.stageId)! } : {}),
        rowsPerSecond: job.rowsPerSecond,
        bytesPerSecond: job.bytesPerSecond,
        ...(job.rowErrors ? { rowErrors: job.rowErrors } : {}),
        ...(job.sinkRowErrors ? { sinkRowErrors: job.sinkRowErrors } : {}),
        ...(deadLetter && routes(stageRoots.get(tg.stageId)!) ? { deadLetter } : {}),
      },
    })),
  };
}

/** Primary key column indexes of each table, for hash partitioning at a shuffle. */
function primaryKeyIndexes(tables: readonly CatalogTable[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const t of tables) {
    const pk = t.primaryKey?.columns.map((c) => t.columns.findIndex((col) => col.name === c)) ?? [];
    if (pk.length > 0 && pk.every((i) => i >= 0)) out[t.tableId] = pk;
  }
  return out;
}
