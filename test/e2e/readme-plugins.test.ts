/**
 * The README's plugin table lists exactly the plugins `tideway describe` reports, by kind, so a
 * new connector or transform cannot ship without appearing there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../conformance/conformance-files.js';
import { runCli } from '../conformance/cli-process.js';

const KIND_OF_ROW: Record<string, string> = { sources: 'source', sinks: 'sink', transforms: 'transform' };

/** type -> plugin names, from the README's `| plugin | kind |` table. */
function readmeTable(): Map<string, Set<string>> {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| plugin | kind |')).split('\n\n')[0].split('\n').slice(2);
  const out = new Map<string, Set<string>>();
  const add = (type: string, name: string) => out.set(type, (out.get(type) ?? new Set()).add(name));
  for (const row of table) {
    const [names = '', kind = ''] = row
      .split('|')
      .slice(1)
      .map((c) => c.trim());
    if (KIND_OF_ROW[kind]) {
      for (const n of names.replace(/\([^)]*\)/g, '').split(',')) add(KIND_OF_ROW[kind], n.trim());
    } else {
      // "Sequence (source), FaultInjector (transform) | Tideway's test plugins ..."
      for (const m of names.matchAll(/([\w-]+) \((source|sink|transform)\)/g)) add(m[2], m[1]);
    }
  }
  return out;
}

it("the README's plugin table matches tideway describe", async () => {
  const res = await runCli(['describe']);
  expect(res.code, res.stderr).toBe(0);
  const described = new Map<string, Set<string>>();
  for (const line of res.stdout.trim().split('\n')) {
    const [type, name] = line.trim().split(/\s+/) as [string, string];
    described.set(type, (described.get(type) ?? new Set()).add(name));
  }
  const sorted = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([k, v]): [string, string[]] => [k, [...v].sort()]).sort());
  expect(sorted(readmeTable())).toEqual(sorted(described));
});
