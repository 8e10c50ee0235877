import { describe, expect, it } from 'vitest';
import { javaDouble, javaFloat } from './java-text.js';

describe('Java number text', () => {
  it.each([
    [1, '1.0'],
    [0.5, '0.5'],
    [1e7, '1.0E7'],
    [1.2345678e7, '1.2345678E7'],
    [1e-4, '1.0E-4'],
    [0.001, '0.001'],
    [-0, '-0.0'],
    [Number.NaN, 'NaN'],
    [-Infinity, '-Infinity'],
  ])('Double.toString(%s) = %s', (v, text) => expect(javaDouble(v)).toBe(text));

  it('Float.toString uses the fewest digits of the float32 value', () => {
    expect(javaFloat(0.1)).toBe('0.1');
    expect(javaFloat(3.4e38)).toBe('3.4E38');
  });
});
