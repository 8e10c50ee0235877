import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError, ValueConversionError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { jsonPathTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable({ table: 'fake' }, [
  { name: 'data', type: Types.STRING, nullable: true },
  {
    name: 'col',
    type: Types.row([
      { name: 'name', type: Types.STRING },
      { name: 'age', type: Types.INT },
    ]),
    nullable: true,
  },
  { name: 'raw', type: Types.BYTES, nullable: true },
  { name: 'n', type: Types.INT, nullable: true },
]);
const row = (data: unknown, col: unknown = null, raw: unknown = null): Row => ({
  kind: RowKind.INSERT,
  tableId: 'fake',
  fields: [data, col, raw, 1],
});
const create = (options: Record<string, unknown>) =>
  jsonPathTransformFactory.create(transformTestContext(jsonPathTransformFactory.spec, options, [table]));
const col = (path: string, dest: string, type?: string, extra: Record<string, unknown> = {}) => ({
  src_field: 'data',
  path,
  dest_field: dest,
  ...(type ? { dest_type: type } : {}),
  ...extra,
});

const basicColumns = [
  col('$.data.c_string', 'c1_string'),
  col('$.data.c_boolean', 'c1_boolean', 'boolean'),
  col('$.data.c_integer', 'c1_integer', 'int'),
  col('$.data.c_float', 'c1_float', 'float'),
  col('$.data.c_double', 'c1_double', 'double'),
  col('$.data.c_decimal', 'c1_decimal', 'decimal(4,2)'),
  col('$.data.c_date', 'c1_date', 'date'),
  col('$.data.c_datetime', 'c1_datetime', 'time'),
];
const expected = ['this is a string', true, 42, 3.14, 3.14, '10.55', '2023-10-29', '16:12:43.459'];

describe('JsonPath', () => {
  it('extracts typed values and appends nullable columns of dest_type', () => {
    const t = create({ columns: [...basicColumns, col('$.data.c_array', 'c1_array', 'array<string>')] });
    const [out] = t.outputTables();
    expect(out.columns.slice(4).map((c) => `${c.name}:${c.type.kind}:${c.nullable}`)).toEqual([
      'c1_string:string:true',
      'c1_boolean:boolean:true',
      'c1_integer:int:true',
      'c1_float:float:true',
      'c1_double:double:true',
      'c1_decimal:decimal:true',
      'c1_date:date:true',
      'c1_datetime:time:true',
      'c1_array:array:true',
    ]);
    const json = JSON.stringify({
      data: {
        c_string: 'this is a string',
        c_boolean: true,
        c_integer: 42,
        c_float: 3.14,
        c_double: 3.14,
        c_decimal: 10.55,
        c_date: '2023-10-29',
        c_datetime: '16:12:43.459',
        c_array: ['item1', 'item2'],
      },
    });
    const [r] = t.transform([row(json)]);
    expect(r.fields.slice(4)).toEqual([...expected, ['item1', 'item2']]);
    expect(r.fields[0]).toBe(json);
  });

  it('reads the lenient JSON of the conformance template (unquoted keys and values, single quotes)', () => {
    // What the HOCON template of json_path_transform_json_path_basic_type_test.conf concatenates to.
    const text = `{data:{c_string: this is a string,c_boolean: true,c_integer: 42,c_float: 3.14,c_double: 3.14,c_decimal: 10.55,c_date:'2023-10-29',c_datetime:"16:12:43.459"}}`;
    const [r] = create({ columns: basicColumns }).transform([row(text)]);
    expect(r.fields.slice(4)).toEqual(expected);
    // and the quoted-string form of the doc page converts the same way
    const quoted = `{"data":{"c_string":"this is a string","c_boolean":"true","c_integer":"42","c_float":"3.14","c_double":"3.14","c_decimal":"10.55","c_date":"2023-10-29","c_datetime":"16:12:43.459"}}`;
    expect(
      create({ columns: basicColumns })
        .transform([row(quoted)])[0]
        .fields.slice(4),
    ).toEqual(expected);
  });

  it('reads rows as arrays, bytes as UTF-8 JSON, and keeps big integers exact', () => {
    const t = create({
      columns: [
        { src_field: 'col', path: '$[0]', dest_field: 'name' },
        { src_field: 'col', path: '$[1]', dest_field: 'age', dest_type: 'int' },
        { src_field: 'raw', path: '$.id', dest_field: 'id', dest_type: 'bigint' },
        { src_field: 'raw', path: '$.obj', dest_field: 'obj' },
      ],
    });
    const raw = new TextEncoder().encode('{"id": 12345678901234567890, "obj": {"a": [1, null]}}');
    expect(() => t.transform([row(null, ['a', 18], raw)])).toThrow(/gives no bigint/); // beyond 64 bits
    const ok = new TextEncoder().encode('{"id": 9007199254740993, "obj": {"a": [1, null]}}');
    expect(t.transform([row(null, ['a', 18], ok)])[0].fields.slice(4)).toEqual(['a', 18, 9007199254740993n, '{"a":[1,null]}']);
  });

  it('gives null for null sources and JSON nulls, lists for indefinite paths', () => {
    const t = create({ columns: [col('$.a', 'a', 'int'), col('$.items[*].v', 'vs', 'array<int>'), col('$..v', 'text')] });
    expect(t.transform([row(null)])[0].fields.slice(4)).toEqual([null, null, null]);
    expect(t.transform([row('{"a": null, "items": [{"v": 1}, {"v": 2}]}')])[0].fields.slice(4)).toEqual([null, [1, 2], '[1,2]']);
  });

  it('converts type edges like SeaTunnel and refuses what does not fit', () => {
    const t = create({
      columns: [
        col('$.v', 'i', 'int'),
        col('$.v', 'd', 'decimal(5,2)'),
        col('$.v', 'b', 'boolean'),
        col('$.v', 's', 'smallint', { column_error_handle_way: 'SKIP' }),
      ],
    });
    expect(t.transform([row('{"v": "7"}')])[0].fields.slice(4)).toEqual([7, '7.00', false, 7]);
    expect(t.transform([row('{"v": 2.675}')])[0].fields.slice(4)).toEqual([2, '2.68', false, null]);
    expect(t.transform([row('{"v": -1e2}')])[0].fields.slice(4)).toEqual([-100, '-100.00', false, -100]);
    expect(() => t.transform([row('{"v": 1000}')])).toThrow(/does not fit decimal\(5, 2\)/);
    expect(() => t.transform([row('{"v": "abc"}')])).toThrow(ValueConversionError);
    expect(() => t.transform([row('{"v": 3000000000}')])).toThrow(
      /value "\{\\"v\\": 3000000000\}" of field 'data' in table 'fake' gives no int for 'i' at path '\$\.v'/,
    );
  });

  it('fails on bad JSON or a missing path by default, naming value, field and table', () => {
    const t = create({ columns: [col('$.f1', 'f1')] });
    expect(() => t.transform([row('{"f2": 1}')])).toThrow(/field 'data' in table 'fake'.*no value at path '\$\.f1'/);
    expect(() => t.transform([row('{"f1": ')])).toThrow(ValueConversionError);
  });

  it('row_error_handle_way = SKIP drops rows with errors', () => {
    const t = create({ row_error_handle_way: 'SKIP', columns: [col('$.f1', 'f1'), col('$.f2', 'f2')] });
    expect(t.transform([row('{"f1": 1}'), row('{"f1": 1, "f2": 2}'), row('not json {')]).map((r) => r.fields.slice(4))).toEqual([
      ['1', '2'],
    ]);
  });

  it('column_error_handle_way SKIP nulls the column, SKIP_ROW drops the row, and overrides the row way', () => {
    const skip = create({
      row_error_handle_way: 'FAIL',
      columns: [col('$.f1', 'f1', undefined, { column_error_handle_way: 'SKIP' }), col('$.f2', 'f2')],
    });
    expect(skip.transform([row('{"f2": 2}')])[0].fields.slice(4)).toEqual([null, '2']);
    expect(() => skip.transform([row('{"f1": 1}')])).toThrow(/'\$\.f2'/);
    const skipRow = create({ columns: [col('$.f1', 'f1', undefined, { column_error_handle_way: 'SKIP_ROW' }), col('$.f2', 'f2')] });
    expect(skipRow.transform([row('{"f2": 2}'), row('{"f1": 1, "f2": 2}')])).toHaveLength(1);
    const failCol = create({ row_error_handle_way: 'SKIP', columns: [col('$.f1', 'f1', undefined, { column_error_handle_way: 'FAIL' })] });
    expect(() => failCol.transform([row('{}')])).toThrow(ValueConversionError);
  });

  it('refuses bad column configs at creation, naming the entry', () => {
    expect(() => create({})).toThrow(ConfigError);
    expect(() => create({ columns: [] })).toThrow(/needs option 'columns'/);
    expect(() => create({ columns: [col('$.a', 'x'), col('$.b', 'x')] })).toThrow(
      /columns\[1\]: dest_field 'x' is used by an earlier column/,
    );
    expect(() => create({ columns: [{ src_field: 'data', dest_field: 'x' }] })).toThrow(/columns\[0\] needs 'path'/);
    expect(() => create({ columns: [{ ...col('$.a', 'x'), src_field: 'nope' }] })).toThrow(
      /'nope' in option 'columns' is not a column of table 'fake'/,
    );
    expect(() => create({ columns: [{ ...col('$.a', 'x'), src_field: 'n' }] })).toThrow(/src_field 'n' of table 'fake' is int/);
    expect(() => create({ columns: [col('$.a', 'x', 'decimal(')] })).toThrow(/dest_type 'decimal\(' is not a type/);
    expect(() => create({ columns: [col('$.a', 'x', 'timestamp_tz')] })).toThrow(/cannot be read from JSON/);
    expect(() => create({ columns: [col('$.a', 'x', undefined, { column_error_handle_way: 'IGNORE' })] })).toThrow(
      /column_error_handle_way must be one of/,
    );
    expect(() => create({ columns: [{ ...col('$.a', 'x'), typo: 1 }] })).toThrow(/unknown key 'typo'/);
  });
});
