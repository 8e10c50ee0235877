import { describe, expect, it } from 'vitest';
import type { CatalogTable } from '@tideway/api';
import { planJobText } from '@tideway/planner';
import { admitBlocks, admitSinkTables, checkAllowedPlugins } from './namespace-limits.js';

const limits = { allowedPlugins: ['FakeSource', 'LocalFile', 'Console'], localFilePathPrefixes: ['/data/team-a/'] };

function job(sink: string, source = 'FakeSource { plugin_output = "fake", row.num = 5, schema = { fields { id = "int" } } }'): string {
  return `env { job.mode = "BATCH" }\nsource { ${source} }\nsink {\n  ${sink}\n}\n`;
}

/** Plans the job as the coordinator does for a caller of namespace team-a; the refusal's text, or '' when admitted. */
async function refusal(text: string): Promise<string> {
  try {
    const planned = await planJobText(text, { jobId: '1', file: 'job.conf', admit: (blocks) => admitBlocks('team-a', limits, blocks) });
    for (const p of planned.pipelines) admitSinkTables('team-a', limits, p.sinks);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

const sink = (path: string, tmp = '/data/team-a/tmp') => `LocalFile { path = "${path}", tmp_path = "${tmp}", file_format_type = "json" }`;

describe('namespace limits', () => {
  it('admits paths inside the prefixes, normalised', async () => {
    expect(await refusal(job(sink('/data/team-a/out')))).toBe('');
    expect(await refusal(job(sink('/data/team-a/x/../out/')))).toBe('');
    expect(await refusal(job(sink('/data/team-a')))).toBe('');
  });

  it('refuses a path outside, a .. escape, a sibling folder that shares the prefix text, a relative path and the default tmp_path', async () => {
    expect(await refusal(job(sink('/etc')))).toBe(
      "job.conf:4: sink LocalFile option path '/etc' is outside namespace team-a's allowed prefixes /data/team-a/",
    );
    expect(await refusal(job(sink('/data/team-a/../team-b')))).toContain("option path '/data/team-a/../team-b' is outside");
    expect(await refusal(job(sink('/data/team-ab/out')))).toContain("option path '/data/team-ab/out' is outside");
    expect(await refusal(job(sink('out')))).toContain("option path 'out' is a relative path");
    expect(await refusal(job('LocalFile { path = "/data/team-a/out", file_format_type = "json" }'))).toContain(
      "sink LocalFile option tmp_path '/tmp/seatunnel' (the default) is outside",
    );
  });

  it('checks a sink path with ${table_name} again with the table names in', async () => {
    expect(await refusal(job(sink('/data/team-a/${table_name}')))).toBe('');
    const block = {
      type: 'sink',
      name: 'LocalFile',
      index: 0,
      file: 'job.conf',
      line: 3,
      options: { path: '/data/team-a/${table_name}' },
      optionLines: {},
    } as const;
    const table = (name: string) => ({ path: { table: name } }) as unknown as CatalogTable;
    expect(() => admitSinkTables('team-a', limits, [{ plugin: block, inputTables: [table('orders')] }])).not.toThrow();
    expect(() => admitSinkTables('team-a', limits, [{ plugin: block, inputTables: [table('../../etc')] }])).toThrow(
      "job.conf:3: sink LocalFile option path '/data/team-a/../../etc' is outside namespace team-a's allowed prefixes /data/team-a/",
    );
  });

  it('refuses a plugin not in allowed-plugins (case as written), and a LocalFile source outside the prefixes', async () => {
    expect(await refusal(job('Assert { rules = { row_rules = [] } }'))).toBe(
      'job.conf:4: sink Assert is not allowed in namespace team-a (allowed-plugins: FakeSource, LocalFile, Console)',
    );
    expect(await refusal(job('console {}'))).toBe('');
    expect(
      await refusal(job('Console {}', 'LocalFile { plugin_output = "f", path = "/etc/passwd", file_format_type = "text" }')),
    ).toContain("source LocalFile option path '/etc/passwd' is outside");
  });

  it('refuses an allowed-plugins entry that is no plugin, as an engine-config error', () => {
    expect(() =>
      checkAllowedPlugins({ 'team-a': { allowedPlugins: ['fakesource', 'LocalFile'], localFilePathPrefixes: [] } }),
    ).not.toThrow();
    expect(() => checkAllowedPlugins({ 'team-a': { allowedPlugins: ['FakeSorce'], localFilePathPrefixes: [] } })).toThrow(
      /^tideway\.auth\.namespaces\.team-a\.allowed-plugins: 'FakeSorce' is not a plugin \(known: Assert, Console, Copy, (\w+, )*FakeSource, /,
    );
  });

  it('with a plugin store, returns (for a warning) a name a package installed later may provide', () => {
    expect(checkAllowedPlugins({ 'team-a': { allowedPlugins: ['FakeSource', 'MarkerSink'], localFilePathPrefixes: [] } }, true)).toEqual([
      'tideway.auth.namespaces.team-a.allowed-plugins: MarkerSink',
    ]);
  });
});
