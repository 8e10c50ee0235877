import type { CatalogTable, JobMode, PluginContext, PluginOptions, Sink, Source, Transform } from '@tideway/api';
// The options validator alone: the package's index also loads the engine config's YAML parser,
// which a task-group thread has no use for.
import { validatePluginOptions } from '@tideway/config/options';
import type { PluginConfig } from '@tideway/config';
import type { PluginRegistry } from './plugin-registry.js';

export interface InstantiateContext {
  jobId: string;
  jobMode: JobMode;
  parallelism: number;
  inputTables: readonly CatalogTable[];
  /** PluginContext.checkpoint: given when the job is planned. */
  checkpoint?: PluginContext['checkpoint'];
}

/** Validates a plugin's options against its spec (ConfigError with file:line on failure). */
export function resolveOptions(plugin: PluginConfig, registry: PluginRegistry): PluginOptions {
  const factory = registry.get(plugin.type, plugin.name, { file: plugin.file, line: plugin.line });
  return validatePluginOptions(factory.spec, plugin);
}

function context(plugin: PluginConfig, ctx: InstantiateContext, registry: PluginRegistry): PluginContext {
  return {
    jobId: ctx.jobId,
    jobMode: ctx.jobMode,
    parallelism: ctx.parallelism,
    inputTables: ctx.inputTables,
    ...(ctx.checkpoint ? { checkpoint: ctx.checkpoint } : {}),
    options: resolveOptions(plugin, registry),
  };
}

export function createSource(plugin: PluginConfig, ctx: InstantiateContext, registry: PluginRegistry): Source {
  const f = registry.get('source', plugin.name, { file: plugin.file, line: plugin.line });
  if (f.type !== 'source') throw new Error(`${plugin.name} is not a source`);
  return f.create(context(plugin, ctx, registry));
}

export function createTransform(plugin: PluginConfig, ctx: InstantiateContext, registry: PluginRegistry): Transform {
  const f = registry.get('transform', plugin.name, { file: plugin.file, line: plugin.line });
  if (f.type !== 'transform') throw new Error(`${plugin.name} is not a transform`);
  return f.create(context(plugin, ctx, registry));
}

export function createSink(plugin: PluginConfig, ctx: InstantiateContext, registry: PluginRegistry): Sink {
  const f = registry.get('sink', plugin.name, { file: plugin.file, line: plugin.line });
  if (f.type !== 'sink') throw new Error(`${plugin.name} is not a sink`);
  return f.create(context(plugin, ctx, registry));
}
