/**
 * docs/plugins.md's table of sink x contract check says what the files of this folder run: it is
 * generated from contract-table.ts, which those files take their "not applicable" reasons from.
 * Every built-in sink has a row. `UPDATE_CONTRACT_TABLE=1` rewrites the table in the doc.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '@tideway/testing';
import { CONTRACT_ROWS, SOURCE_ROWS, contractTable, sourceContractTable } from './contract-table.js';

const START = '<!-- contract-table: generated from test/contract/contract-table.ts -->';
const END = '<!-- /contract-table -->';
const SOURCE_START = '<!-- source-contract-table: generated from test/contract/contract-table.ts -->';
const SOURCE_END = '<!-- /source-contract-table -->';

describe('the contract table of docs/plugins.md', () => {
  for (const [what, table, start, end] of [
    ['sinks', contractTable, START, END],
    ['sources', sourceContractTable, SOURCE_START, SOURCE_END],
  ] as const) {
    it(`is the table of the ${what} the contract tests run`, () => {
      const doc = join(repoRoot, 'docs', 'plugins.md');
      const text = readFileSync(doc, 'utf8');
      const from = text.indexOf(start);
      const to = text.indexOf(end);
      expect(from, `docs/plugins.md has no ${start}`).toBeGreaterThan(0);
      const want = `${start}\n\n${table()}\n\n${end}`;
      const now = text.slice(from, to + end.length);
      if (process.env.UPDATE_CONTRACT_TABLE === '1' && now !== want)
        writeFileSync(doc, text.slice(0, from) + want + text.slice(to + end.length));
      else expect(now, 'run UPDATE_CONTRACT_TABLE=1 pnpm exec vitest run test/contract/contract-table.test.ts').toBe(want);
    });
  }

  it('has a row for every built-in sink and source (declared by the packages under libs/connectors), and each row its test file', () => {
    const dir = join(repoRoot, 'libs', 'connectors');
    const declared = (kind: string) =>
      readdirSync(dir).flatMap((d) => {
        const pkg = JSON.parse(readFileSync(join(dir, d, 'package.json'), 'utf8')) as {
          tideway?: { plugins?: { name: string; kind: string }[] };
        };
        return (pkg.tideway?.plugins ?? []).filter((p) => p.kind === kind).map((p) => p.name);
      });
    const covers = (rows: readonly { name: string }[], name: string) => rows.some((r) => r.name === name || r.name.startsWith(`${name} (`));
    expect(declared('sink').length).toBeGreaterThan(5);
    for (const name of declared('sink')) expect(covers(CONTRACT_ROWS, name), `no contract row for the sink ${name}`).toBe(true);
    for (const name of declared('source')) expect(covers(SOURCE_ROWS, name), `no contract row for the source ${name}`).toBe(true);
    for (const r of [...CONTRACT_ROWS, ...SOURCE_ROWS])
      if (r.file !== undefined) expect(existsSync(join(repoRoot, 'test', 'contract', r.file)), r.file).toBe(true);
  });
});
