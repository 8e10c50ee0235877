import { ConfigError, ErrorCode } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import { buildLogicalDag } from './logical-dag.js';
import { pluginFactory } from './test-plugins.js';

function wiringError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe(ErrorCode.CONFIG_WIRING);
    return e as ConfigError;
  }
  throw new Error('expected a wiring error');
}

describe('simple graph (one source, at most one transform, one sink)', () => {
  it('chains plugins in order when no table is named', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([source('FakeSource'), transform('Sql'), sink('Console')]);
    expect(dag.simpleGraph).toBe(true);
    expect(dag.edges).toEqual([
      { from: 1, to: 2, table: 'default' },
      { from: 2, to: 3, table: 'default' },
    ]);
  });

  it('lets a sink without plugin_input read the named output of the source', () => {
    const { source, sink } = pluginFactory();
    const dag = buildLogicalDag([source('FakeSource', { output: 'fake' }), sink('Console')]);
    expect(dag.edges).toEqual([{ from: 1, to: 2, table: 'fake' }]);
    expect(dag.vertices[1].inputTables).toEqual(['fake']);
  });

  it('lets a transform without plugin_input read a source without plugin_output, then resolve names', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource'),
      transform('RowKindExtractor', { output: 'trans_result' }),
      sink('Assert', { inputs: ['trans_result'] }),
    ]);
    expect(dag.edges).toEqual([
      { from: 1, to: 2, table: 'default' },
      { from: 2, to: 3, table: 'trans_result' },
    ]);
  });

  it('reads the previous plugin when plugin_input names a table but the previous plugin names none', () => {
    const { source, sink } = pluginFactory();
    const dag = buildLogicalDag([source('FakeSource'), sink('Console', { inputs: ['fake'] })]);
    expect(dag.edges).toEqual([{ from: 1, to: 2, table: 'default' }]);
  });

  it('refuses two explicit names that differ, naming file:line and the table', () => {
    const { source, sink } = pluginFactory('a.conf');
    const s = sink('Console', { inputs: ['nope'] });
    const err = wiringError(() => buildLogicalDag([source('FakeSource', { output: 'fake' }), s]));
    expect(err.message).toContain(`a.conf:${s.inputLine}`);
    expect(err.message).toContain("'nope'");
    expect(err.details).toEqual({ table: 'nope' });
  });

  it('refuses a transform that the sink bypasses by reading the source by name', () => {
    const { source, transform, sink } = pluginFactory();
    const t = transform('Filter', { inputs: ['fake'], output: 'filtered' });
    const err = wiringError(() => buildLogicalDag([source('FakeSource', { output: 'fake' }), t, sink('Console', { inputs: ['fake'] })]));
    expect(err.message).toContain(`job.conf:${t.outputLine}`);
    expect(err.message).toContain("'filtered'");
    expect(err.message).toContain('read by no transform or sink');
  });
});

