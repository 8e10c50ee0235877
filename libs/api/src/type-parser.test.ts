import { describe, expect, it } from 'vitest';
import { parseDataType } from './type-parser.js';
import { formatType } from './types.js';

describe('parseDataType', () => {
  it.each([
    ['int', 'int'],
    ['STRING', 'string'],
    ['decimal(38, 18)', 'decimal(38, 18)'],
    ['decimal', 'decimal(38, 18)'],
    ['decimal(10)', 'decimal(10, 0)'],
    ['array<int>', 'array<int>'],
    ['map<string, array<int>>', 'map<string, array<int>>'],
    ['row<a int, b map<string,string>>', 'row<a int, b map<string, string>>'],
    ['timestamp', 'timestamp'],
  ])('%s', (text, expected) => {
    expect(formatType(parseDataType(text))).toBe(expected);
  });

  it('names the position of a bad type', () => {
    expect(() => parseDataType('map<string int>')).toThrow(/position 12/);
    expect(() => parseDataType('strin')).toThrow(/unknown type 'strin'/);
    expect(() => parseDataType('decimal(50, 2)')).toThrow(/precision 50/);
  });
});
