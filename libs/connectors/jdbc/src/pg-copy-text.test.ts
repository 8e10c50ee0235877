import { describe, expect, it } from 'vitest';
import { CopyTextRowParser, unescapeCopyText } from './pg-copy-text.js';
import { bigintOfText, decoderOf, integerOfText } from './value-codec.js';

const keep = decoderOf((v: string) => v);

function parse(text: string, columns: number): unknown[][] {
  const parser = new CopyTextRowParser(Array.from({ length: columns }, () => keep));
  const out: unknown[][] = [];
  parser.parseText(text, out);
  return out;
}

describe('COPY text output parser', () => {
  const text = 'a\t\\N\t€uro\n\\N\tb\\tc\\\\d\t\\n\nx\t\t\n';
  const expected = [
    ['a', null, '€uro'],
    [null, 'b\tc\\d', '\n'],
    ['x', '', ''],
  ];

  it('reads fields, NULLs and escapes', () => {
    expect(parse(text, 3)).toEqual(expected);
  });

  it('applies each column decoder to non-NULL values', () => {
    const parser = new CopyTextRowParser([decoderOf((s: string) => BigInt(s)), decoderOf((s: string) => s === 't')]);
    const out: unknown[][] = [];
    parser.parseText('9007199254740993\tt\n\\N\tf\n', out);
    expect(out).toEqual([
      [9007199254740993n, true],
      [null, false],
    ]);
  });

  it('undoes every escape COPY writes, octal and hex ones included', () => {
    expect(unescapeCopyText('\\b\\f\\n\\r\\t\\v\\\\')).toBe('\b\f\n\r\t\v\\');
    expect(unescapeCopyText('\\101\\x42\\7x\\q')).toBe('AB\x07xq');
    expect(unescapeCopyText('plain')).toBe('plain');
  });

  it('rejects a row with the wrong number of fields', () => {
    expect(() => parse('a\tb\n', 3)).toThrow('COPY output has a row of 2 fields where 3 columns were expected');
    expect(() => parse('a\tb\tc\td\n', 3)).toThrow('COPY output has a row of 4 fields where 3 columns were expected');
  });
});

describe('integer texts', () => {
  it('parse as Number() does', () => {
    for (const s of [
      '0',
      '-0',
      '7',
      '-2147483648',
      '2147483647',
      '999999999999999',
      '-99999999999999',
      '0012',
      '1e3',
      '-',
      '',
      '1.5',
      ' 1',
      '9007199254740993',
    ]) {
      expect(Object.is(integerOfText(s), Number(s)), s).toBe(true);
    }
    expect(bigintOfText('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(bigintOfText('123456789012345')).toBe(123456789012345n);
  });
});
