import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJobConfig } from '@tideway/config';
import { sharedConformanceDir } from '@tideway/testing/shared-conformance';
import { describe, expect, it } from 'vitest';
import { planJobConfig } from './job-plan.js';

/** Builds the plans of SeaTunnel's own conformance job configs through the real parser. */

const ROOT = sharedConformanceDir();
const cases = (ROOT ? readFileSync(join(ROOT, 'MANIFEST.tsv'), 'utf8') : '')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [file, expect, args = ''] = line.split('\t');
    const variables: Record<string, string> = {};
    for (const m of args.matchAll(/-i (\S+?)=(\S+)/g)) variables[m[1]] = m[2];
    return { file, expect, variables };
  });

function plan(file: string) {
  const c = cases.find((x) => x.file === file)!;
  return planJobConfig(parseJobConfig(readFileSync(join(ROOT!, 'cases', file), 'utf8'), { file, variables: c.variables }));
}

describe.skipIf(!ROOT)('conformance job configs', () => {
  it.each(cases.map((c) => c.file))('%s builds a plan', (file) => {
    const p = plan(file);
    const expected = file.includes('batch_fake_multi_table_to_console') ? 2 : 1;
    expect(p.pipelines).toHaveLength(expected);
    // Every plugin is a vertex and every pipeline is fused into one stage (no parallelism changes).
    expect(p.physical.pipelines.every((pp) => pp.stages.length === 1 && pp.shuffles.length === 0)).toBe(true);
  });

  it('runs the two-source, two-sink case as two independent pipelines', () => {
    const p = plan('connector-seatunnel-e2e-base__batch_fake_multi_table_to_console.conf');
    expect(p.pipelines.map((x) => x.vertices.map((v) => `${v.plugin.type}:${v.inputTables.join(',')}${v.outputTable ?? ''}`))).toEqual([
      ['source:fake1', 'sink:fake1'],
      ['source:fake2', 'sink:fake2'],
    ]);
  });

  it('gives a source with parallelism 4 and its sink 4 task groups', () => {
    expect(plan('connector-seatunnel-e2e-base__batch_slot_not_enough.conf').physical.slots).toBe(4);
  });

  it('chains the two Copy transforms into one transform chain', () => {
    const tasks = plan('seatunnel-transforms-v2-e2e-part-1__copy_transform.conf').physical.pipelines[0].stages[0].tasks;
    expect(tasks.map((t) => t.kind)).toEqual(['source-reader', 'transform-chain', 'sink-writer']);
    expect(tasks[1]).toMatchObject({ vertexIds: [2, 3] });
  });

  it('wires tables named by -i variables', () => {
    const p = plan('connector-seatunnel-e2e-base__fake_to_console.variables.conf');
    expect(p.logical.edges.map((e) => e.table)).toEqual(['a20261129', 'sql']);
  });
});
