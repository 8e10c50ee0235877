import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeaTunnelCluster } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { consoleRows, splitFields, valueShape, type ConsoleRow } from './differential.js';

/**
 * The Sql transform function sweep of the differential run (issue 32): every function SeaTunnel
 * 2.3.8's Sql transform documents (its docs/en/transform-v2/sql-functions.md), called on edge
 * values (nulls, empty strings, unicode, integer extremes, negative zero, infinities, leap days,
 * year ends, time zones), on both engines with the same FakeSource rows, compared value by value
 * and by the Sql transform's declared output type. Many calls go into one job (a SeaTunnel job
 * costs seconds of start-up); a job that fails on either engine is split until the failing call
 * stands alone, and then both engines must fail.
 */

/** The source table: one row per edge case, every column type the functions take. */
export const SWEEP_SCHEMA: readonly [string, string][] = [
  ['id', 'int'],
  ['s', 'string'],
  ['i', 'int'],
  ['l', 'bigint'],
  ['d', 'double'],
  ['f', 'float'],
  ['n', 'decimal(10, 2)'],
  ['dt', 'date'],
  ['ts', 'timestamp'],
  ['t', 'time'],
  ['b', 'boolean'],
  ['ti', 'tinyint'],
  ['si', 'smallint'],
  ['e', 'bigint'],
  ['ds', 'string'],
];

/**
 * The rows, in the schema's order. Row 3 is all nulls; row 2 has the empty string and zeros
 * (its `d * -1` is negative zero: FakeSource's JSON reading of SeaTunnel turns a listed -0.0 into 0.0);
 * rows 4 and 5 the integer extremes; the dates a leap day, the epoch, a year whose last days are
 * in the next ISO week-year and one whose first days are in the previous; `e` epoch seconds
 * (a leap day's last second, before the epoch, a daylight-saving change in New York, past 2^31);
 * `ds` date text for the parsing functions.
 */