describe('complex graph', () => {
  it('wires fan-out: one table read by several plugins', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'fake' }),
      transform('Filter', { inputs: ['fake'], output: 'a' }),
      transform('Filter', { inputs: ['fake'], output: 'b' }),
      sink('Console', { inputs: ['a'] }),
      sink('Console', { inputs: ['b'] }),
    ]);
    expect(dag.simpleGraph).toBe(false);
    expect(dag.edges).toEqual([
      { from: 1, to: 2, table: 'fake' },
      { from: 1, to: 3, table: 'fake' },
      { from: 2, to: 4, table: 'a' },
      { from: 3, to: 5, table: 'b' },
    ]);
  });

  it('wires a plugin_input list as several inputs, in order', () => {
    const { source, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'a' }),
      source('FakeSource', { output: 'b' }),
      sink('Console', { inputs: ['b', 'a'] }),
    ]);
    expect(dag.edges).toEqual([
      { from: 2, to: 3, table: 'b' },
      { from: 1, to: 3, table: 'a' },
    ]);
    expect(dag.vertices[2].inputTables).toEqual(['b', 'a']);
  });

  it('lets a transform read a transform declared after it', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag([
      source('FakeSource', { output: 'src' }),
      transform('Sql', { inputs: ['t2'], output: 't1' }),
      transform('Filter', { inputs: ['src'], output: 't2', parallelism: 3 }),
      sink('Console', { inputs: ['t1'] }),
    ]);
    expect(dag.edges.map((e) => `${e.from}>${e.to}`)).toEqual(['3>2', '1>3', '2>4']);
    // Sql inherits 3 from Filter, its first input, although Filter comes later in the file.
    expect(dag.vertices.map((v) => v.parallelism)).toEqual([1, 3, 3, 3]);
  });

  it('requires plugin_input on a sink when there are several sources', () => {
    const { source, sink } = pluginFactory();
    const s = sink('Console');
    const err = wiringError(() => buildLogicalDag([source('FakeSource', { output: 'a' }), source('FakeSource', { output: 'b' }), s]));
    expect(err.message).toContain(`job.conf:${s.line}`);
    expect(err.message).toContain('plugin_input is not set');
    expect(err.place?.plugin).toBe('Console');
  });

  it('requires plugin_output on every transform when there are several transforms', () => {
    const { source, transform, sink } = pluginFactory();
    const t = transform('Filter');
    const err = wiringError(() =>
      buildLogicalDag([
        source('FakeSource', { output: 'a' }),
        t,
        transform('Sql', { inputs: ['a'], output: 'b' }),
        sink('Console', { inputs: ['b'] }),
      ]),
    );
    expect(err.message).toContain(`job.conf:${t.line}`);
    expect(err.message).toContain('plugin_output is not set');
  });

  it('refuses a table that no plugin outputs', () => {
    const { source, sink } = pluginFactory();
    const s = sink('Console', { inputs: ['missing'] });
    const err = wiringError(() => buildLogicalDag([source('FakeSource', { output: 'a' }), sink('Console', { inputs: ['a'] }), s]));
    expect(err.message).toContain(`job.conf:${s.inputLine}`);
    expect(err.message).toContain("'missing'");
  });

  it('refuses a duplicate plugin_output, naming both plugins', () => {
    const { source, sink } = pluginFactory();
    const first = source('FakeSource', { output: 'a' });
    const second = source('Jdbc', { output: 'a' });
    const err = wiringError(() => buildLogicalDag([first, second, sink('Console', { inputs: ['a'] })]));
    expect(err.message).toContain(`job.conf:${second.outputLine}`);
    expect(err.message).toContain(`FakeSource (job.conf:${first.line})`);
    expect(err.details).toEqual({ table: 'a' });
  });

  it('refuses a cycle between transforms', () => {
    const { source, transform, sink } = pluginFactory();
    const err = wiringError(() =>
      buildLogicalDag([
        source('FakeSource', { output: 'src' }),
        transform('Sql', { inputs: ['src', 't2'], output: 't1' }),
        transform('Filter', { inputs: ['t1'], output: 't2' }),
        sink('Console', { inputs: ['t2'] }),
      ]),
    );
    expect(err.message).toMatch(/cycle: (t1 -> t2 -> t1|t2 -> t1 -> t2)/);
  });

  it('refuses a source whose table nobody reads', () => {
    const { source, sink } = pluginFactory();
    const unused = source('FakeSource', { output: 'lonely' });
    const err = wiringError(() => buildLogicalDag([source('FakeSource', { output: 'a' }), unused, sink('Console', { inputs: ['a'] })]));
    expect(err.message).toContain(`job.conf:${unused.outputLine}`);
    expect(err.message).toContain("'lonely'");
  });

  it('refuses a job without a sink', () => {
    const { source } = pluginFactory();
    const err = wiringError(() => buildLogicalDag([source('FakeSource')]));
    expect(err.message).toContain('at least one source and one sink');
  });
});

describe('parallelism', () => {
  it('gives sources env.parallelism unless they set their own, and downstream plugins their first input’s', () => {
    const { source, transform, sink } = pluginFactory();
    const dag = buildLogicalDag(
      [
        source('FakeSource', { output: 'a' }),
        source('FakeSource', { output: 'b', parallelism: 4 }),
        transform('Sql', { inputs: ['b', 'a'], output: 'c' }),
        sink('Console', { inputs: ['c'], parallelism: 1 }),
      ],
      2,
    );
    expect(dag.vertices.map((v) => v.parallelism)).toEqual([2, 4, 4, 1]);
  });
});
