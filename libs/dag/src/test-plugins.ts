import type { PlannedPlugin } from './planned-plugin.js';

/**
 * Builds PlannedPlugins for tests: `source('FakeSource', { output: 'a' })`. Lines count up in
 * call order so messages can be checked for file:line.
 */
export function pluginFactory(file = 'job.conf') {
  let line = 10;
  const counters = { source: 0, transform: 0, sink: 0 };
  const make =
    (type: PlannedPlugin['type']) =>
    (name: string, opts: { output?: string; inputs?: string[]; parallelism?: number } = {}): PlannedPlugin => {
      line += 10;
      return {
        type,
        name,
        index: counters[type]++,
        file,
        line,
        output: opts.output,
        inputs: opts.inputs ?? [],
        parallelism: opts.parallelism,
        outputLine: opts.output !== undefined ? line + 1 : undefined,
        inputLine: opts.inputs !== undefined ? line + 2 : undefined,
      };
    };
  return { source: make('source'), transform: make('transform'), sink: make('sink') };
}
