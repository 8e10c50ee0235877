/**
 * docs/plugins.md's table of sink x contract check says what the files of this folder run: it is
 * generated from contract-table.ts, which those files take their "not applicable" reasons from.
 * Every built-in sink has a row. `UPDATE_CONTRACT_TABLE=1` rewrites the table in the doc.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '@tideway/testing';
import { CONTRACT_ROWS, contractTable } from './contract-table.js';

const START = '<!-- contract-table: generated from test/contract/contract-table.ts -->';
const END = '<!-- /contract-table -->';

describe('the contract table of docs/plugins.md', () => {
  it('is the table the contract tests run', () => {
    const doc = join(repoRoot, 'docs', 'plugins.md');
    const text = readFileSync(doc, 'utf8');
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, `docs/plugins.md has no ${START}`).toBeGreaterThan(0);
    const want = `${START}\n\n${contractTable()}\n\n${END}`;
    const now = text.slice(from, to + END.length);
    if (process.env.UPDATE_CONTRACT_TABLE === '1' && now !== want)
      writeFileSync(doc, text.slice(0, from) + want + text.slice(to + END.length));
    else expect(now, 'run UPDATE_CONTRACT_TABLE=1 pnpm exec vitest run test/contract/contract-table.test.ts').toBe(want);
  });

  it('has a row for every built-in sink (declared by the packages under libs/connectors), and each row a test file', () => {
    const dir = join(repoRoot, 'libs', 'connectors');
    const sinks = readdirSync(dir).flatMap((d) => {
      const pkg = JSON.parse(readFileSync(join(dir, d, 'package.json'), 'utf8')) as {
        tideway?: { plugins?: { name: string; kind: string }[] };
      };
      return (pkg.tideway?.plugins ?? []).filter((p) => p.kind === 'sink').map((p) => p.name);
    });
    expect(sinks.length).toBeGreaterThan(5);
    for (const name of sinks)
      expect(
        CONTRACT_ROWS.some((r) => r.name === name || r.name.startsWith(`${name} (`)),
        `no contract row for ${name}`,
      ).toBe(true);
    for (const r of CONTRACT_ROWS)
      if (r.file !== undefined) expect(existsSync(join(repoRoot, 'test', 'contract', r.file)), r.file).toBe(true);
  });
});
