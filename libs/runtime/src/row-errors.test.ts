import { describe, expect, it } from 'vitest';
import type { Row } from '@tideway/api';
import { ErrorCode, TidewayError, ValueConversionError } from '@tideway/common';
import { RowErrorGuard, type RowErrorPolicy } from './row-errors.js';

const policy = (p: Partial<RowErrorPolicy> = {}): RowErrorPolicy => ({
  mode: 'LOG',
  maxErrorRecords: 0,
  maxErrorRatio: 0,
  maxErrorRatioMinRecords: 10_000,
  includeOriginalData: true,
  includeStacktrace: false,
  originalDataMaxLength: 100,
  setBy: 'env.transform_error_handler.mode',
  ...p,
});

const rows = (...ids: number[]): Row[] =>
  ids.map((id) => ({ kind: '+I', tableId: 'db.t', fields: [id, id % 3 === 0 ? 'bad' : String(id)] }));

/** A transform that fails on a row whose second field is 'bad' (a value that does not convert), doubling the rest. */
function castTransform(input: readonly Row[]): Row[] {
  return input.map((r) => {
    if (r.fields[1] === 'bad')
      throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `cannot cast 'bad' to int (row ${String(r.fields[0])})`);
    return { ...r, fields: [r.fields[0], Number(r.fields[1]) * 2] };
  });
}

describe('RowErrorGuard (transform_error_handler mode LOG)', () => {
  it('drops the rows that do not convert and keeps the rest of their batch, in order', () => {
    const g = new RowErrorGuard(policy(), 'job', 2, 'transform Sql (job.conf:9)');
    expect(g.apply(rows(1, 2, 3, 4, 5, 6, 7), castTransform).map((r) => r.fields)).toEqual([
      [1, 2],
      [2, 4],
      [4, 8],
      [5, 10],
      [7, 14],
    ]);
    expect(g.counts).toEqual({ seen: 7, bad: 2 });
  });

  it('fails past max_error_records naming the vertex, its place, the table and the row', () => {
    const g = new RowErrorGuard(policy({ maxErrorRecords: 2 }), 'job', 2, 'transform Sql (job.conf:9)');
    g.apply(rows(1, 2, 3), castTransform);
    expect(() => g.apply(rows(4, 5, 6, 7, 8, 9), castTransform)).toThrow(
      /^3 bad rows \(more than max_error_records = 2, env\.transform_error_handler\.mode = LOG\); the last, transform Sql \(job\.conf:9\), vertex 2: a row of table db\.t \[9,"bad"\]: cannot cast 'bad' to int \(row 9\)$/,
    );
  });

  it('checks max_error_ratio once max_error_ratio_min_records rows were seen; counts carry over a restore', () => {
    const p = policy({ maxErrorRatio: 0.2, maxErrorRatioMinRecords: 10 });
    const g = new RowErrorGuard(p, 'job', 2, 'transform Sql (job.conf:9)');
    g.apply(rows(1, 2, 3), castTransform); // 1 of 3: too few rows seen to judge
    const restored = new RowErrorGuard(p, 'job', 2, 'transform Sql (job.conf:9)', { ...g.counts });
    expect(() => restored.apply(rows(4, 5, 6, 7, 8, 9, 10), castTransform)).toThrow(/3 of 10 rows, more than max_error_ratio = 0\.2/);
  });

  it('never counts a system error: it fails the task as before', () => {
    const g = new RowErrorGuard(policy(), 'job', 2, 'transform Sql (job.conf:9)');
    const down = () => {
      throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, 'the lookup server is away');
    };
    expect(() => g.apply(rows(1, 2), down)).toThrow(/the lookup server is away/);
    expect(g.counts.bad).toBe(0);
  });
});

describe('RowErrorGuard (transform_error_handler mode ROUTE)', () => {
  const route = { pluginName: 'Sql', tableId: 'error_rows' };
  const guard = (p: Partial<RowErrorPolicy>) =>
    new RowErrorGuard(policy({ mode: 'ROUTE', ...p }), '77', 2, 'transform Sql (job.conf:9)', undefined, route);

  it("makes an error row of each bad row, in SeaTunnel's error-table columns, and hands them over once", () => {
    const g = guard({ includeStacktrace: true });
    g.apply(rows(1, 3, 6), castTransform);
    const [part, ...more] = g.takeRouted();
    expect(more).toEqual([]);
    expect(part.map((r) => r.tableId)).toEqual(['error_rows', 'error_rows']);
    const [stage, type, name, table, jobId, message, cls, stack, original, at] = part[0].fields;
    expect([stage, type, name, table, jobId]).toEqual(['TRANSFORM', 'TRANSFORM', 'Sql', 'db.t', 77n]);
    expect(message).toBe("cannot cast 'bad' to int (row 3)");
    expect(cls).toBe('ValueConversionError[TW-DATA-001]');
    expect(String(stack)).toContain('castTransform');
    expect(original).toBe('[3,"bad"]');
    expect(String(at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    expect(g.takeRouted()).toEqual([]);
  });

  it('past queue_capacity in one batch: FAIL names the limit, DROP keeps the first, BLOCK hands them in parts', () => {
    const batch = rows(3, 6, 9, 12, 15);
    const fail = guard({ queueCapacity: 2, queueOverflowPolicy: 'FAIL' });
    fail.apply(batch, castTransform);
    expect(() => fail.takeRouted()).toThrow(
      /5 bad rows in one batch of transform Sql \(job\.conf:9\), vertex 2: more than queue_capacity = 2/,
    );
    const drop = guard({ queueCapacity: 2, queueOverflowPolicy: 'DROP' });
    drop.apply(batch, castTransform);
    expect(drop.takeRouted().map((p) => p.length)).toEqual([2]);
    const block = guard({ queueCapacity: 2, queueOverflowPolicy: 'BLOCK' });
    block.apply(batch, castTransform);
    expect(block.takeRouted().map((p) => p.length)).toEqual([2, 2, 1]);
    // The count still limits the job, as with LOG
    const limited = guard({ maxErrorRecords: 1 });
    expect(() => limited.apply(batch, castTransform)).toThrow(
      /2 bad rows \(more than max_error_records = 1, env\.transform_error_handler\.mode = ROUTE\)/,
    );
  });
});
