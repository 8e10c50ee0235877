import { describe, expect, it } from 'vitest';
import { convertConfigValue, normalizeDecimal, normalizeTimestamp } from './config-value.js';
import { parseSchemaConfig, parseTypeConfig, rowObjectsToRowTypes } from './schema-config.js';
import { formatType } from './types.js';
import { parseDataType } from './type-parser.js';

describe('schema config', () => {
  it('reads HOCON and JSON row objects inside type texts', () => {
    expect(rowObjectsToRowTypes('map<string, {c_int = int, c_row = {a = "array<int>"}}>')).toBe(
      'map<string, row<`c_int` int, `c_row` row<`a` array<int>>>>',
    );
    expect(formatType(parseTypeConfig('map<string, {"c_int":"int", "c_s":"string"}>', 'm'))).toBe(
      'map<string, row<c_int int, c_s string>>',
    );
    expect(formatType(parseTypeConfig({ a: 'decimal(10, 2)', b: { c: 'map<int, string>' } }, 'r'))).toBe(
      'row<a decimal(10, 2), b row<c map<int, string>>>',
    );
  });

  it('names table, schema_first, default table and errors', () => {
    expect(parseSchemaConfig({ fields: { a: 'int' } }).table.tableId).toBe('default.default.default');
    expect(parseSchemaConfig({ table: 'a.b', schema_first: true, fields: { a: 'int' } }).table.path).toEqual({ schema: 'a', table: 'b' });
    expect(() => parseSchemaConfig({ columns: [{ name: 'a' }] })).toThrow(/needs option 'type'/);
    expect(() => parseSchemaConfig({ fields: { a: 'int' }, primaryKey: { name: 'pk', columnNames: ['b'] } })).toThrow(/column 'b'/);
  });
});

describe('config values', () => {
  it('converts per type', () => {
    expect(convertConfigValue(7084913402530365, parseDataType('bigint'), 'v')).toBe(7084913402530365n);
    expect(convertConfigValue('bWlJWmo=', parseDataType('bytes'), 'v')).toEqual(Buffer.from('miIZj'));
    expect(convertConfigValue({ 1: [1, 'x'] }, parseDataType('map<int, row<a int, b string>>'), 'v')).toEqual(new Map([[1, [1, 'x']]]));
    expect(convertConfigValue('2023-04-22 23:20:58', parseDataType('timestamp'), 'v')).toBe('2023-04-22T23:20:58');
    expect(() => convertConfigValue(300, parseDataType('tinyint'), 'rows[0]')).toThrow(/rows\[0\].*tinyint/);
    expect(() => convertConfigValue('2023-02-30', parseDataType('date'), 'd')).toThrow(/date/);
  });

  it('normalises decimals and timestamps', () => {
    expect(normalizeDecimal('007.50')).toBe('7.50');
    expect(normalizeDecimal(1e-7)).toBe('0.0000001');
    expect(normalizeDecimal('-0')).toBe('0');
    expect(normalizeTimestamp('2024/1/2')).toBe('2024-01-02T00:00:00');
  });
});