export const SWEEP_ROWS: readonly (readonly unknown[])[] = [
  [
    1,
    'Hello World',
    1,
    1,
    1.5,
    1.5,
    '1.50',
    '2024-02-29',
    '2024-02-29T23:59:59.999',
    '23:59:59',
    true,
    1,
    1,
    1709251199,
    '2024-02-29 13:34:45',
  ],
  [2, '', 0, 0, 0.0, 0.0, '0.00', '1970-01-01', '1970-01-01T00:00:00', '00:00:00', false, 0, 0, 0, ''],
  [3, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
  [
    4,
    'Ä中😀 ßé',
    -2147483648,
    -9223372036854775808n,
    1.0e308,
    3.4e38,
    '-12345678.99',
    '1900-03-01',
    '2000-12-31T12:00:00.123456',
    '12:30:15.5',
    true,
    -128,
    -32768,
    -1,
    '2023-02-29 10:00:00',
  ],
  [
    5,
    '  x  ',
    2147483647,
    9223372036854775807n,
    -2.5,
    -2.5,
    '99999999.99',
    '2024-12-30',
    '2024-12-31T00:00:00',
    '00:00:00.001',
    false,
    127,
    32767,
    1710054000,
    '2021-04-08 13:34:45',
  ],
  [6, 'a.b;;c-d', -7, -7, 0.1, 0.1, '-0.05', '2021-01-03', '2021-01-03T01:02:03', '13:00:00', true, -7, -7, 2147483648, 'not a date'],
];

/** One call of the sweep: the documented function it exercises and the Sql expression. */
export interface SweepCall {
  readonly fn: string;
  readonly expr: string;
  /** Values made at random or from the clock: compared on kind and type only. */
  readonly random?: boolean;
  /** Fails on one engine or both: run in a job of its own. */
  readonly alone?: boolean;
}

function calls(fn: string, exprs: readonly string[], opts: { random?: boolean } = {}): SweepCall[] {
  return exprs.map((expr) => ({ fn, expr, ...opts }));
}

/** Calls that fail on an engine (docs/seatunnel-differences.md): each runs alone, not failing a batch. */
function alone(fn: string, exprs: readonly string[]): SweepCall[] {
  return exprs.map((expr) => ({ fn, expr, alone: true }));
}

/** Only the rows whose id is listed: keeps a call that fails on some edge values to those it should not fail on. */
const onRows = (ids: number[], expr: string) => `case when id in (${ids.join(', ')}) then ${expr} end`;

/** Every documented function (aliases each once), grouped as the documentation groups them. */
export const SWEEP_CALLS: Record<'string' | 'numeric' | 'datetime' | 'system', SweepCall[]> = {
  string: [
    ...calls('ASCII', [onRows([1, 3, 4, 5, 6], 'ascii(s)'), "ascii('Hi')", "ascii('é')"]),
    ...alone('ASCII', ["ascii('')"]),
    ...calls('BIT_LENGTH', ['bit_length(s)']),
    ...calls('CHAR_LENGTH', ['char_length(s)']),
    ...calls('LENGTH', ['length(s)', "length('😀')"]),
    ...calls('OCTET_LENGTH', ['octet_length(s)']),
    ...calls('CHAR', ['char(65)', 'char(ti + 64)', 'char(228)']),
    ...calls('CHR', ['chr(97)']),
    ...calls('CONCAT', ['concat(s, s)', 'concat(s, null)', 'concat(null, null)', 'concat(s, i, d)', 'concat(s, dt, ts, b)', 's || i']),
    ...calls('CONCAT_WS', ["concat_ws('-', s, s)", "concat_ws(null, s, 'x')", "concat_ws('-', null, null)", "concat_ws(';', s, i, n)"]),
    ...calls('HEXTORAW', ["hextoraw('00480069')", "hextoraw('')", 'hextoraw(rawtohex(s))']),
    ...calls('RAWTOHEX', ['rawtohex(s)', "rawtohex('')"]),
    ...calls('INSERT', [
      "insert(s, 1, 1, '*')",
      "insert(s, 3, 0, '+')",
      "insert(s, 0, 2, '#')",
      "insert(s, 100, 1, '!')",
      'insert(s, 2, 100, s)',
    ]),
    ...calls('LOWER', ['lower(s)']),
    ...calls('LCASE', ["lcase('ÀÉÎ')"]),
    ...calls('UPPER', ['upper(s)']),
    ...calls('UCASE', ["ucase('straße')"]),
    ...calls('LEFT', ['left(s, 3)', 'left(s, 0)', 'left(s, 100)']),
    ...alone('LEFT', ["left('abc', -1)"]),
    ...calls('RIGHT', ['right(s, 3)', 'right(s, 0)', 'right(s, 100)']),
    ...calls('LOCATE', ["locate('o', s)", "locate('o', s, 6)", "locate('o', s, -1)", "locate('', s)", 'locate(s, s)', "locate('z', s)"]),
    ...calls('INSTR', ["instr(s, 'l')", "instr(s, 'l', 5)", "instr(s, 'l', -1)"]),
    ...calls('POSITION', ["position('World', s)"]),
    ...calls('LPAD', ["lpad(s, 8, '*')", 'lpad(s, 3)', "lpad(s, 0, '*')", "lpad(s, 12, 'ab')"]),
    ...calls('RPAD', ["rpad(s, 8, '-')", 'rpad(s, 14)', "rpad(s, 2, '-')"]),
    ...calls('LTRIM', ['ltrim(s)', "ltrim(s, 'H')", "ltrim(s, '')"]),
    ...calls('RTRIM', ['rtrim(s)', "rtrim(s, 'd')"]),
    ...calls('TRIM', ['trim(s)', "trim(s, 'a')", "trim('xxhixx', 'x')"]),
    ...calls('REGEXP_REPLACE', [
      "regexp_replace(s, 'o', '0')",
      "regexp_replace(s, 'L+', '_', 'i')",
      "regexp_replace(s, '(\\\\w)(\\\\w*)', '$2$1')",
      "regexp_replace(s, '', '.')",
    ]),
    ...alone('REGEXP_REPLACE', ["regexp_replace('abc', null, 'x')"]),
    ...calls('REGEXP_LIKE', ["regexp_like(s, 'o')", "regexp_like(s, '^h', 'i')", "regexp_like(s, '^$')", "regexp_like(s, 'W.R', 'ci')"]),
    ...calls('REGEXP_SUBSTR', [
      "regexp_substr(s, '[a-z]+')",
      "regexp_substr(s, '[a-z]+', 3)",
      "regexp_substr(s, '[a-z]+', 1, 2)",
      "regexp_substr(s, '([A-Z])([a-z]+)', 1, 1, null, 2)",
      "regexp_substr(s, 'q')",
      "regexp_substr(ds, '(\\\\d{4})-(\\\\d{2})', 1, 1, 'i', 1)",
    ]),
    ...calls('REPEAT', ['repeat(s, 2)', 'repeat(s, 0)']),
    ...calls('REPLACE', ["replace(s, 'l', 'L')", "replace(s, 'l')", "replace(s, '', 'x')", "replace(s, 'l', null)"]),
    ...calls('SOUNDEX', ['soundex(s)', "soundex('Robert')", "soundex('Tymczak')", "soundex('Ashcraft')", "soundex('')"]),
    ...calls('SPACE', ['space(3)', 'space(0)', 'concat(space(2), s)']),
    ...calls('SUBSTRING', [
      'substring(s, 2)',
      'substring(s, 2, 3)',
      'substring(s, -3)',
      'substring(s, 0, 2)',
      'substring(s, 20)',
      'substring(s, 3, 0)',
    ]),
    ...calls('SUBSTR', ['substr(s, 1, 1)', 'substr(s, -2, 1)']),
    ...calls('TO_CHAR', [
      'to_char(i)',
      'to_char(d)',
      'to_char(n)',
      "to_char(ts, 'yyyy-MM-dd HH:mm:ss')",
      "to_char(dt, 'dd/MM/yy')",
      'to_char(s)',
      'to_char(b)',
    ]),
    ...alone('TO_CHAR', ['to_char(dt)']),
    ...calls('TRANSLATE', ["translate(s, 'lo', 'LO')", "translate(s, 'lo', 'L')", "translate(s, '', 'x')"]),
  ],
  numeric: [
    ...calls('ABS', ['abs(d)', 'abs(d * -1)', 'abs(n)', 'abs(f)', onRows([1, 2, 3, 5, 6], 'abs(i)'), onRows([1, 2, 3, 5, 6], 'abs(l)')]),
    ...alone('ABS', ['abs(i)', onRows([1, 2], 'abs(ti)')]),
    ...calls('ACOS', ['acos(d)', 'acos(i)', 'acos(n)']),
    ...calls('ASIN', ['asin(d)', 'asin(0.5)']),
    ...calls('ATAN', ['atan(d)', 'atan(l)']),
    ...calls('COS', ['cos(d)', 'cos(d * -1)', 'cos(i)']),
    ...calls('COSH', ['cosh(d)', 'cosh(i)']),
    ...calls('COT', [onRows([1, 3, 4, 5, 6], 'cot(d)'), onRows([1, 3, 4, 5, 6], 'cot(d * -1)'), onRows([1, 3, 4, 5, 6], 'cot(i)')]),
    ...alone('COT', ['cot(0)']),
    ...alone('unary minus', [onRows([3], '-d')]),
    ...calls('SIN', ['sin(d)', 'sin(d * -1)', 'sin(n)']),
    ...calls('SINH', ['sinh(d)', 'sinh(f)']),
    ...calls('TAN', ['tan(d)', 'tan(l)']),
    ...calls('TANH', ['tanh(d)', 'tanh(d * -1)']),
    ...calls('MOD', ['mod(i, 3)', 'mod(l, 3)', 'mod(d, 2)', 'mod(n, 3)', 'mod(-7, 3)', 'mod(7, -3)', 'mod(i, 2.5)']),
    ...calls('CEIL', [
      onRows([1, 2, 3, 5, 6], 'ceil(d)'),
      onRows([1, 2, 3, 5, 6], 'ceil(d * -1)'),
      'ceil(n)',
      onRows([1, 2, 3, 5, 6], 'ceil(f)'),
      'ceil(i)',
      onRows([1, 2, 3, 6], 'ceil(l)'),
    ]),
    ...alone('CEIL', ['ceil(l)']),
    ...calls('CEILING', [onRows([1, 2, 3, 5, 6], 'ceiling(d)')]),
    ...calls('EXP', ['exp(d)', 'exp(i)', 'exp(d * -1)']),
    ...calls('FLOOR', [
      onRows([1, 2, 3, 5, 6], 'floor(d)'),
      onRows([1, 2, 3, 5, 6], 'floor(d * -1)'),
      'floor(n)',
      onRows([1, 2, 3, 5, 6], 'floor(f)'),
      'floor(i)',
    ]),
    ...calls('LN', [onRows([1, 5], 'ln(l)'), 'ln(2.718281828459045)', onRows([1, 4, 6], 'ln(d)')]),
    ...calls('LOG', ['log(2, 8)', onRows([1, 4, 6], 'log(10, d)'), onRows([5], 'log(i, 2)')]),
    ...alone('LOG', ['log(1, 2)', onRows([1, 4, 6], 'log(d)')]),
    ...alone('ROUND', ['round(l, -1)']),
    ...calls('LOG10', ['log10(1000)', onRows([1, 4, 6], 'log10(d)'), onRows([1, 5], 'log10(n)')]),
    ...calls('RADIANS', ['radians(d)', 'radians(i)', 'radians(180)']),
    ...calls('SQRT', ['sqrt(d)', 'sqrt(i)', 'sqrt(d * -1)', 'sqrt(n)']),
    ...calls('PI', ['pi()']),
    ...calls('POWER', ['power(d, 2)', 'power(i, 2)', 'power(2, -1)', 'power(l, 0)', 'power(d * -1, 3)', 'power(d, 0.5)']),
    ...calls('RAND', ['rand()'], { random: true }),
    ...calls('RANDOM', ['random()'], { random: true }),
    ...calls('RANDOM', ['random(7)', onRows([1, 2, 4, 5, 6], 'rand(i)')]),
    ...calls('ROUND', [
      'round(d)',
      'round(d, 1)',
      'round(d * -1)',
      'round(n, 1)',
      'round(n)',
      'round(f, 1)',
      'round(i)',
      'round(l)',
      'round(2.5)',
      'round(-2.5)',
      'round(0.125, 2)',
    ]),
    ...calls('SIGN', ['sign(d)', 'sign(d * -1)', 'sign(i)', 'sign(l)', 'sign(n)', 'sign(f)']),
    ...calls('TRUNC', ['trunc(d)', 'trunc(d, 1)', 'trunc(n, 1)', 'trunc(d * -1)', 'trunc(i)', 'trunc(f)']),
    ...calls('TRUNCATE', ['truncate(n)']),
  ],
  datetime: [
    ...calls('CURRENT_DATE', ['current_date'], { random: true }),
    ...calls('CURRENT_TIME', ['current_time'], { random: true }),
    ...calls('CURRENT_TIMESTAMP', ['current_timestamp'], { random: true }),
    ...calls('NOW', ['now()'], { random: true }),
    ...calls('DATEADD', [
      "dateadd(ts, 1, 'YEAR')",
      "dateadd(dt, 1, 'YEAR')",
      "dateadd(dt, -1, 'MONTH')",
      "dateadd(dt, 1, 'DAY')",
      "dateadd(dt, 2, 'WEEK')",
      "dateadd(ts, 1, 'HOUR')",
      "dateadd(ts, -90, 'MINUTE')",
      "dateadd(ts, 1, 'SECOND')",
      "dateadd(ts, 1, 'MILLISECOND')",
      "dateadd(t, 1, 'HOUR')",
      "dateadd(t, 30, 'SECOND')",
      onRows([1, 2, 3, 6], "dateadd(ts, i, 'DAY')"),
    ]),
    ...alone('DATEADD', ["dateadd(t, 1, 'DAY')", "dateadd(dt, 1, 'HOUR')", "dateadd(ts, 1, 'QUARTER')"]),
    ...calls('TIMESTAMPADD', ["timestampadd(ts, 3, 'MONTH')"]),
    ...calls('DATEDIFF', [
      "datediff(dt, cast(ts as date), 'DAY')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'YEAR')",
      "datediff(dt, dateadd(dt, 13, 'MONTH'), 'MONTH')",
      "datediff(dt, dateadd(dt, 13, 'MONTH'), 'YEAR')",
      "datediff(dateadd(dt, 1, 'DAY'), dt, 'MONTH')",
      "datediff(ts, dateadd(ts, -1, 'MILLISECOND'), 'SECOND')",
      "datediff(ts, dateadd(ts, 100, 'HOUR'), 'DAY')",
      "datediff(ts, dateadd(ts, 20, 'DAY'), 'WEEK')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'HOUR')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'MINUTE')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'SECOND')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'MILLISECOND')",
      "datediff(ts, dateadd(ts, 3, 'DAY'), 'WEEK')",
      "datediff(ts, ts, 'DAY')",
      "datediff(t, cast(ts as time), 'MINUTE')",
    ]),
    ...calls('DATE_TRUNC', [
      "date_trunc(ts, 'YEAR')",
      "date_trunc(ts, 'MONTH')",
      "date_trunc(ts, 'DAY')",
      "date_trunc(ts, 'HOUR')",
      "date_trunc(ts, 'SECOND')",
    ]),
    ...alone('DATE_TRUNC', ["date_trunc(dt, 'MONTH')"]),
    ...calls('DAYNAME', ['dayname(dt)', 'dayname(ts)']),
    ...calls('DAY_OF_MONTH', ['day_of_month(dt)', 'day_of_month(ts)']),
    ...calls('DAY_OF_WEEK', ['day_of_week(dt)', 'day_of_week(ts)']),
    ...calls('DAY_OF_YEAR', ['day_of_year(dt)', 'day_of_year(ts)']),
    ...calls('EXTRACT', [
      'extract(year from ts)',
      'extract(month from dt)',
      'extract(day from ts)',
      'extract(hour from ts)',
      'extract(minute from t)',
      'extract(second from ts)',
      'extract(millisecond from ts)',
      'extract(dayofweek from dt)',
      'extract(dayofyear from ts)',
    ]),
    ...alone('EXTRACT', ['extract(quarter from dt)']),
    ...calls('FORMATDATETIME', [
      "formatdatetime(ts, 'yyyy-MM-dd HH:mm:ss')",
      "formatdatetime(dt, 'dd/MM/yyyy')",
      "formatdatetime(ts, 'EEE MMM d yy')",
      "formatdatetime(ts, 'yyyy-MM-dd HH:mm:ss.SSS')",
      "formatdatetime(t, 'HH:mm')",
      "formatdatetime(ts, 'D w a h')",
    ]),
    ...calls('HOUR', ['hour(ts)', 'hour(t)']),
    ...calls('MINUTE', ['minute(ts)', 'minute(t)']),
    ...calls('MONTH', ['month(dt)', 'month(ts)']),
    ...calls('MONTHNAME', ['monthname(dt)', 'monthname(ts)']),
    ...calls('IS_DATE', [
      "is_date(ds, 'yyyy-MM-dd HH:mm:ss')",
      "is_date(ds, 'yyyy-MM-dd')",
      "is_date('2024-02-30', 'yyyy-MM-dd')",
      "is_date(null, 'yyyy')",
    ]),
    ...calls('PARSEDATETIME', [
      onRows([1, 4, 5], "parsedatetime(ds, 'yyyy-MM-dd HH:mm:ss')"),
      "parsedatetime('2024-02-29', 'yyyy-MM-dd')",
      "parsedatetime('23:59', 'HH:mm')",
    ]),
    ...calls('TO_DATE', ["to_date('29.02.2024', 'dd.MM.yyyy')"]),
    ...calls('QUARTER', ['quarter(dt)', 'quarter(ts)']),
    ...calls('SECOND', ['second(ts)', 'second(t)']),
    ...calls('WEEK', ['week(dt)', 'week(ts)']),
    ...calls('YEAR', ['year(dt)', 'year(ts)']),
    ...calls('FROM_UNIXTIME', [
      "from_unixtime(e, 'yyyy-MM-dd HH:mm:ss')",
      "from_unixtime(e, 'yyyy-MM-dd HH:mm:ss', 'UTC+8')",
      "from_unixtime(e, 'yyyy-MM-dd HH:mm:ss', 'America/New_York')",
      "from_unixtime(e, 'yyyy-MM-dd HH:mm:ss', 'Asia/Kolkata')",
      "from_unixtime(e, 'yyyy-MM-dd HH:mm:ss', 'UTC-09:30')",
    ]),
    ...alone('FORMATDATETIME', ["formatdatetime(ts, 'yyyy-MM-dd''T''HH:mm')"]),
    ...alone('FROM_UNIXTIME', ["from_unixtime(1672502400, 'yyyy-MM-dd')"]),
  ],
  system: [
    ...calls('CAST', [
      'cast(i as string)',
      'cast(d as string)',
      'cast(d * -1 as string)',
      'cast(n as string)',
      'cast(dt as string)',
      'cast(ts as string)',
      'cast(t as string)',
      'cast(b as string)',
      'cast(i as bigint)',
      'cast(l as double)',
      "cast('-17' as int)",
      'cast(f as double)',
      'cast(i as decimal(20, 3))',
      onRows([1, 2, 3, 5, 6], 'cast(d as decimal(10, 2))'),
      'cast(ts as date)',
      'cast(dt as timestamp)',
      'cast(ts as time)',

      "cast('42' as int)",
      "cast('1.5' as double)",
      'cast(s as bytes)',
      'cast(i as float)',
    ]),
    ...alone('CAST', ['cast(d as int)', "cast('2024-02-29' as date)", 'cast(ti as byte)']),
    ...calls('COALESCE', ["coalesce(s, 'dflt')", 'coalesce(i, l)', 'coalesce(null, d, 0)', 'coalesce(dt, cast(ts as date))']),
    ...alone('COALESCE', ["coalesce(dt, '2000-01-01')"]),
    ...calls('IFNULL', ["ifnull(s, 'x')", 'ifnull(i, -1)']),
    ...calls('NULLIF', ["nullif(s, '')", 'nullif(i, 0)', 'nullif(d, d)']),
    ...alone('CASE WHEN', [onRows([1, 2, 3, 5, 6], 'case when b then d else n end')]),
    ...calls('CASE WHEN', [
      "case when i > 0 then 'pos' when i < 0 then 'neg' else 'zero' end",
      "case i when 1 then 'one' when 0 then 'zero' end",
      'case when s is null then 1 else 0 end',
    ]),
  ],
};

/** Every call of the sweep, in group order. */
export function allSweepCalls(): SweepCall[] {
  return Object.values(SWEEP_CALLS).flat();
}

function hoconValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v).replace('e+', 'E').replace('e-', 'E-'); // HOCON takes 1E308, not 1e+308
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new Error(`no HOCON for the sweep value ${JSON.stringify(v)}`);
}

