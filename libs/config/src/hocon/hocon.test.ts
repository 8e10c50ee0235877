import { describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@tideway/common';
import { loadHocon, toPlain, type HoconLoadOptions } from './index.js';

const SECTIONS = ['source', 'transform', 'sink'];

function plain(text: string, options: HoconLoadOptions = {}): unknown {
  return toPlain(loadHocon(text, { file: 'job.conf', pluginSections: SECTIONS, ...options })).value;
}

function failure(text: string, options: HoconLoadOptions = {}): ConfigError {
  try {
    loadHocon(text, { file: 'job.conf', pluginSections: SECTIONS, ...options });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('HOCON syntax', () => {
  it('accepts both comment styles, every separator and a braced root', () => {
    expect(plain('# c\na = 1 // trailing\nb : 2\nc { d = 3 }')).toEqual({ a: 1, b: 2, c: { d: 3 } });
    expect(plain('{ "a": 1, "b": [1, 2,], }')).toEqual({ a: 1, b: [1, 2] });
  });

  it('separates fields and items by commas or newlines, with trailing commas', () => {
    expect(plain('a = 1, b = 2,\nc = [\n 1\n 2,\n 3,\n]\n')).toEqual({ a: 1, b: 2, c: [1, 2, 3] });
  });

  it('splits dotted keys into paths and keeps quoted keys whole', () => {
    expect(plain('row.num = 1\n"a.b" = 2\nx."y.z" = 3')).toEqual({ row: { num: 1 }, 'a.b': 2, x: { 'y.z': 3 } });
  });

  it('keeps an option with a value beside dotted options below it, as SeaTunnel does (start_mode and start_mode.offsets)', () => {
    expect(plain('start_mode = specific_offsets\nstart_mode.offsets = { t-0 = 50 }')).toEqual({
      start_mode: 'specific_offsets',
      'start_mode.offsets': { 't-0': 50 },
    });
    expect(plain('start_mode.timestamp = 1\nstart_mode = timestamp')).toEqual({ start_mode: 'timestamp', 'start_mode.timestamp': 1 });
    expect(plain('a = 1\na = { b = 2 }')).toEqual({ a: { b: 2 } });
  });

  it('keeps integers past 2^53 exact, as their text (Java reads them as exact longs)', () => {
    expect(
      plain('lo = 2844674407371055000\nhi = 2844674407371055099\nneg = -9223372036854775808\nsafe = 9007199254740991\nf = 1.5e300'),
    ).toEqual({
      lo: '2844674407371055000',
      hi: '2844674407371055099',
      neg: '-9223372036854775808',
      safe: 9007199254740991,
      f: 1.5e300,
    });
  });

  it('reads unquoted strings, numbers, booleans and null', () => {
    expect(plain('m = BATCH\nk = MAX_ROW\nr = a20261129\ni = 10\nf = -1.5e3\nt = true\nn = null\nz = 1g')).toEqual({
      m: 'BATCH',
      k: 'MAX_ROW',
      r: 'a20261129',
      i: 10,
      f: -1500,
      t: true,
      n: null,
      z: '1g',
    });
  });

  it('decodes escapes in quoted strings and keeps triple-quoted text raw', () => {
    expect(plain('a = "x\\ty\\n\\"q\\" \\u0041"')).toEqual({ a: 'x\ty\n"q" A' });
    expect(plain('s = """ select * from "t"\n where a = \'\\n\' """')).toEqual({ s: ' select * from "t"\n where a = \'\\n\' ' });
    expect(plain('s = """x""""')).toEqual({ s: 'x"' });
  });

  it('keeps whitespace between concatenated pieces', () => {
    expect(plain('a = foo bar  baz\nb = "x" 1.0 true')).toEqual({ a: 'foo bar  baz', b: 'x 1.0 true' });
  });

  it('merges objects set twice, later scalars win, and appends with +=', () => {
    expect(plain('a { x = 1, y = 2 }\na { y = 3, z = 4 }\nb = 1\nb = 2')).toEqual({ a: { x: 1, y: 3, z: 4 }, b: 2 });
    expect(plain('a = { x = 1 }\na = 5')).toEqual({ a: 5 });
    expect(plain('l = [1]\nl += 2\nm += x')).toEqual({ l: [1, 2], m: ['x'] });
    expect(plain('a = [1] [2]\no = {x:1} {y:2}')).toEqual({ a: [1, 2], o: { x: 1, y: 2 } });
  });
});

describe('plugin sections', () => {
  it('keeps repeated plugin blocks apart, in file order', () => {
    const v = plain('source {\n  FakeSource { row.num = 1 }\n  FakeSource { row.num = 2 }\n  Other = { a = b }\n}\nsink { Console {} }');
    expect(v).toEqual({
      source: [
        { plugin_name: 'FakeSource', row: { num: 1 } },
        { plugin_name: 'FakeSource', row: { num: 2 } },
        { plugin_name: 'Other', a: 'b' },
      ],
      sink: [{ plugin_name: 'Console' }],
    });
  });

  it('merges a nested object called source as plain HOCON', () => {
    expect(plain('env { source { a = 1 }\n source { b = 2 } }')).toEqual({ env: { source: { a: 1, b: 2 } } });
  });
});

describe('substitutions', () => {
  it('concatenates the pieces of the SeaTunnel variables example', () => {
    const v = plain(`transform { sql { query = "select * from "\${resName}" where name = '"\${nameVal}"' " } }`, {
      variables: { resName: 'a20261129', nameVal: 'abc' },
    });
    expect(v).toEqual({ transform: [{ plugin_name: 'sql', query: "select * from a20261129 where name = 'abc' " }] });
  });

  it('looks up -i variables, then config paths, then environment variables', () => {
    const v = plain('base = 5\na = ${base}\nb = ${HOME_DIR}\nc = ${base}', {
      variables: { c: 'x', base: '7' },
      env: { HOME_DIR: '/h', base: '9' },
    });
    expect(v).toEqual({ base: 5, a: '7', b: '/h', c: '7' });
    expect(plain('x = ${y.z}\ny { z = 3 }\nw { a = ${w.b}, b = 1 }')).toEqual({ x: 3, y: { z: 3 }, w: { a: 1, b: 1 } });
  });

  it('drops a field whose optional substitution is unset, keeping an earlier value', () => {
    expect(plain('a = ${?nope}\nb = 1\nb = ${?nope}\nl = [1, ${?nope}]')).toEqual({ b: 1, l: [1] });
  });

  it('sees the earlier value in a self-reference', () => {
    expect(plain('p = a\np = ${p}":b"\no = {x:1}\no = ${o} {y:2}')).toEqual({ p: 'a:b', o: { x: 1, y: 2 } });
  });

  it('turns a [a,b] job variable into a list of strings, as SeaTunnel does', () => {
    expect(plain('t = ${strTemplate}', { variables: { strTemplate: '[abc,de~,f h]' } })).toEqual({ t: ['abc', 'de~', 'f h'] });
    expect(plain('n = ${rowNum}', { variables: { rowNum: '10' } })).toEqual({ n: '10' });
  });

  it('replaces ${name} and ${name:default} inside strings only from -i, else keeps them', () => {
    const v = plain('a = "${resName:fake_test}_table"\nb = "${rowNum:50}"\nc = "${transactionId}"\nd = "${x:}"\ne = "${who}"', {
      variables: { who: 'me' },
      env: { transactionId: 'env-is-not-used' },
    });
    expect(v).toEqual({ a: 'fake_test_table', b: '50', c: '${transactionId}', d: '', e: 'me' });
  });

  it('rejects a job variable named like a sink placeholder', () => {
    const e = failure('a = 1', { variables: { table_name: 'x' } });
    expect(e.code).toBe(ErrorCode.CONFIG_BAD_VALUE);
    expect(e.message).toContain('table_name');
  });

  it('reports an unresolved required variable with its line and how to pass it', () => {
    const e = failure('env {\n  job.name = ${jobName}\n}');
    expect(e.code).toBe(ErrorCode.CONFIG_UNRESOLVED_VARIABLE);
    expect(e.message).toMatch(/^job\.conf:2: .*'jobName'.*-i jobName=value/);
  });

  it('reports a substitution cycle', () => {
    expect(failure('a = ${b}\nb = ${a}').code).toBe(ErrorCode.CONFIG_UNRESOLVED_VARIABLE);
  });
});

describe('syntax errors', () => {
  const cases: [string, string, RegExp][] = [
    ['unclosed object', 'a {\n  b = 1\n', /^job\.conf:3:1: expected ',', a new line or '\}'|expected a key/],
    ['missing separator', 'a {\n  b 1\n}', /^job\.conf:2:6: expected '=', ':' or '\{' after the key 'b 1', found the end of the line/],
    ['unclosed string', 'a = "abc\nb = 1', /^job\.conf:1:5: expected a closing quote/],
    ['bad escape', 'a = "\\q"', /^job\.conf:1:6: expected a valid escape/],
    ['missing value', 'a =\n}', /^job\.conf:2:1: expected a value after the key 'a'/],
    ['forbidden character', 'a = 1\nb = x:y', /^job\.conf:2:6: expected a value, found ':'/],
    ['include', 'a = 1\ninclude "other.conf"', /^job\.conf:2:1: include is not supported/],
    ['default outside quotes', 'a = ${b:c}', /^job\.conf:1:5: .*only inside a quoted string/],
    ['mixed concatenation', 'a = [1] x', /^job\.conf:1: cannot concatenate a list with a string/],
    ['empty key element', 'a..b = 1', /^job\.conf:1:1: expected a key element before '\.'/],
  ];
  for (const [name, text, pattern] of cases) {
    it(name, () => {
      const e = failure(text);
      expect(e.message).toMatch(pattern);
    });
  }

  it('gives JSON errors a line and column', () => {
    const json = (t: string) => failure(t, { json: true }).message;
    expect(json('{\n  "a": 1\n  "b": 2\n}')).toMatch(/^job\.conf:3:3: expected ',' between JSON fields/);
    expect(json('{\n  "a": 1,\n}')).toMatch(/^job\.conf:3:1: expected a field after ',' \(JSON allows no trailing comma\)/);
    expect(json('{ a: 1 }')).toMatch(/^job\.conf:1:3: /);
    expect(json('{ "a": x }')).toMatch(/^job\.conf:1:8: expected a JSON value/);
    expect(json('{ "a" = 1 }')).toMatch(/^job\.conf:1:7: /);
    expect(json('# c\n{}')).toMatch(/^job\.conf:1:1: JSON has no comments/);
  });

  it('keeps a dotted JSON key as one key', () => {
    expect(plain('{ "row.num": 5, "source": [ { "plugin_name": "A" } ] }', { json: true })).toEqual({
      'row.num': 5,
      source: [{ plugin_name: 'A' }],
    });
  });
});

describe('key lines', () => {
  it('records the line of every key by dotted path', () => {
    const root = loadHocon('a {\n  b.c = 1\n  d = [\n 1 ]\n}\na { e = 2 }', { file: 'x' });
    expect(toPlain(root).lines).toEqual({ a: 1, 'a.b': 2, 'a.b.c': 2, 'a.d': 3, 'a.e': 6 });
  });
});
