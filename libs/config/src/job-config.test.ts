import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@tideway/common';
import { sharedConformanceDir } from '@tideway/testing/shared-conformance';
import { loadJobConfigFile, parseJobConfig, validateEnv } from './index.js';

const SHARED = sharedConformanceDir();
const CASES = SHARED ? join(SHARED, 'cases') : '';

function error(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const JOB = `env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  FakeSource {
    result_table_name = "a"
    row.num = 5
  }
  FakeSource {
    result_table_name = "b"
    "row.num" = 7
  }
}
transform {
  Sql { query = "select * from a" }
}
sink {
  Console {}
}
`;

describe('parseJobConfig', () => {
  it('keeps repeated plugin blocks as separate entries with their lines', () => {
    const job = parseJobConfig(JOB, { file: 'job.conf', env: {} });
    expect(job.env).toEqual({ job: { mode: 'BATCH' }, parallelism: 2 });
    expect(job.envLines['job.mode']).toBe(2);
    expect(job.sources.map((s) => [s.name, s.index, s.line, s.options])).toEqual([
      ['FakeSource', 0, 6, { result_table_name: 'a', row: { num: 5 } }],
      ['FakeSource', 1, 10, { result_table_name: 'b', 'row.num': 7 }],
    ]);
    expect(job.sources[0].optionLines).toEqual({ result_table_name: 7, row: 8, 'row.num': 8 });
    expect(job.transforms[0]).toMatchObject({ type: 'transform', name: 'Sql', line: 16, file: 'job.conf' });
    expect(job.sinks[0]).toMatchObject({ type: 'sink', name: 'Console', options: {} });
  });

  it('reads the JSON form, where sections are lists with plugin_name, with lines', () => {
    const json = `{
  "env": { "job.mode": "BATCH" },
  "source": [
    { "plugin_name": "FakeSource", "row.num": 3 }
  ],
  "sink": [ { "plugin_name": "Console" } ]
}`;
    const job = parseJobConfig(json, { file: 'job.json', env: {} });
    expect(job.env).toEqual({ 'job.mode': 'BATCH' });
    expect(job.sources[0]).toMatchObject({ name: 'FakeSource', line: 4, options: { 'row.num': 3 }, optionLines: { 'row.num': 4 } });
    expect(job.transforms).toEqual([]);
    expect(
      error(() => parseJobConfig('{\n "source": [ { "row.num": 3 } ],\n "sink": [] }', { format: 'json', file: 'x' })).message,
    ).toMatch(/^x:2: entry 1 in source has no plugin_name/);
  });

  it('rejects unknown sections and jobs without a source or a sink', () => {
    expect(error(() => parseJobConfig('env {}\nsorce { A {} }\nsink { B {} }', { file: 'j' })).message).toMatch(
      /^j:2: unknown section 'sorce'/,
    );
    expect(error(() => parseJobConfig('sink { B {} }', { file: 'j' })).code).toBe(ErrorCode.CONFIG_MISSING_OPTION);
    expect(error(() => parseJobConfig('source { A {} }\nsink {}', { file: 'j' })).message).toMatch(/^j:2: .*at least one sink/);
    expect(error(() => parseJobConfig('source { A = 1 }\nsink { B {} }', { file: 'j' })).message).toMatch(
      /^j:1: plugin 'A' in source must be an object/,
    );
  });

  it('substitutes environment variables after job variables', () => {
    const job = parseJobConfig('env { job.name = ${NAME} }\nsource { A { x = ${X} } }\nsink { B {} }', {
      variables: { X: 'from-i' },
      env: { NAME: 'from-env', X: 'from-env' },
    });
    expect(job.env).toEqual({ job: { name: 'from-env' } });
    expect(job.sources[0].options).toEqual({ x: 'from-i' });
  });
});

describe.skipIf(!SHARED)('conformance configs', () => {
  const manifest = (SHARED ? readFileSync(join(SHARED, 'MANIFEST.tsv'), 'utf8') : '').trim().split('\n').slice(1);
  it('lists every case', () => expect(manifest.length).toBeGreaterThanOrEqual(29));
  for (const row of manifest) {
    const [file, , args = ''] = row.split('\t');
    it(file, () => {
      const variables: Record<string, string> = {};
      for (const m of args.matchAll(/-i (\S+?)=(\S*)/g)) variables[m[1]] = m[2];
      const job = loadJobConfigFile(join(CASES, file), { variables, env: {} });
      expect(job.sources.length).toBeGreaterThan(0);
      expect(job.sinks.length).toBeGreaterThan(0);
      for (const p of [...job.sources, ...job.transforms, ...job.sinks]) expect(p.line).toBeGreaterThan(0);
      const env = validateEnv(job.env, job.envLines, job.file);
      expect(['BATCH', 'STREAMING']).toContain(env.jobMode);
    });
  }

  it('substitutes the -i variables of the variables case as SeaTunnel does', () => {
    const job = loadJobConfigFile(join(CASES, 'connector-seatunnel-e2e-base__fake_to_console.variables.conf'), {
      variables: {
        resName: 'a20261129',
        rowNum: '10',
        strTemplate: '[abc,def]',
        nameType: 'string',
        nameVal: 'abc',
        sourceTableName: 'sql',
      },
      env: {},
    });
    expect(job.sources[0].options).toEqual({
      result_table_name: 'a20261129',
      row: { num: '10' },
      string: { template: ['abc', 'def'] },
      schema: { fields: { name: 'string', age: 'int' } },
    });
    expect(job.transforms[0].options.query).toBe("select * from a20261129 where name = 'abc' ");
    expect(job.sinks[0].options).toEqual({ source_table_name: 'sql' });
  });

  it('keeps the two sources of the multi-table case apart', () => {
    const job = loadJobConfigFile(join(CASES, 'connector-seatunnel-e2e-base__batch_fake_multi_table_to_console.conf'), { env: {} });
    expect(job.sources.map((s) => s.name)).toEqual(['FakeSource', 'FakeSource']);
    expect(job.sources[0].options.result_table_name).not.toEqual(job.sources[1].options.result_table_name);
  });

  it('names the missing variable when -i is not given', () => {
    const e = error(() => loadJobConfigFile(join(CASES, 'connector-seatunnel-e2e-base__fake_to_console.variables.conf'), { env: {} }));
    expect(e.code).toBe(ErrorCode.CONFIG_UNRESOLVED_VARIABLE);
    expect(e.message).toMatch(/fake_to_console\.variables\.conf:29: .*'resName'.*-i resName=value/);
  });
});