/** Escapes a Sql query for a HOCON double-quoted string. */
function hoconString(s: string): string {
  return JSON.stringify(s);
}

/** The sweep's job: the source rows, one Sql transform with `calls` as columns c1..cN and a null mark per call, a Console sink. */
export function sweepConfig(batch: readonly SweepCall[]): string {
  const fields = SWEEP_SCHEMA.map(([n, t]) => `${n} = "${t}"`).join(', ');
  const rows = SWEEP_ROWS.map((r) => `      { kind = INSERT, fields = [${r.map(hoconValue).join(', ')}] }`).join('\n');
  const columns = batch.map((c, i) => `${c.expr} as c${i + 1}`);
  // Console prints null and '' alike: one column marks each call's nulls (N) and values (-).
  const nulls = batch.map((c) => `case when ${c.expr} is null then 'N' else '-' end`).join(' || ');
  const query = `select id, ${columns.join(', ')}, ${nulls} as nulls from src`;
  return `env { parallelism = 1, job.mode = "BATCH", job.retry.times = 0 }
source {
  FakeSource {
    result_table_name = "src"
    schema = { fields { ${fields} } }
    rows = [
${rows}
    ]
  }
}
transform {
  Sql {
    source_table_name = "src"
    result_table_name = "out"
    query = ${hoconString(query)}
  }
}
sink { Console { source_table_name = "out" } }
`;
}

