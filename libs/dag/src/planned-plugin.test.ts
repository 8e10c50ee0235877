import { COMMON_OPTIONS, optionsOf } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import { envParallelism, plannedPluginOf, plannedPluginsOf, type PluginBlock } from './planned-plugin.js';

function block(options: Record<string, unknown>, optionLines: Record<string, number> = {}): PluginBlock {
  return { type: 'transform', name: 'Sql', index: 0, file: 'job.conf', line: 7, options, optionLines };
}

describe('plannedPluginOf', () => {
  it('reads plugin_output / plugin_input / parallelism with their lines', () => {
    const p = plannedPluginOf(
      block({ plugin_output: 'out', plugin_input: ['a', 'b'], parallelism: 3 }, { plugin_output: 8, plugin_input: 9 }),
    );
    expect(p).toMatchObject({
      type: 'transform',
      name: 'Sql',
      file: 'job.conf',
      line: 7,
      output: 'out',
      inputs: ['a', 'b'],
      parallelism: 3,
      outputLine: 8,
      inputLine: 9,
    });
  });

  it('accepts the older names result_table_name / source_table_name and a comma list', () => {
    const p = plannedPluginOf(
      block({ result_table_name: 'fake1', source_table_name: 'a, b,a' }, { result_table_name: 11, source_table_name: 12 }),
    );
    expect(p).toMatchObject({ output: 'fake1', inputs: ['a', 'b'], outputLine: 11, inputLine: 12 });
  });

  it('leaves names unset when the block sets none', () => {
    const p = plannedPluginOf(block({ query: 'select 1' }));
    expect(p.output).toBeUndefined();
    expect(p.inputs).toEqual([]);
    expect(p.parallelism).toBeUndefined();
  });

  it('prefers validated options when given', () => {
    const options = optionsOf({ plugin_output: 'typed', plugin_input: ['x'], parallelism: 5 }, { options: COMMON_OPTIONS });
    expect(plannedPluginOf(block({}), options)).toMatchObject({ output: 'typed', inputs: ['x'], parallelism: 5 });
  });

  it('refuses a parallelism below 1, naming the option line', () => {
    expect(() => plannedPluginOf(block({ parallelism: 0 }, { parallelism: 13 }))).toThrow(/job\.conf:13, plugin Sql, option 'parallelism'/);
  });

  it('orders a job as sources, transforms, sinks', () => {
    const src: PluginBlock = { ...block({}), type: 'source', name: 'FakeSource' };
    const snk: PluginBlock = { ...block({}), type: 'sink', name: 'Console' };
    const job = { file: 'job.conf', env: {}, envLines: {}, sources: [src], transforms: [block({})], sinks: [snk] };
    expect(plannedPluginsOf(job).map((p) => p.name)).toEqual(['FakeSource', 'Sql', 'Console']);
  });
});

describe('envParallelism', () => {
  it('is 1 by default and env.parallelism when set', () => {
    expect(envParallelism({ file: 'j', env: {}, envLines: {} })).toBe(1);
    expect(envParallelism({ file: 'j', env: { parallelism: 4 }, envLines: {} })).toBe(4);
  });

  it('refuses a bad value with the env line', () => {
    let err: unknown;
    try {
      envParallelism({ file: 'j.conf', env: { parallelism: 'many' }, envLines: { parallelism: 3 } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe(ErrorCode.CONFIG_BAD_VALUE);
    expect((err as Error).message).toContain('j.conf:3');
  });
});
