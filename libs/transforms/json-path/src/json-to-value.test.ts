import { describe, expect, it } from 'vitest';
import { parseDataType } from '@tideway/api';
import { jsonConverter } from './json-to-value.js';
import { parseLenientJson } from './lenient-json.js';

const conv = (type: string) => jsonConverter(parseDataType(type))!;

describe('parseLenientJson', () => {
  it('reads strict JSON, unquoted and single-quoted text, and exact big integers', () => {
    expect(parseLenientJson('{"a": [1, "x", null]}')).toEqual({ a: [1, 'x', null] });
    expect(parseLenientJson("{a: b c , d:'e, f', g: [1, true]}")).toEqual({ a: 'b c', d: 'e, f', g: [1, true] });
    expect(parseLenientJson('[12345678901234567890, 1.5]')).toEqual([12345678901234567890n, 1.5]);
    expect(() => parseLenientJson('{"a": 1')).toThrow(/expected at position/);
    expect(() => parseLenientJson('{"a": 1} x')).toThrow(/after the value/);
  });
});

describe('jsonConverter', () => {
  it('reads dates, times and timestamps in the formats SeaTunnel matches', () => {
    expect(['2023-10-29', '2023/10/29', '2023.10.29', '20231029'].map(conv('date'))).toEqual(Array(4).fill('2023-10-29'));
    expect(() => conv('date')('2023-02-30')).toThrow(/not a valid date/);
    expect(conv('time')('16:12:43.459')).toBe('16:12:43.459');
    expect(() => conv('time')('25:00:00')).toThrow(/not a valid time/);
    expect(['2023-10-29 01:02:03', '2023-10-29T01:02:03', '2023/10/29 01:02:03', '20231029010203'].map(conv('timestamp'))).toEqual(
      Array(4).fill('2023-10-29T01:02:03'),
    );
    expect(conv('timestamp')('2023-10-29 01:02:03.123456')).toBe('2023-10-29T01:02:03.123456');
  });

  it('rounds decimals half-up to the scale and checks the precision', () => {
    const d = conv('decimal(4,2)');
    expect([10.55, '10.555', '-0.005', '1e1', 0].map(d)).toEqual(['10.55', '10.56', '-0.01', '10.00', '0.00']);
    expect(() => d('100')).toThrow(/does not fit decimal\(4, 2\)/);
    expect(() => d('1.2.3')).toThrow(/not a valid decimal/);
  });

  it('handles containers, bytes, nulls and Java-style scalars', () => {
    expect(conv('map<string, int>')({ a: 1, b: '2' })).toEqual(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    expect(conv('row<a string, b int>')({ a: 'x', b: 3 })).toEqual(['x', 3]);
    expect(conv('row<a string, b int>')(['x', 3])).toEqual(['x', 3]);
    expect(conv('array<int>')([1, null])).toEqual([1, null]);
    expect(() => conv('array<int>')('x')).toThrow(/not a JSON array/);
    expect(conv('bytes')('AQI=')).toEqual(new Uint8Array([1, 2]));
    expect(conv('string')({ a: [1, 2n] })).toBe('{"a":[1,2]}');
    expect(conv('double')('1.5d')).toBe(1.5);
    expect(conv('boolean')('TRUE ')).toBe(true);
    expect(conv('int')(null)).toBeNull();
    expect(() => conv('tinyint')(200)).toThrow(/not a valid tinyint/);
  });
});