/** The Sql transform's declared output column types, lower-case without spaces ("decimal(10,2)"). */
export type ColumnTypes = string[];

/** SeaTunnel's Console log line `output rowType: id<INT>, c1<Decimal(10, 2)>, ...` of one job, as column types. */
export function seaTunnelRowType(log: string, jobId: string | undefined): ColumnTypes | undefined {
  for (const line of log.split('\n')) {
    if (jobId !== undefined && !line.startsWith(`[${jobId}]`)) continue;
    const m = /output rowType: (.*)$/.exec(line);
    if (!m) continue;
    return m[1].split(/, (?=(?:id|nulls|c\d+)<)/).map((col) => normalizeType(col.slice(col.indexOf('<') + 1, -1)));
  }
  return undefined;
}

export function normalizeType(t: string): string {
  return t.toLowerCase().replace(/\s+/g, '');
}

/** What differs between the two engines' sweep rows and types, as sentences naming the call; empty when they agree. */
export function compareSweep(
  batch: readonly SweepCall[],
  tideway: { rows: readonly ConsoleRow[]; types?: ColumnTypes },
  seatunnel: { rows: readonly ConsoleRow[]; types?: ColumnTypes },
): string[] {
  const diffs: string[] = [];
  const byId = (rows: readonly ConsoleRow[]) => new Map(rows.map((r) => [splitFields(r.fields)[0], splitFields(r.fields)]));
  const a = byId(tideway.rows);
  const b = byId(seatunnel.rows);
  if (a.size !== SWEEP_ROWS.length || b.size !== SWEEP_ROWS.length)
    diffs.push(`rows: Tideway printed ${tideway.rows.length}, SeaTunnel ${seatunnel.rows.length}, of ${SWEEP_ROWS.length}`);
  const width = batch.length + 2;
  for (const [id, ta] of a) {
    const tb = b.get(id);
    if (!tb) continue;
    if (ta.length !== width || tb.length !== width) {
      diffs.push(`row ${id}: Tideway printed ${ta.length} fields, SeaTunnel ${tb.length}, of ${width}`);
      continue;
    }
    const nullsA = ta[width - 1];
    const nullsB = tb[width - 1];
    batch.forEach((call, i) => {
      const [va, vb] = [ta[i + 1], tb[i + 1]];
      const [na, nb] = [nullsA[i], nullsB[i]];
      const float = tideway.types?.[i + 1] === 'float';
      const same = call.random
        ? na === nb && valueShape(va) === valueShape(vb)
        : na === nb && (va === vb || sameNumber(va, vb, float) || (LIBM.has(call.fn) && withinOneUlp(va, vb)));
      if (!same) diffs.push(`${call.fn}: ${call.expr} on row ${id}: Tideway ${shown(va, na)}, SeaTunnel ${shown(vb, nb)}`);
    });
  }
  if (tideway.types && seatunnel.types) {
    batch.forEach((call, i) => {
      const [x, y] = [tideway.types![i + 1], seatunnel.types![i + 1]];
      if (x !== y) diffs.push(`${call.fn}: ${call.expr} has type ${x} on Tideway, ${y} on SeaTunnel`);
    });
  } else diffs.push(`types: ${tideway.types ? 'SeaTunnel' : 'Tideway'} did not show its output row type`);
  return diffs;
}

