import { describe, expect, it } from 'vitest';
import { bindFilter, boundValue, matches, mayMatch, projectPredicate } from './filter.js';
import type { IcebergField } from './schema.js';
import { serializeValue } from './values.js';

const fields: IcebergField[] = [
  { id: 1, name: 'id', required: true, type: 'long' },
  { id: 2, name: 'Name', required: false, type: 'string' },
  { id: 3, name: 'ts', required: false, type: 'timestamp' },
  { id: 4, name: 'amount', required: false, type: 'decimal(9, 2)' },
  { id: 5, name: 'tags', required: false, type: { type: 'list', 'element-id': 6, element: 'string', 'element-required': false } },
];

describe('the Iceberg source filter', () => {
  it('binds comparisons joined by AND to fields, literals in internal form', () => {
    const p = bindFilter(
      "id >= 10 AND name IN ('a', 'it''s') AND ts < '2024-01-02T03:04:05.5' AND amount = 1.5 AND Name IS NOT NULL",
      fields,
      false,
    );
    expect(p.map((x) => [x.fieldId, x.op, x.values])).toEqual([
      [1, '>=', [10n]],
      [2, 'in', ['a', "it's"]],
      [3, '<', [1704164645500000n]],
      [4, '=', [150n]],
      [2, 'is not null', []],
    ]);
    expect(() => bindFilter('name = 1', fields, true)).toThrow(
      /option 'filter': the table has no column name \(id, Name, ts, amount, tags\)/,
    );
  });

  it('refuses what it cannot read, in one sentence naming the option', () => {
    for (const [text, says] of [
      ['id = 1 OR id = 2', /'OR' where AND was expected \(OR is not supported\)/],
      ['id LIKE 1', /'LIKE' after id is not a comparison/],
      ["id = 'x'", /"x" is not a long value for column id/],
      ['tags = 1', /column tags of type list cannot be filtered on/],
      ['id IN (1, 2', /the IN list of id is not closed/],
      ['', /it is empty/],
    ] as const) {
      expect(() => bindFilter(text, fields, false), text).toThrow(says);
    }
  });

  it('matches values, nulls only IS NULL', () => {
    const [ge, isNull] = bindFilter('id >= 10 AND id IS NULL', fields, false);
    expect([matches(ge, 10n), matches(ge, 9n), matches(ge, null), matches(isNull, null), matches(isNull, 1n)]).toEqual([
      true,
      false,
      false,
      true,
      false,
    ]);
  });

  it('tells when a range of values (bounds, nulls) cannot match', () => {
    const [eq, lt, notNull, inList] = bindFilter('id = 5 AND id < 5 AND id IS NOT NULL AND id IN (1, 20)', fields, false);
    const range = { lower: 5n, upper: 9n, hasNull: false, hasValue: true };
    expect([mayMatch(eq, range), mayMatch(lt, range), mayMatch(inList, range)]).toEqual([true, false, false]);
    expect(mayMatch(notNull, { hasNull: true, hasValue: false })).toBe(false);
    expect(mayMatch(eq, {})).toBe(true); // nothing known: kept
  });

  it("projects predicates onto partition transforms (Iceberg's inclusive projection)", () => {
    const [ge, lt, ne] = bindFilter(
      "ts >= '2024-01-02T12:00:00' AND ts < '2024-03-01T00:00:00' AND ts != '2024-01-01T00:00:00'",
      fields,
      false,
    );
    const day = projectPredicate(ge, 'day', 'date')!;
    expect([day.op, day.values]).toEqual(['>=', [19724]]); // 2024-01-02: a row of 12:00 is in that day
    const month = projectPredicate(lt, 'month', 'int')!;
    expect([month.op, month.values]).toEqual(['<=', [650]]); // loosened: March 2024 may hold earlier rows
    expect(projectPredicate(ne, 'day', 'date')).toBeUndefined();
    expect(projectPredicate(ge, 'bucket[4]', 'int')).toBeUndefined();
    const [name] = bindFilter("name = 'abcdef'", fields, false);
    expect(projectPredicate(name, 'truncate[3]', 'string')!.values).toEqual(['abc']);
  });

  it('reads bounds written before a column was widened (int for long, float for double)', () => {
    expect(boundValue('long', serializeValue('int', 7))).toBe(7n);
    expect(boundValue('double', serializeValue('float', 1.5))).toBe(1.5);
    expect(boundValue('long', serializeValue('long', 7n))).toBe(7n);
  });
});
