import { describe, expect, it } from 'vitest';
import { one, table } from './sql-fixture.test-util.js';

const t = table({ s: 'string', i: 'int', b: 'bigint', d: 'double', m: 'decimal(10, 2)', ts: 'timestamp', dt: 'date', n: 'string' });
const row = ['Hello World', 7, 9007199254740993n, 2.5, '12.34', '2024-02-29T10:20:30.5', '2024-01-31', null];
const ev = (expr: string) => one(`select ${expr} as v from fake`, t, row)!.v;

describe('string functions', () => {
  it.each([
    ["concat(s, n, '!')", 'Hello World!'],
    ['concat(n, n)', ''],
    ["concat_ws('-', s, n, i)", 'Hello World-7'],
    ["concat_ws(n, 'a', 'b')", 'ab'],
    ['s || n', 'Hello World'],
    ['substring(s, -5)', 'World'],
    ['substr(s, 2, 3)', 'ell'],
    ["locate('o', s)", 5],
    ["locate('o', s, 6)", 8],
    ["locate('o', s, -1)", 8],
    ["instr(s, 'World')", 7],
    ["lpad('ab', 1)", 'a'],
    ["rpad('ab', 4)", 'ab  '],
    ["replace(s, 'l')", 'Heo Word'],
    ["regexp_replace('Hello    World', ' +', ' ')", 'Hello World'],
    ["regexp_like(s, '^h', 'i')", true],
    ["regexp_like(s, '^h', 'ic')", false],
    ["split('a,b', ',')", ['a', 'b']],
    ['length(s)', 11n],
    ['ascii(s)', 72],
    ["soundex('Robert')", 'R163'],
    ["soundex('Tymczak')", 'T522'],
    ['to_char(d)', '2.5'],
    ['to_char(m)', '12.34'],
  ])('%s', (expr, want) => {
    expect(ev(expr)).toEqual(want);
  });

  it('nulls propagate where SeaTunnel propagates them', () => {
    for (const e of ['upper(n)', 'substring(n, 1)', "replace(s, n, 'x')", "regexp_replace(n, 'a', 'b')", 'length(n)', 'ascii(n)'])
      expect(ev(e)).toBeNull();
  });

  it('a bad regex flag fails at run time', () => {
    expect(() => ev("regexp_like(s, 'a', 'x')")).toThrow(/invalid regular expression flag 'x'/);
  });
});

describe('numeric functions and arithmetic', () => {
  it.each([
    ['i / 2', 3],
    ['i % 4', 3],
    ['b + 1', 9007199254740994n],
    ['i + b', 9007199254741000n],
    ['m + 1', '13.34'],
    ['m * m', '152.28'],
    ['m / 3', '4.12'],
    ['d * 2', 5],
    ['i + d', 9.5],
    ['-i', -7],
    ['abs(-m)', '12.34'],
    ['round(m, 1)', '12.30'],
    ['round(d)', 3],
    ['round(2.45, 1)', 2.5],
    ['ceil(m)', 13],
    ['floor(-2.5)', -3],
    ['mod(i, 3)', 1],
    ['power(i, 2)', 49],
    ['sign(-m)', -1],
    ['sign(cast(n as int))', 0],
    ['log(2, 8)', 3],
    ['trunc(-2.789, 2)', -2.78],
    ['2147483647 + 1', -2147483648],
  ])('%s', (expr, want) => {
    expect(ev(expr)).toEqual(want);
  });

  it('integer division by zero fails with the expression and table', () => {
    expect(() => ev('i / 0')).toThrow(/division by zero, in expression 'i \/ 0'/);
  });

  it('abs of the smallest int overflows', () => {
    expect(() => ev('abs(-2147483648)')).toThrow(/overflows int/);
  });

  it('arithmetic with null is null', () => {
    expect(ev('i + cast(n as int)')).toBeNull();
  });
});