/**
 * One double (or float, in a FLOAT column) printed two ways: Java 17's Double.toString and
 * Float.toString (SeaTunnel's JVM) give some values a digit more than the shortest text that
 * reads back as the same value (JDK-4511638, fixed in Java 19): 4.6116860184273879E18 for
 * 4.611686018427388E18, 2.14748365E9 for 2.1474836E9.
 */
function sameNumber(a: string, b: string, float: boolean): boolean {
  const double = /^-?\d+\.\d+E-?\d+$/;
  if (!double.test(a) || !double.test(b)) return false;
  return float ? Math.fround(Number(a)) === Math.fround(Number(b)) : Number(a) === Number(b);
}

/**
 * Functions whose double results Java's Math and JavaScript's Math may give one unit in the last
 * place apart: both within their specifications (Java's Math.cos "within 1 ulp"), neither
 * engine's choice (cos(0.1) is 0.9950041652780258 on SeaTunnel's JVM, 0.9950041652780257 in V8).
 */
const LIBM = new Set(['ACOS', 'ASIN', 'ATAN', 'COS', 'COSH', 'COT', 'SIN', 'SINH', 'TAN', 'TANH', 'EXP', 'LN', 'LOG', 'LOG10', 'POWER']);

function withinOneUlp(a: string, b: string): boolean {
  const [x, y] = [Number(a), Number(b)];
  if (!Number.isFinite(x) || !Number.isFinite(y) || Math.sign(x) !== Math.sign(y) || !/\d\.\d/.test(a) || !/\d\.\d/.test(b)) return false;
  const bits = new BigInt64Array(new Float64Array([x, y]).buffer);
  const d = bits[0] - bits[1];
  return d >= -1n && d <= 1n;
}

