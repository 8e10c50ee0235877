import { describe, expect, it } from 'vitest';
import type { PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { parseJobConfig, validateEnv, validatePluginOptions } from './index.js';

const SPEC: PluginSpec = {
  options: [
    { name: 'row.num', type: 'int', default: 5, min: 1, description: 'rows' },
    { name: 'split.read-interval', type: 'long', description: 'ms' },
    { name: 'rate', type: 'double', max: 10, description: 'rate' },
    { name: 'enabled', type: 'boolean', default: false, description: 'on' },
    { name: 'mode', type: 'enum', values: ['RANGE', 'TEMPLATE'], description: 'mode' },
    { name: 'label', type: 'string', description: 'label' },
    { name: 'string.template', type: 'list', description: 'templates' },
    { name: 'int.template', type: 'list', elementType: 'int', description: 'ints' },
    { name: 'schema', type: 'object', description: 'schema' },
    { name: 'props', type: 'map', description: 'props' },
    { name: 'path', type: 'string', required: true, description: 'where to write' },
  ],
  extraOptionPatterns: [/^[a-z]+\.min$/],
};

function plugin(body: string) {
  return parseJobConfig(`source {\n  Fake {\n${body}\n  }\n}\nsink { Console {} }`, { file: 'job.conf', env: {} }).sources[0];
}

function failure(body: string, spec: PluginSpec = SPEC): ConfigError {
  try {
    validatePluginOptions(spec, plugin(body));
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('validatePluginOptions', () => {
  it('coerces values as SeaTunnel does and applies defaults', () => {
    const o = validatePluginOptions(
      SPEC,
      plugin(`path = /tmp
row.num = "10"
split { read-interval = 3000 }
rate = "2.5"
enabled = "TRUE"
mode = range
label = 42
string.template = "[abc,def]"
int.template = "1, 2"
"schema" { fields { a = int } }
props { a.b = 1, c = x }
result_table_name = t1
source_table_name = "a,b"
int.min = 3`),
    );
    expect(o.get('row.num')).toBe(10);
    expect(o.get('split.read-interval')).toBe(3000);
    expect(o.get('rate')).toBe(2.5);
    expect(o.get('enabled')).toBe(true);
    expect(o.get('mode')).toBe('RANGE');
    expect(o.get('label')).toBe('42');
    expect(o.get('string.template')).toEqual(['abc', 'def']);
    expect(o.get('int.template')).toEqual([1, 2]);
    expect(o.get('schema')).toEqual({ fields: { a: 'int' } });
    expect(o.get('props')).toEqual({ 'a.b': '1', c: 'x' });
    expect(o.get('plugin_output')).toBe('t1');
    expect(o.get('plugin_input')).toEqual(['a', 'b']);
    expect(o.has('plugin_output')).toBe(true);
    expect(o.place('row.num')).toEqual({ file: 'job.conf', line: 4, plugin: 'Fake', option: 'row.num' });
  });

  it('finds a quoted dotted key and uses defaults for what is absent', () => {
    const o = validatePluginOptions(SPEC, plugin('"row.num" = 3\npath = x'));
    expect(o.get('row.num')).toBe(3);
    expect(o.get('enabled')).toBe(false);
    expect(o.has('enabled')).toBe(false);
  });

  it('reports an unknown option with a suggestion', () => {
    const e = failure('path = x\nrow.nmu = 3');
    expect(e.code).toBe(ErrorCode.CONFIG_UNKNOWN_OPTION);
    expect(e.message).toBe("job.conf:4, plugin Fake, option 'row.nmu': Fake has no option 'row.nmu'; did you mean 'row.num'?");
    expect(failure('path = x\nzzz = 1').message).not.toContain('did you mean');
  });

  it('accepts an option SeaTunnel retired with one warning, and still rejects a typo of it', () => {
    const spec: PluginSpec = {
      ...SPEC,
      retiredOptions: [{ name: 'save_mode', replacement: 'data_save_mode', history: 'removed it in 2.3.0' }],
    };
    const o = validatePluginOptions(spec, plugin('path = x\nsave_mode = "error"'));
    expect(o.warnings).toEqual([
      `Fake option 'save_mode' (job.conf:4) is accepted but has no effect: SeaTunnel removed it in 2.3.0 (value "error" ignored); use data_save_mode instead.`,
    ]);
    expect(o.get('save_mode')).toBeUndefined();
    expect(validatePluginOptions(spec, plugin('path = x')).warnings).toEqual([]);
    expect(failure('path = x\nsave_mod = "error"', spec).message).toMatch(/has no option 'save_mod'/);
    expect(failure('path = x\nsave_mode = "error"').message).toMatch(/has no option 'save_mode'/);
  });

  it("accepts another plugin's option SeaTunnel leaves unread with one warning saying why", () => {
    const spec: PluginSpec = { ...SPEC, ignoredOptions: [{ name: 'tmp_path', reason: 'it is a sink option' }] };
    const o = validatePluginOptions(spec, plugin('path = x\ntmp_path = "/tmp/t"'));
    expect(o.warnings).toEqual([
      `Fake option 'tmp_path' (job.conf:4) is accepted but has no effect: it is a sink option (value "/tmp/t" ignored).`,
    ]);
    expect(o.get('tmp_path')).toBeUndefined();
    expect(failure('path = x\ntmp_pth = 1', spec).message).toMatch(/has no option 'tmp_pth'/);
  });

  it('gives the same warning for a retired or ignored option written in an item of tables_configs', () => {
    const spec: PluginSpec = {
      ...SPEC,
      options: [...SPEC.options, { name: 'tables_configs', type: 'object-list', description: 'tables' }],
      ignoredOptions: [{ name: 'tmp_path', reason: 'it is a sink option' }],
    };
    const o = validatePluginOptions(spec, plugin('path = x\ntables_configs = [\n{ label = a }\n{ label = b, tmp_path = "/t" }\n]'));
    expect(o.warnings).toEqual([
      `Fake tables_configs item 2: option 'tmp_path' (job.conf:4) is accepted but has no effect: it is a sink option (value "/t" ignored).`,
    ]);
    expect(
      validatePluginOptions({ ...spec, ignoredOptions: [] }, plugin('path = x\ntables_configs = [{ tmp_path = 1 }]')).warnings,
    ).toEqual([]);
  });

  it('reports a wrong type with the value and the expected type', () => {
    expect(failure('path = x\nrow.num = abc').message).toMatch(
      /^job\.conf:4, .*'row\.num' has a wrong value: 'abc' is not an integer \(int\)/,
    );
    expect(failure('path = x\nenabled = 1').message).toMatch(/'enabled' has a wrong value: 1 is not a boolean/);
    expect(failure('path = x\nint.template = [1, x]').message).toMatch(/item 2 of \[1,"x"\]: 'x' is not an integer/);
    expect(failure('path = [1]').message).toMatch(/'path' has a wrong value: \[1\] is not a string/);
    expect(failure('path = x\nschema = 3').code).toBe(ErrorCode.CONFIG_BAD_VALUE);
  });

  it('reports values outside min/max and enum values', () => {
    expect(failure('path = x\nrow.num = 0').message).toMatch(/'row\.num' is 0, outside the minimum 1/);
    expect(failure('path = x\nrate = 11').message).toMatch(/'rate' is 11, outside the maximum 10/);
    expect(failure('path = x\nmode = other').message).toMatch(/'other' is not one of RANGE, TEMPLATE/);
  });

  it('reports a missing required option at the plugin line', () => {
    const e = failure('row.num = 2');
    expect(e.code).toBe(ErrorCode.CONFIG_MISSING_OPTION);
    expect(e.message).toMatch(/^job\.conf:2, plugin Fake, option 'path': Fake needs the option 'path'/);
  });

  it('reports the first problem in file order, written problems before missing ones', () => {
    const e = failure('rate = 99\nrow.num = x');
    expect(e.message).toMatch(/^job\.conf:3, .*'rate'/);
  });

  it("honours the spec's cross-option rule", () => {
    const spec: PluginSpec = {
      ...SPEC,
      validate: (o) => (o.get('mode') === 'RANGE' && !o.has('rate') ? "mode RANGE needs 'rate'" : undefined),
    };
    expect(failure('path = x\nmode = RANGE', spec).message).toBe("job.conf:2, plugin Fake: Fake: mode RANGE needs 'rate'");
  });
});

describe('validateEnv', () => {
  it('applies SeaTunnel defaults', () => {
    const env = validateEnv({}, {}, 'job.conf');
    expect(env).toMatchObject({
      jobMode: 'BATCH',
      jobName: 'SeaTunnel_Job',
      parallelism: 1,
      jobRetryTimes: 3,
      jobRetryIntervalSeconds: 3,
      jobPriority: 0,
      savemodeExecuteLocation: 'CLUSTER',
      tagFilter: {},
    });
    expect(env.checkpointInterval).toBeUndefined();
  });

  it('types every key and keeps other engines settings aside', () => {
    const job = parseJobConfig(
      'env {\n job.mode = streaming\n checkpoint.interval = 3000\n tag_filter { group = g1, team = t }\n spark.executor.cores = 1\n execution.checkpoint.min-pause = 5\n}\nsource { A {} }\nsink { B {} }',
      { file: 'job.conf', env: {} },
    );
    const env = validateEnv(job.env, job.envLines, job.file);
    expect(env).toMatchObject({ jobMode: 'STREAMING', checkpointInterval: 3000, tagFilter: { group: 'g1', team: 't' } });
    expect(env.engineSpecific).toEqual({ 'spark.executor.cores': 1, 'execution.checkpoint.min-pause': 5 });
  });

  it('rejects unknown keys and bad values at their line', () => {
    const check = (body: string) => {
      const job = parseJobConfig(`env {\n${body}\n}\nsource { A {} }\nsink { B {} }`, { file: 'job.conf', env: {} });
      return () => validateEnv(job.env, job.envLines, job.file);
    };
    expect(check('job.mode = BATCH\nparalelism = 2')).toThrow(
      "job.conf:3, option 'paralelism': env has no option 'paralelism'; did you mean 'parallelism'?",
    );
    expect(check('job.mode = FAST')).toThrow(
      /job\.conf:2, option 'job\.mode': env option 'job\.mode' has a wrong value: 'FAST' is not one of BATCH, STREAMING/,
    );
    expect(check('parallelism = 0')).toThrow(/outside the minimum 1/);
  });
});
