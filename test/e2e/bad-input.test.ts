/**
 * Bad input of every kind through the real CLI: one clear line naming the place, a non-zero
 * exit code, and nothing run (no sink output appears).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const out = join(dir, 'out');
const sink = `sink { LocalFile { path = "${out}", file_format_type = "text" } }`;
const fake = (body: string) => `env { job.mode = "BATCH" }\nsource {\n  FakeSource {\n${body}\n  }\n}\n${sink}\n`;

const CASES: Array<{ name: string; text: string; args?: string[]; line: RegExp; says: RegExp }> = [
  {
    name: 'unknown plugin',
    text: 'env { job.mode = "BATCH" }\nsource {\n  FakeSorce { row.num = 5 }\n}\n' + sink,
    line: /job\.conf:3/,
    says: /unknown source plugin 'FakeSorce'/,
  },
  {
    name: 'unknown option',
    text: fake('    row.nun = 5\n    schema = { fields { id = int } }'),
    line: /job\.conf:4/,
    says: /no option 'row\.nun'; did you mean 'row\.num'/,
  },
  {
    name: 'wrong type',
    text: fake('    row.num = "five"\n    schema = { fields { id = int } }'),
    line: /job\.conf:4/,
    says: /'five' is not an integer/,
  },
  {
    name: 'missing required option',
    text: 'env { job.mode = "BATCH" }\nsource { FakeSource { schema = { fields { id = int } } } }\nsink {\n  LocalFile { file_format_type = "text" }\n}\n',
    line: /job\.conf:4/,
    says: /needs the option 'path'/,
  },
  { name: 'malformed HOCON', text: 'env { job.mode = "BATCH"\nsource { FakeSource {} }\n', line: /job\.conf:\d+:\d+/, says: /expected/ },
  {
    name: 'unresolved variable',
    text: fake('    row.num = ${rows}\n    schema = { fields { id = int } }'),
    line: /job\.conf:4/,
    says: /-i rows=value/,
  },
  {
    name: 'unknown type in a schema',
    text: fake('    schema = { fields { id = intt } }'),
    line: /job\.conf:3/,
    says: /unknown type 'intt'/,
  },
  {
    name: 'wiring to a table nobody outputs',
    text:
      'env { job.mode = "BATCH" }\nsource {\n  FakeSource { plugin_output = "a", schema = { fields { id = int } } }\n  FakeSource { plugin_output = "b", schema = { fields { id = int } } }\n}\nsink {\n  LocalFile { plugin_input = "c", path = "' +
      out +
      '", file_format_type = "text" }\n}\n',
    line: /job\.conf:7/,
    says: /plugin_input 'c' names a table that no source or transform outputs/,
  },
  {
    name: 'Sql with an unknown column',
    text:
      'env { job.mode = "BATCH" }\nsource { FakeSource { plugin_output = "f", schema = { fields { id = int } } } }\ntransform {\n  Sql { plugin_input = "f", plugin_output = "g", query = "select idd from f" }\n}\nsink { LocalFile { plugin_input = "g", path = "' +
      out +
      '", file_format_type = "text" } }\n',
    line: /job\.conf:4/,
    says: /unknown column 'idd'.*column 8 of the query/,
  },
  {
    name: 'unknown engine setting',
    text: fake('    schema = { fields { id = int } }'),
    args: ['--set', 'slot-service.slot-nu=2'],
    line: /--set 'slot-service\.slot-nu=2'/,
    says: /unknown key/,
  },
  {
    name: 'bad -i syntax',
    text: fake('    schema = { fields { id = int } }'),
    args: ['-i', 'novalue'],
    line: /-i novalue/,
    says: /key=value/,
  },
];

describe('bad input', () => {
  it.each(CASES)('$name: one line with the place, exit 2, nothing written', async ({ name, text, args, line, says }) => {
    const conf = join(dir, 'job.conf');
    writeFileSync(conf, text);
    const res = await runCli(['run', '-c', conf, ...(args ?? [])]);
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('tideway:'));
    expect(res.code, `${name}: ${res.stderr}`).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(lines[0]).toMatch(says);
    expect(existsSync(out)).toBe(false);
  });

  it('a missing config file names the file', async () => {
    const res = await runCli(['run', '-c', join(dir, 'nope.conf')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/nope\.conf: cannot read the job config: no such file/);
  });
});
