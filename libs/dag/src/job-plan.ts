import type { PluginOptions } from '@tideway/api';
import { buildLogicalDag, type LogicalDag } from './logical-dag.js';
import { buildPhysicalPlan, type PhysicalPlan, type PhysicalPlanOptions } from './physical-plan.js';
import { generatePipelines, type Pipeline } from './pipeline-generator.js';
import { envParallelism, plannedPluginsOf, type JobBlocks, type PlannedPlugin, type PluginBlock } from './planned-plugin.js';

/** The three plans of one job, as JobMaster.init builds them. */
export interface JobPlan {
  readonly logical: LogicalDag;
  readonly pipelines: readonly Pipeline[];
  readonly physical: PhysicalPlan;
}

export interface PlanJobOptions extends PhysicalPlanOptions {
  /** env.parallelism: the parallelism of sources that set none (default 1). */
  envParallelism?: number;
}

/** LogicalDag -> pipelines -> physical plan, from planned plugins. Throws ConfigError on bad wiring. */
export function planJob(plugins: readonly PlannedPlugin[], options: PlanJobOptions = {}): JobPlan {
  const logical = buildLogicalDag(plugins, options.envParallelism ?? 1);
  const pipelines = generatePipelines(logical);
  return { logical, pipelines, physical: buildPhysicalPlan(pipelines, options) };
}

/**
 * {@link planJob} from a parsed job config (`JobConfig` of @tideway/config), reading
 * env.parallelism; `optionsOf` supplies each block's validated options when available.
 */
export function planJobConfig(
  job: JobBlocks,
  optionsOf?: (block: PluginBlock) => PluginOptions,
  options: PhysicalPlanOptions = {},
): JobPlan {
  return planJob(plannedPluginsOf(job, optionsOf), { ...options, envParallelism: envParallelism(job) });
}
