/**
 * The closing line of scripts/test.sh tells the truth: a real vitest run over three small files
 * (one that throws while loading, one with a failing test, one whose afterAll throws) must be
 * summarised with every one of them counted as failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { slowestFiles, summarize } from '../../scripts/test-summary.mjs';

const dir = mkdtempSync(join(tmpdir(), 'tideway-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('counts a file that fails to load, and one whose hook throws, as failed', () => {
  writeFileSync(join(dir, 'load.test.ts'), "import { it } from 'vitest';\nthrow new Error('cannot load');\nit('never', () => {});\n");
  writeFileSync(
    join(dir, 'some.test.ts'),
    "import { expect, it } from 'vitest';\nit('ok', () => expect(1).toBe(1));\nit('bad', () => expect(1).toBe(2));\n",
  );
  writeFileSync(
    join(dir, 'hook.test.ts'),
    "import { afterAll, it } from 'vitest';\nafterAll(() => { throw new Error('hook broke'); });\nit('ok too', () => {});\n",
  );
  const report = join(dir, 'report.json');
  const vitest = spawnSync(
    process.execPath,
    [join(process.cwd(), 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--reporter=json', `--outputFile.json=${report}`],
    {
      encoding: 'utf8',
      env: { ...process.env, CI: '' },
    },
  );
  expect(vitest.status, vitest.stderr).toBe(1);
  const { line, fileFailures } = summarize(JSON.parse(readFileSync(report, 'utf8')));
  expect(line).toBe('tests: 2 passed, 3 failed, 0 skipped');
  const named = fileFailures.map((f) => f.replace(/^.*\/(\w+\.test\.ts)/, '$1')).sort();
  expect(named).toEqual([expect.stringMatching(/^hook\.test\.ts: .*hook broke/), expect.stringMatching(/^load\.test\.ts: .*cannot load/)]);
  const slow = slowestFiles(JSON.parse(readFileSync(report, 'utf8')), 2);
  expect(slow).toHaveLength(2);
  for (const l of slow) expect(l).toMatch(/^ +\d+ s {2}\S*\w+\.test\.ts$/);
});
