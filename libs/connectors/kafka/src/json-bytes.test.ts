import { parseSchemaConfig } from '@tideway/api';
import { compileJsonLineParser } from '@tideway/connector-file-common/formats';
import { describe, expect, it } from 'vitest';
import { compileJsonBytesParser } from './json-bytes.js';

function columnsOf(fields: Record<string, string>) {
  return parseSchemaConfig({ fields }, { catalogName: 'test', fallbackTable: 't' }).table.columns.map((c) => ({
    name: c.name,
    type: c.type,
  }));
}

/** What the general path gives for `text`: its fields, or its error's message. */
function outcome(parse: (v: Buffer) => unknown[], text: string): unknown {
  try {
    return { fields: parse(Buffer.from(text, 'utf8')) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const FLAT = columnsOf({ key: 'int', seq: 'bigint', payload: 'string', ok: 'boolean', score: 'double', f: 'float', t: 'tinyint' });

describe('compileJsonBytesParser', () => {
  const fast = compileJsonBytesParser(FLAT);
  const general = compileJsonLineParser(FLAT);
  const same = (text: string) => expect(outcome(fast, text)).toEqual(outcome((v) => general(v.toString('utf8')), text));

  it('reads flat records into typed fields', () => {
    expect(fast(Buffer.from('{"key":3,"seq":1234567890123456789,"payload":"k3-s1","ok":true,"score":1.5e3,"f":0.1,"t":-128}'))).toEqual([
      3,
      1234567890123456789n,
      'k3-s1',
      true,
      1500,
      Math.fround(0.1),
      -128,
    ]);
    expect(fast(Buffer.from(' { "payload" : "a\\"b\\u00e9" , "key" : null }\n'))).toEqual([null, null, 'a"bé', null, null, null, null]);
  });

  it('gives what the general path gives, fields or error, for every other shape', () => {
    const cases = [
      '{}',
      '{"key":-0,"seq":-0}',
      '{"seq":"42","key":"7"}',
      '{"key":2147483648}',
      '{"key":-2147483649}',
      '{"t":128}',
      '{"key":1.0}',
      '{"key":1e2}',
      '{"key":01}',
      '{"seq":12345678901234567890123}',
      '{"seq":1.5}',
      '{"score":"NaN","f":"Infinity"}',
      '{"score":-}',
      '{"score":1.}',
      '{"score":1e}',
      '{"ok":"TRUE"}',
      '{"ok":1}',
      '{"ok":tru}',
      '{"payload":12.50}',
      '{"payload":{"a":[1,2]}}',
      '{"payload":"bad \\x escape"}',
      '{"payload":"tab\there"}',
      '{"payload":"é ü 日本"}',
      '{"other":1,"key":2}',
      '{"key":1,"key":2}',
      '{"k\\u0065y":5}',
      '{"key":1,}',
      '{"key":1} x',
      '{"key":1',
      '[1,2]',
      '"text"',
      '',
      'null',
      '{"key":nul}',
      '\ufeff{"key":1}',
    ];
    for (const text of cases) same(text);
  });

  it('agrees with the general path on random edits of a record', () => {
    const base = '{"key":12,"seq":99,"payload":"p\\n q","ok":false,"score":-2.5E-3,"f":3,"t":0}';
    const alphabet = '{}[]":,.-+eE0123456789 \\ntruefalsnul\u00e9x';
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const chars = [...base];
      for (let k = 0; k <= random(3); k++) chars.splice(random(chars.length), random(2), alphabet[random(alphabet.length)]);
      same(chars.join(''));
    }
  });

  it('falls back to the general path for column types it does not scan', () => {
    const columns = columnsOf({ d: 'date', m: 'decimal(10, 2)' });
    expect(compileJsonBytesParser(columns)(Buffer.from('{"d":"2024-01-02","m":12.50}'))).toEqual(
      compileJsonLineParser(columns)('{"d":"2024-01-02","m":12.50}'),
    );
  });

  it('reads a value in the middle of a buffer, never the bytes after it (the next record of the batch)', () => {
    const texts = [
      '{"key":1,"payload":"a"}',
      '{"key":12',
      '{"key":1,"payload":"ab',
      '{"key":1,"ok":tr',
      '{"key":nu',
      '{"key":1.',
      '{"key":1',
      '  ',
      '{"key":1,"payload":"a\\',
      '{"key":1} ',
    ];
    for (const text of texts)
      for (const after of ['}', '3}', 'e}', '"}', 'ue}', 'll}', '0}', ' ', '{"key":2}']) {
        const value = Buffer.from(text, 'utf8');
        const bytes = Buffer.concat([Buffer.from('xx'), value, Buffer.from(after, 'utf8')]);
        const inPlace = (): unknown[] => fast(bytes, 2, 2 + value.length);
        expect(outcome(inPlace, text), `${text} + ${after}`).toEqual(outcome(fast, text));
      }
  });
});
