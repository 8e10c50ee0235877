import { describe, expect, it } from 'vitest';
import { textOf } from './text.js';

describe('textOf', () => {
  it('reads primitives as String() does', () => {
    expect([textOf('a'), textOf(1.5), textOf(12n), textOf(true), textOf(undefined), textOf(null)]).toEqual([
      'a',
      '1.5',
      '12',
      'true',
      'undefined',
      'null',
    ]);
  });

  it('writes plain objects and arrays as JSON, bigints as digits', () => {
    expect(textOf({ a: 1, b: [2n] })).toBe('{"a":1,"b":["2"]}');
    expect(textOf([1, 'x'])).toBe('[1,"x"]');
    expect(textOf(Object.create(null))).toBe('{}');
    expect(textOf(new Map([['k', 1n]]))).toBe('[["k","1"]]');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(textOf(cyclic)).toBe('[object Object]');
  });

  it('keeps the own text of objects that have one', () => {
    const d = new Date(0);
    expect(textOf(d)).toBe(String(d));
    expect(textOf(Buffer.from('hi'))).toBe('hi');
    expect(textOf(new Error('boom'))).toBe('Error: boom');
  });
});