describe('date/time functions', () => {
  it.each([
    ["dateadd(dt, 1, 'MONTH')", '2024-02-29'],
    ["dateadd(ts, 1, 'YEAR')", '2025-02-28T10:20:30.500'],
    ["dateadd(ts, -90, 'MINUTE')", '2024-02-29T08:50:30.500'],
    ["datediff(dt, ts, 'MONTH')", 0n],
    ["datediff('2024-01-31', '2024-03-01', 'MONTH')", 1n],
    ["date_trunc(ts, 'HOUR')", '2024-02-29T10:00:00'],
    ['dayname(dt)', 'Wednesday'],
    ['quarter(ts)', 1],
    ['extract(MILLISECOND from ts)', 500],
    ["formatdatetime(ts, 'dd/MM/yy HH:mm')", '29/02/24 10:20'],
    ["parsedatetime('08.04.2021 13:34', 'dd.MM.yyyy HH:mm')", '2021-04-08T13:34:00'],
    // java.time's SMART resolver, as SeaTunnel parses: a day past the month's end is its last day
    ["is_date('2021-02-30', 'yyyy-MM-dd')", true],
    ["is_date('2021-02-32', 'yyyy-MM-dd')", false],
    ["parsedatetime('2023-02-29 10:00:00', 'yyyy-MM-dd HH:mm:ss')", '2023-02-28T10:00:00'],
    ["formatdatetime(cast('2024-12-30' as date), 'w')", '1'],
    ["formatdatetime(cast('2024-02-29' as date), 'w')", '9'],
    ["lpad('ab', 5, 'xy')", 'xxxab'],
    ["trim('xyhixy', 'xy')", 'yhixy'],
    ["substring('abc', 4)", null],
    ["insert('abc', 2, 0, 'X')", 'abc'],
    ["soundex('')", '0000'],
    ["ascii('😀')", 55357],
    ['random(7)', 0.7306990420600421],
    ["locate('a', null)", 0],
    ["is_date(n, 'yyyy-MM-dd')", false],
    ['cast(dt as timestamp)', '2024-01-31T00:00:00'],
    ['cast(ts as time)', '10:20:30.500'],
  ])('%s', (expr, want) => {
    expect(ev(expr)).toEqual(want);
  });

  it('parsing text that does not match the pattern fails at run time', () => {
    expect(() => ev("to_date(s, 'yyyy-MM-dd')")).toThrow(/does not match the pattern/);
  });
});

describe('CAST to every SeaTunnel type', () => {
  it.each([
    ["cast('12' as tinyint)", 12],
    ["cast('-3' as smallint)", -3],
    ["cast('42' as bigint)", 42n],
    ["cast('1.5' as float)", 1.5],
    ["cast('true' as boolean)", true],
    ["cast('3.14159' as decimal(5, 2))", '3.15'],
    ['cast(d as string)', '2.5'],
    ['cast(i as double)', 7],
    ['cast(m as int)', 12],
    ["cast('2024-01-02 03:04:05' as timestamp)", '2024-01-02T03:04:05'],
    ['cast(n as int)', null],
  ])('%s', (expr, want) => {
    expect(ev(expr)).toEqual(want);
  });

  it.each([
    ["cast('300' as tinyint)"],
    ["cast('x' as double)"],
    ["cast('12345' as decimal(4, 2))"],
    ["cast('nope' as boolean)"],
    ["cast('2024-13-01' as date)"],
  ])('%s fails at run time', (expr) => {
    expect(() => ev(expr)).toThrow(/Sql transform failed on a row of table default\.fake/);
  });
});

describe('system functions and CASE', () => {
  it.each([
    ['coalesce(n, s)', 'Hello World'],
    ['coalesce(cast(n as int), i, 0)', 7],
    ['ifnull(n, n)', null],
    ["nullif(s, 'Hello World')", null],
    ['nullif(i, 8)', 7],
    ["case i when 7 then 'seven' else 'other' end", 'seven'],
    ['case when i > 10 then 1 end', null],
    ['case when i > 1 then 1 else 2.5 end', 1],
    ['i between 1 and 7', true],
    ['not (i = 7)', false],
    ["s regexp 'W.rld'", true],
  ])('%s', (expr, want) => {
    expect(ev(expr)).toEqual(want);
  });
});
