import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { javaDoubleText, javaSplit } from './java-split.js';
import { splitTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable(
  { table: 'fake' },
  [
    { name: 'id', type: Types.BIGINT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true },
    { name: 'age', type: Types.INT, nullable: true },
    { name: 'score', type: Types.DOUBLE, nullable: true },
    { name: 'c_row', type: Types.row([{ name: 'c_int', type: Types.INT }]), nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);
const row = (fields: unknown[]): Row => ({ kind: RowKind.INSERT, tableId: 'fake', fields });
const create = (options: Record<string, unknown>) =>
  splitTransformFactory.create(transformTestContext(splitTransformFactory.spec, options, [table]));

describe('javaSplit', () => {
  const split = (text: string, re: string, limit: number) => javaSplit(text, new RegExp(re, 'g'), limit);
  it('behaves like Java String.split with a positive limit', () => {
    expect(split('Joy Ding', ' ', 2)).toEqual(['Joy', 'Ding']);
    expect(split('a b c d', ' ', 2)).toEqual(['a', 'b c d']);
    expect(split('a,,b,', ',', 10)).toEqual(['a', '', 'b', '']);
    expect(split(',a', ',', 3)).toEqual(['', 'a']);
    expect(split('abc', '', 2)).toEqual(['a', 'bc']);
    expect(split('abc', '', 10)).toEqual(['a', 'b', 'c', '']);
    expect(split('abc', 'x', 3)).toEqual(['abc']);
    expect(split('1231', '1', 2)).toEqual(['', '231']);
  });
  it('prints doubles as Java does', () => {
    expect([1, 1.5, 0, 1e7, 1.25e-4, -3, 123456.789].map(javaDoubleText)).toEqual([
      '1.0',
      '1.5',
      '0.0',
      '1.0E7',
      '1.25E-4',
      '-3.0',
      '123456.789',
    ]);
  });
});

describe('Split', () => {
  it('appends nullable string fields with the pieces; missing pieces and null values give nulls', () => {
    const t = create({ separator: ' ', split_field: 'name', output_fields: ['first_name', 'second_name'] });
    const [out] = t.outputTables();
    expect(out.columns.slice(5)).toEqual([
      { name: 'first_name', type: Types.STRING, nullable: true },
      { name: 'second_name', type: Types.STRING, nullable: true },
    ]);
    expect(out.primaryKey).toEqual(table.primaryKey);
    const res = t.transform([
      row([1n, 'Joy Ding', 1, 1, null]),
      row([2n, 'Kin Dom Jr', 1, 1, null]),
      row([3n, 'Solo', 1, 1, null]),
      row([4n, null, 1, 1, null]),
    ]);
    expect(res.map((r) => r.fields.slice(5))).toEqual([
      ['Joy', 'Ding'],
      ['Kin', 'Dom Jr'],
      ['Solo', null],
      [null, null],
    ]);
    expect(res[0].fields.slice(0, 5)).toEqual([1n, 'Joy Ding', 1, 1, null]);
  });

  it('splits the text form of a number field (conformance: age by "1")', () => {
    const t = create({ separator: '1', split_field: 'age', output_fields: ['f1', 'f2'] });
    expect(t.transform([row([1n, 'x', 2112, null, null]), row([1n, 'x', 77, null, null])]).map((r) => r.fields.slice(5))).toEqual([
      ['2', '12'],
      ['77', null],
    ]);
    const d = create({ separator: '\\.', split_field: 'score', output_fields: ['int_part', 'frac'] });
    expect(d.transform([row([1n, 'x', 1, 3, null])])[0].fields.slice(5)).toEqual(['3', '0']);
  });

  it('writes into an existing field of the same name, which becomes a string', () => {
    const t = create({ separator: ',', split_field: 'name', output_fields: ['name', 'rest'] });
    expect(t.outputTables()[0].columns.map((c) => `${c.name}:${c.type.kind}`)).toEqual([
      'id:bigint',
      'name:string',
      'age:int',
      'score:double',
      'c_row:row',
      'rest:string',
    ]);
    expect(t.transform([row([1n, 'a,b,c', 1, 1, null])])[0].fields).toEqual([1n, 'a', 1, 1, null, 'b,c']);
  });

  it('refuses unknown or unsplittable fields, bad separators and output lists', () => {
    expect(() => create({ separator: ' ', split_field: 'nope', output_fields: ['a'] })).toThrow(ConfigError);
    expect(() => create({ separator: ' ', split_field: 'nope', output_fields: ['a'] })).toThrow(/'nope' in option 'split_field'/);
    expect(() => create({ separator: ' ', split_field: 'c_row', output_fields: ['a'] })).toThrow(/c_row.*row<c_int int>.*no text form/);
    expect(() => create({ separator: '(', split_field: 'name', output_fields: ['a'] })).toThrow(/option 'separator'/);
    expect(() => create({ separator: ' ', split_field: 'name', output_fields: [] })).toThrow(/needs option 'output_fields'/);
    expect(() => create({ separator: ' ', split_field: 'name', output_fields: ['a', 'a'] })).toThrow(/listed twice/);
    expect(() => create({ split_field: 'name', output_fields: ['a'] })).toThrow(/needs option 'separator'/);
  });
});
