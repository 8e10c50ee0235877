import { newCatalogTable, parseDataType } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { planJob } from './job-plan.js';
import { formatPlan, type PlanJson, planToJson } from './plan-printer.js';
import { pluginFactory } from './test-plugins.js';

function samplePlan() {
  const { source, transform, sink } = pluginFactory('jobs/orders.conf');
  return planJob([
    source('FakeSource', { output: 'fake', parallelism: 4 }),
    transform('Sql', { inputs: ['fake'], output: 'adults', parallelism: 2 }),
    sink('Console', { inputs: ['adults'] }),
  ]);
}

const schemas = new Map([
  [
    1,
    [
      newCatalogTable({ table: 'fake' }, [
        { name: 'name', type: parseDataType('string'), nullable: true },
        { name: 'age', type: parseDataType('int'), nullable: false },
      ]),
    ],
  ],
  [2, [newCatalogTable({ table: 'adults' }, [{ name: 'score', type: parseDataType('decimal(10, 2)'), nullable: true }])]],
]);

describe('formatPlan', () => {
  it('shows vertices with file:line, parallelism, tables and schemas, then pipelines, task groups and shuffles', () => {
    const text = formatPlan(samplePlan(), { schemas });
    const lines = text.split('\n');
    expect(lines).toContain("  [1] source FakeSource  jobs/orders.conf:20  parallelism 4  outputs 'fake'");
    expect(lines).toContain("  [2] transform Sql  jobs/orders.conf:30  parallelism 2  reads 'fake', outputs 'adults'");
    expect(lines).toContain("  [3] sink Console  jobs/orders.conf:40  parallelism 2  reads 'adults'");
    expect(lines).toContain('        table fake: name string, age int not null');
    expect(lines).toContain('        table adults: score decimal(10, 2)');
    expect(lines).toContain('Pipeline 1 (6 slots)');
    expect(lines).toContain('  stage 1: 4 task groups [1, 2, 3, 4], 4 slots');
    expect(lines).toContain('    tasks: reader(FakeSource#1) -> shuffle-out(1)');
    expect(lines).toContain('  stage 2: 2 task groups [5, 6], 2 slots');
    expect(lines).toContain('    tasks: shuffle-in(1) -> chain(Sql#2) -> writer(Console#3)');
    expect(lines.some((l) => l.startsWith('  shuffle 1: FakeSource#1 (stage 1, x4) => Sql#2 (stage 2, x2)'))).toBe(true);
    expect(lines).toContain('  coordinator: split enumerator of FakeSource#1 for 4 readers');
    expect(lines).toContain('  coordinator: aggregated committer of Console#3 for 2 writers');
    expect(lines.at(-1)).toBe('Total: 1 pipeline, 6 slots');
  });

  it('marks cloned vertices with the logical vertex they copy', () => {
    const { source, sink } = pluginFactory();
    const text = formatPlan(
      planJob([source('FakeSource', { output: 'a' }), source('FakeSource', { output: 'b' }), sink('Console', { inputs: ['a', 'b'] })]),
    );
    expect(text).toContain('  vertex 5: sink Console  parallelism 1  (copy of [3])');
    expect(text).toContain('Pipeline 2 (1 slot)');
  });
});

describe('planToJson', () => {
  it('survives a JSON round trip and carries the schemas with formatted types', () => {
    const plan = samplePlan();
    const json = JSON.parse(JSON.stringify(planToJson(plan, { schemas }))) as PlanJson;
    expect(json.logical).toEqual(plan.logical);
    expect(json.physical).toEqual(JSON.parse(JSON.stringify(plan.physical)));
    expect(json.schemas?.['1']).toEqual([
      {
        tableId: 'fake',
        columns: [
          { name: 'name', type: 'string', nullable: true },
          { name: 'age', type: 'int', nullable: false },
        ],
      },
    ]);
    expect(planToJson(plan).schemas).toBeUndefined();
  });
});
