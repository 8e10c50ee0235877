import { optionsOf, type CatalogTable, type PluginContext, type PluginSpec } from '@tideway/api';

/**
 * A PluginContext for unit tests of transforms: options straight from a record (see optionsOf),
 * the given input tables, batch mode, parallelism 1.
 */
export function transformTestContext(
  spec: PluginSpec,
  options: Record<string, unknown>,
  inputTables: readonly CatalogTable[],
): PluginContext {
  return { jobId: 'test-job', jobMode: 'BATCH', parallelism: 1, options: optionsOf(options, spec), inputTables };
}
