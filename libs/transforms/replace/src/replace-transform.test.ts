import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { replaceTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable({ table: 'fake' }, [
  { name: 'id', type: Types.INT, nullable: true },
  { name: 'name', type: Types.STRING, nullable: true },
]);
const row = (name: unknown): Row => ({ kind: RowKind.UPDATE_AFTER, tableId: 'fake', fields: [1, name] });
const create = (options: Record<string, unknown>) =>
  replaceTransformFactory.create(transformTestContext(replaceTransformFactory.spec, options, [table]));
const run = (options: Record<string, unknown>, ...names: unknown[]) =>
  create({ replace_field: 'name', ...options })
    .transform(names.map(row))
    .map((r) => r.fields[1]);

describe('Replace', () => {
  it('replaces every literal occurrence; $ in the replacement is literal', () => {
    expect(run({ pattern: ' ', replacement: '_' }, 'Joy Ding Dong', null, '')).toEqual(['Joy_Ding_Dong', null, '']);
    expect(run({ pattern: '.', replacement: '$&' }, 'a.b')).toEqual(['a$&b']);
    expect(run({ pattern: '', replacement: '-' }, 'ab')).toEqual(['-a-b-']);
  });

  it('with is_regex replaces all matches, or the first with replace_first (conformance: .+ -> b)', () => {
    expect(run({ pattern: '.+', replacement: 'b', is_regex: true, replace_first: true }, 'Kin Dom', 'x')).toEqual(['b', 'b']);
    expect(run({ pattern: 'o', replacement: '0', is_regex: true }, 'foo boo')).toEqual(['f00 b00']);
    expect(run({ pattern: 'o', replacement: '0', is_regex: true, replace_first: true }, 'foo boo')).toEqual(['f0o boo']);
  });

  it('speaks Java regex and replacement syntax', () => {
    expect(run({ pattern: '(\\w+) (\\w+)', replacement: '$2 $1', is_regex: true }, 'Joy Ding')).toEqual(['Ding Joy']);
    expect(run({ pattern: '(?<first>\\w+) (\\w+)', replacement: '${first}!\\$', is_regex: true }, 'Joy Ding')).toEqual(['Joy!$']);
    expect(run({ pattern: '(?i)JOY', replacement: 'x', is_regex: true }, 'joy Joy')).toEqual(['x x']);
    expect(run({ pattern: '\\Q.*\\E', replacement: '!', is_regex: true }, 'a.*b')).toEqual(['a!b']);
    // $1 followed by a digit: Java keeps the group number valid (one group here)
    expect(run({ pattern: '(a)', replacement: '$10', is_regex: true }, 'a')).toEqual(['a0']);
  });

  it('leaves other fields, the row kind, the schema and the input row alone', () => {
    const t = create({ replace_field: 'name', pattern: 'a', replacement: 'b' });
    const input = row('aa');
    expect(t.transform([input])).toEqual([{ kind: RowKind.UPDATE_AFTER, tableId: 'fake', fields: [1, 'bb'] }]);
    expect(input.fields).toEqual([1, 'aa']);
    expect(t.outputTables()).toEqual([table]);
  });

  it('refuses unknown or non-string fields, bad regexes and replacements, and replace_first without is_regex', () => {
    expect(() => create({ replace_field: 'nope', pattern: 'a', replacement: 'b' })).toThrow(ConfigError);
    expect(() => create({ replace_field: 'nope', pattern: 'a', replacement: 'b' })).toThrow(
      /'nope' in option 'replace_field' is not a column of table 'fake'/,
    );
    expect(() => create({ replace_field: 'id', pattern: 'a', replacement: 'b' })).toThrow(/'id' of table 'fake' is int/);
    expect(() => create({ replace_field: 'name', pattern: '(', replacement: 'b', is_regex: true })).toThrow(
      /option 'pattern' "\(" is not a usable/,
    );
    expect(() => create({ replace_field: 'name', pattern: 'a', replacement: '$2', is_regex: true })).toThrow(
      /option 'replacement'.*no group 2/,
    );
    expect(() => create({ replace_field: 'name', pattern: 'a++', replacement: 'b', is_regex: true })).toThrow(/possessive/);
    expect(() => create({ replace_field: 'name', pattern: 'a', replacement: 'b', replace_first: true })).toThrow(
      /only applies with is_regex/,
    );
    expect(() => create({ replace_field: 'name', replacement: 'b' })).toThrow(/needs option 'pattern'/);
  });
});
