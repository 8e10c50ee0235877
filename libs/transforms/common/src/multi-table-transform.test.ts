import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type PluginSpec, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { MULTI_TABLE_OPTIONS, multiTableTransform, transformTestContext } from './index.js';

// A tiny plugin for the dispatch rules: appends option `tag` (a string) and `times` (an int) to each row.
const spec: PluginSpec = {
  options: [
    { name: 'tag', type: 'string', required: true, description: 't' },
    { name: 'times', type: 'int', default: 1, description: 'n' },
    { name: 'kinds', type: 'list', fallbackNames: ['old_kinds'], description: 'k' },
    ...MULTI_TABLE_OPTIONS,
  ],
};
const tables = ['test.abc', 'test.abcd', 'test.xyz', 'test.www'].map((p) =>
  newCatalogTable({ database: 'test', table: p.split('.')[1] }, [{ name: 'id', type: Types.INT, nullable: false }]),
);
const create = (options: Record<string, unknown>) =>
  multiTableTransform('Tag', spec, transformTestContext(spec, options, tables), (table, o) => ({
    output: { ...table, comment: `${o.get<string>('tag')}x${o.get<number>('times')}:${JSON.stringify(o.get('kinds') ?? null)}` },
    map: (row: Row) => ({ ...row, fields: [...row.fields, o.get('tag')] }),
  }));
const row = (tableId: string): Row => ({ kind: RowKind.INSERT, tableId, fields: [1] });

describe('multiTableTransform', () => {
  it('applies table_transform first, then table_match_regex, else passes tables through', () => {
    const t = create({
      tag: 'a',
      table_match_regex: 'test.a.*',
      table_transform: [{ table_path: 'test.xyz', tag: 'x', times: '3', old_kinds: 'INSERT, DELETE' }],
    });
    expect(t.outputTables().map((o) => o.comment)).toEqual(['ax1:null', 'ax1:null', 'xx3:["INSERT","DELETE"]', undefined]);
    const out = t.transform(['test.abc', 'test.www', 'test.xyz', 'test.abcd', 'test.abcd'].map(row));
    expect(out.map((r) => r.fields[1])).toEqual(['a', undefined, 'x', 'a', 'a']);
  });

  it('matches the whole table path', () => {
    expect(
      create({ tag: 'a', table_match_regex: 'test.ab' })
        .outputTables()
        .map((o) => o.comment),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('refuses bad regexes, entries without or with unknown tables, and bad entry options', () => {
    expect(() => create({ tag: 'a', table_match_regex: '(' })).toThrow(ConfigError);
    expect(() => create({ tag: 'a', table_match_regex: '(' })).toThrow(/table_match_regex '\('/);
    expect(() => create({ tag: 'a', table_transform: [{ tag: 'b' }] })).toThrow(/table_transform\[0\] needs 'table_path'/);
    expect(() => create({ tag: 'a', table_transform: [{ table_path: 'test.nope', tag: 'b' }] })).toThrow(
      /'test.nope', which is not an input table/,
    );
    expect(() => create({ tag: 'a', table_transform: [{ table_path: 'test.xyz' }] })).toThrow(/misses required option 'tag'/);
    expect(() => create({ tag: 'a', table_transform: [{ table_path: 'test.xyz', tag: 'b', typo: 1 }] })).toThrow(/unknown option 'typo'/);
    expect(() => create({ tag: 'a', table_transform: [{ table_path: 'test.xyz', tag: 'b', times: 'x' }] })).toThrow(
      /'times' must be an integer/,
    );
    expect(() =>
      create({
        tag: 'a',
        table_transform: [
          { table_path: 'test.xyz', tag: 'b' },
          { table_path: 'test.xyz', tag: 'c' },
        ],
      }),
    ).toThrow(/already has a rule/);
  });

  it('fails on rows of a table it was not given', () => {
    expect(() => create({ tag: 'a' }).transform([row('other.t')])).toThrow(/table 'other.t', which is not one of its input tables/);
  });
});