function shown(value: string, nullMark: string | undefined): string {
  return nullMark === 'N' ? 'null' : `'${value}'`;
}

/** The calls cut into batches of at most `size`, each batch one function group's calls. */
export function sweepBatches(callsOf: readonly SweepCall[], size: number): SweepCall[][] {
  const out: SweepCall[][] = [];
  for (let i = 0; i < callsOf.length; i += size) out.push(callsOf.slice(i, i + size));
  return out;
}

/** One sweep job's run on both engines. */
export interface SweepJobRun {
  readonly tideway: { code: number | null; rows: ConsoleRow[]; types?: ColumnTypes; output: string };
  readonly seatunnel: { code: number | null; rows: ConsoleRow[]; types?: ColumnTypes; output: string };
}

/** Runs one job of calls on both engines. */
export type SweepRunner = (batch: readonly SweepCall[]) => Promise<SweepJobRun>;

/** The outcome of a batch: the differences found, and the calls that failed on both engines (agreeing). */
export interface SweepOutcome {
  readonly diffs: string[];
  readonly failedOnBoth: { call: SweepCall; tideway: string; seatunnel: string }[];
  readonly jobs: number;
}

/** The last line of a failed run that says why. */
export function failureOf(output: string): string {
  const lines = output.split('\n').filter((l) => /Exception|Error|FAILED|failed/.test(l));
  const tideway = output.split('\n').find((l) => l.startsWith('tideway: '));
  return (tideway ?? lines.find((l) => /Caused by/.test(l)) ?? lines[lines.length - 1] ?? '').trim().slice(0, 300);
}

/**
 * Runs `batch` on both engines and compares; a job that fails on either is split in two and each
 * half run again, down to single calls, where both engines must fail.
 */
export async function sweep(batch: readonly SweepCall[], run: SweepRunner): Promise<SweepOutcome> {
  const r = await run(batch);
  const ok = [r.tideway.code === 0, r.seatunnel.code === 0];
  if (ok[0] && ok[1]) return { diffs: compareSweep(batch, r.tideway, r.seatunnel), failedOnBoth: [], jobs: 1 };
  if (batch.length === 1) {
    const call = batch[0];
    if (!ok[0] && !ok[1])
      return {
        diffs: [],
        failedOnBoth: [{ call, tideway: failureOf(r.tideway.output), seatunnel: failureOf(r.seatunnel.output) }],
        jobs: 1,
      };
    const failed = ok[0] ? 'SeaTunnel' : 'Tideway';
    return {
      diffs: [`${call.fn}: ${call.expr} fails on ${failed} only: ${failureOf(ok[0] ? r.seatunnel.output : r.tideway.output)}`],
      failedOnBoth: [],
      jobs: 1,
    };
  }
  // Tideway names the expression that failed: that call alone, the others together.
  const named = ok[1] ? batch.findIndex((c) => r.tideway.output.includes(`in expression '${c.expr}'`)) : -1;
  if (named >= 0) {
    const rest = batch.filter((_, i) => i !== named);
    const [x, y] = await Promise.all([sweep([batch[named]], run), sweep(rest, run)]);
    return { diffs: [...x.diffs, ...y.diffs], failedOnBoth: [...x.failedOnBoth, ...y.failedOnBoth], jobs: 1 + x.jobs + y.jobs };
  }
  const half = Math.ceil(batch.length / 2);
  const [x, y] = await Promise.all([sweep(batch.slice(0, half), run), sweep(batch.slice(half), run)]);
  return { diffs: [...x.diffs, ...y.diffs], failedOnBoth: [...x.failedOnBoth, ...y.failedOnBoth], jobs: 1 + x.jobs + y.jobs };
}

/** Sweep jobs written so far in this process: each job's config file has its own name. */
let jobCount = 0;

/** Tideway's declared output types of the sweep job's Sql transform (`tideway plan --json`). */
function tidewayTypes(planJson: string): ColumnTypes | undefined {
  try {
    const plan = JSON.parse(planJson) as { schemas: Record<string, { columns: { name: string; type: string }[] }[]> };
    const out = Object.values(plan.schemas)
      .flat()
      .find((t) => t.columns.some((c) => c.name === 'nulls'));
    return out?.columns.map((c) => normalizeType(c.type));
  } catch {
    return undefined;
  }
}

/**
 * Runs sweep jobs on Tideway (the CLI, with `plan --json` for its types) and on the SeaTunnel
 * cluster (types from its Console's `output rowType` line), at most `limit` at once.
 */
export function sweepRunner(cluster: SeaTunnelCluster, work: string, limit: <T>(f: () => Promise<T>) => Promise<T>): SweepRunner {
  return (batch) =>
    limit(async () => {
      const path = join(work, `sql-sweep-${++jobCount}.conf`);
      writeFileSync(path, sweepConfig(batch));
      const [tw, plan, st] = await Promise.all([
        runCli(['run', '-c', path], 180_000, { TZ: 'UTC' }),
        runCli(['plan', '-c', path, '--json'], 120_000, { TZ: 'UTC' }),
        cluster.run(path),
      ]);
      return {
        tideway: {
          code: tw.code,
          rows: consoleRows(tw.stdout.split('\n')),
          types: tidewayTypes(plan.stdout),
          output: tw.stdout + tw.stderr,
        },
        seatunnel: {
          code: st.exitCode,
          rows: consoleRows(st.consoleLines),
          types: st.jobId === undefined ? undefined : seaTunnelRowType(cluster.workerLog(), st.jobId),
          output: st.output,
        },
      };
    });
}

/**
 * The sweep's calls: 'all' every one; 'sample' (the suite's) the first call of each documented
 * function, none that fails on an engine.
 */
export function sweepCalls(mode: 'all' | 'sample'): SweepCall[] {
  const every = allSweepCalls();
  if (mode === 'all') return every;
  const seen = new Set<string>();
  return every.filter((c) => {
    if (c.alone || seen.has(c.fn)) return false;
    seen.add(c.fn);
    return true;
  });
}

/** The documented functions the sweep calls (aliases counted apart). */
export function sweptFunctions(): string[] {
  return [...new Set(allSweepCalls().map((c) => c.fn))];
}

/**
 * Differences docs/seatunnel-differences.md lists as SeaTunnel 2.3.8's (its section "Sql
 * functions"): each pattern matches the sweep's sentence for the call.
 */
export const KNOWN_SWEEP_DIFFERENCES: readonly { pattern: RegExp; doc: string }[] = [
  { pattern: /^ASCII: ascii\(''\) fails on SeaTunnel only/, doc: "ASCII('') fails on SeaTunnel (charAt(0) of an empty string)" },
  { pattern: /^LEFT: left\('abc', -1\) fails on SeaTunnel only/, doc: 'LEFT with a negative length fails on SeaTunnel' },
  {
    pattern: /^REGEXP_REPLACE: regexp_replace\('abc', null, 'x'\) fails on SeaTunnel only/,
    doc: 'REGEXP_REPLACE with a null pattern fails on SeaTunnel (its docs: the result is null)',
  },
  { pattern: /^TO_CHAR: to_char\(dt\) fails on SeaTunnel only/, doc: 'TO_CHAR of a date or time without a format fails on SeaTunnel' },
  {
    pattern: /^REGEXP_SUBSTR: regexp_substr\(s, '\[a-z\]\+', (3|1, 2)\) on row \d: Tideway '[^']*', SeaTunnel null$/,
    doc: 'REGEXP_SUBSTR with 3 to 5 arguments is null on SeaTunnel',
  },
  {
    pattern: /^REPLACE: replace\(s, 'l', null\) on row \d: Tideway null, SeaTunnel '[^']*'$/,
    doc: 'REPLACE with a null replacement removes the search string on SeaTunnel (its docs: the result is null)',
  },
  {
    pattern: /^TRANSLATE: translate\(s, 'lo', 'L'\) on row \d: Tideway '[^']*', SeaTunnel '[^']*'$/,
    doc: 'TRANSLATE keeps the characters that have no replacement on SeaTunnel (Oracle, and its own comment, remove them)',
  },
  { pattern: /^ABS: abs\(i\) fails on Tideway only/, doc: 'ABS(-2147483648) is -2147483648 on SeaTunnel (its docs: an exception)' },
  {
    pattern: /^ABS: case when id in \(1, 2\) then abs\(ti\) end fails on SeaTunnel only/,
    doc: 'ABS of a tinyint or smallint fails on SeaTunnel (Unsupported arg type java.lang.Byte)',
  },
  { pattern: /^LOG: log\(1, 2\) fails on Tideway only/, doc: 'LOG with base 1 is Infinity on SeaTunnel (its docs: base cannot be 1)' },
  { pattern: /^CEIL: ceil\(l\) fails on Tideway only/, doc: 'CEIL/FLOOR past the int range wrap or saturate on SeaTunnel' },
  {
    pattern: /^unary minus: case when id in \(3\) then -d end fails on SeaTunnel only/,
    doc: 'Negating a NULL fails on SeaTunnel (Unsupported SQL Expression: -d)',
  },
  {
    pattern: /^DATE_TRUNC: date_trunc\(dt, 'MONTH'\) fails on SeaTunnel only/,
    doc: 'DATE_TRUNC of a date fails on SeaTunnel (ClassCastException)',
  },
  {
    pattern: /^DATEADD: dateadd\(t, 1, 'DAY'\) fails on Tideway only/,
    doc: 'DATEADD of DAY to a time gives the time unchanged on SeaTunnel (its docs: not allowed)',
  },
  {
    pattern: /^DATEADD: dateadd\(dt, 1, 'HOUR'\) fails on Tideway only/,
    doc: 'DATEADD of HOUR to a date gives the date unchanged on SeaTunnel (its docs: a timestamp)',
  },
  {
    pattern: /^EXTRACT: extract\(quarter from dt\) fails on SeaTunnel only/,
    doc: 'EXTRACT of QUARTER, WEEK, MICROSECOND, NANOSECOND, DOW, DOY fails on SeaTunnel (Unsupported dateTimeField)',
  },
  {
    pattern: /^FROM_UNIXTIME: from_unixtime\(1672502400, 'yyyy-MM-dd'\) fails on SeaTunnel only/,
    doc: 'FROM_UNIXTIME of an int (a literal below 2^31, an int column) fails on SeaTunnel (ClassCastException)',
  },
  {
    pattern: /^COALESCE: coalesce\(dt, '2000-01-01'\) fails on Tideway only/,
    doc: 'COALESCE of a date and a string: Tideway refuses the types when planning, SeaTunnel puts a string in a DATE column',
  },
  {
    pattern: /^CAST: cast\('2024-02-29' as date\) fails on SeaTunnel only/,
    doc: 'CAST of a string AS DATE, TIME or TIMESTAMP fails on SeaTunnel (Unsupported CAST AS type)',
  },
  {
    pattern: /^ROUND: round\(n(, 1)?\) on row \d: Tideway '[^']*', SeaTunnel '[^']*'$/,
    doc: "ROUND of a decimal: SeaTunnel's value has the digits' scale (1.5), its type the column's (decimal(10, 2))",
  },
  {
    pattern: /^ROUND: round\(f, 1\) on row \d: Tideway '[^']*', SeaTunnel '[^']*'$/,
    doc: "ROUND of a float: SeaTunnel's value is a double in a FLOAT column",
  },
  {
    pattern: /^TRUNC(ATE)?: trunc(ate)?\((i|n|n, 1)\) on row \d: Tideway '[^']*', SeaTunnel '[^']*'$/,
    doc: "TRUNC of an int or a decimal: SeaTunnel's value is an int or a decimal in a DOUBLE column",
  },
  {
    pattern: /^IS_DATE: is_date\((ds|null), '[^']*'\) on row \d: Tideway 'false', SeaTunnel 'true'$/,
    doc: 'IS_DATE of a NULL string is true on SeaTunnel',
  },
  {
    pattern: /^COALESCE: coalesce\((i, l|null, d, 0)\) (has type|on row 3)/,
    doc: "COALESCE's type is its first argument's on SeaTunnel (null for a NULL literal, int for coalesce(i, l)), whatever the value",
  },
  {
    pattern: /^CASE WHEN: case when id in \(1, 2, 3, 5, 6\) then case when b then d else n end end fails on SeaTunnel only/,
    doc: 'CASE WHEN with a boolean column as the condition fails on SeaTunnel (Unsupported SQL Expression: b)',
  },
  {
    pattern: /^MOD: mod\(l, 3\) on row [45]: Tideway '-?\d', SeaTunnel '-?\d'$/,
    doc: 'MOD of a bigint past 2^53 goes through a double on SeaTunnel (mod(9223372036854775807, 3) is 2; it is 1)',
  },
  { pattern: /^CAST: cast\(ti as byte\) fails on SeaTunnel only/, doc: 'CAST AS BYTE fails on SeaTunnel: its Sql parser refuses BYTE' },
  {
    pattern: /^ROUND: round\(l, -1\) fails on SeaTunnel only/,
    doc: 'ROUND of an int or bigint to negative digits fails on SeaTunnel (IllegalArgumentException)',
  },
  {
    pattern: /^LOG: case when id in \(1, 4, 6\) then log\(d\) end fails on SeaTunnel only/,
    doc: 'LOG with one argument fails on SeaTunnel (IndexOutOfBoundsException)',
  },
  {
    pattern: /^DATEADD: dateadd\(ts, 1, 'QUARTER'\) fails on SeaTunnel only/,
    doc: 'DATEADD of QUARTER fails on SeaTunnel (Unsupported dateTimeField)',
  },
  {
    pattern: /^FORMATDATETIME: formatdatetime\(ts, 'yyyy-MM-dd''T''HH:mm'\) fails on SeaTunnel only/,
    doc: "A '' in a Sql string literal stays two quotes on SeaTunnel (DateTimeFormatter: Unknown pattern letter: T)",
  },
];
