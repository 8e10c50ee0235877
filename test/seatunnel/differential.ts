import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeaTunnelCluster, SeaTunnelRun } from '@tideway/testing';
import { parseDataType, type DataType } from '@tideway/api';
import { runCli } from '../conformance/cli-process.js';

/**
 * Differential runs: one SeaTunnel job config on Tideway and on SeaTunnel itself, with the same
 * input, their Console lines compared. Assert sinks become Console sinks on both engines (the
 * rows are compared, which Assert would only check; SeaTunnel's Assert connector is not
 * published for the oracle's release, decision 0045).
 */

/** One Console row: the table, the row kind and the printed fields. */
export interface ConsoleRow {
  readonly table: string;
  readonly kind: string;
  readonly fields: string;
}

const LINE = /^subtaskIndex=\d+ {2}rowIndex=\d+: {2}SeaTunnelRow#tableId=(\S*) SeaTunnelRow#kind=(\S+) : (.*)$/;

/** The Console lines of a Tideway or SeaTunnel run, parsed (other lines are ignored). */
export function consoleRows(lines: readonly string[]): ConsoleRow[] {
  const rows: ConsoleRow[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (m) rows.push({ table: m[1], kind: m[2], fields: m[3] });
  }
  return rows;
}

/** Where a value's bracket nesting allows a top-level field separator `, `. */
export function splitFields(fields: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < fields.length; i++) {
    const c = fields[i];
    if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && fields[i + 1] === ' ' && depth === 0) {
      out.push(fields.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  out.push(fields.slice(start));
  return out;
}

/**
 * The kind of a printed value, for comparing random rows on types: the same column must print
 * as the same kind on both engines.
 */
export function valueShape(value: string): string {
  if (value === 'null') return 'null';
  if (value === 'true' || value === 'false') return 'boolean';
  if (/^-?\d+$/.test(value)) return 'integer';
  if (/^-?\d+\.\d+(E-?\d+)?$/.test(value)) return 'decimal';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'date';
  if (/^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return 'time';
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return 'timestamp';
  if (value.startsWith('[')) return 'array';
  if (value.startsWith('{')) return 'map';
  if (value.startsWith('SeaTunnelRow{')) return 'row';
  if (value === '') return 'empty';
  return 'string';
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/**
 * A row as compared on values: random UUIDs (Sql's UUID()) and the `mask`ed columns (1-based:
 * values a config makes at random, e.g. Sql's RAND()) replaced by a mark.
 */
function valueKey(row: ConsoleRow, mask: readonly number[]): string {
  let fields = row.fields.replace(UUID, '<uuid>');
  if (mask.length > 0)
    fields = splitFields(fields)
      .map((v, i) => (mask.includes(i + 1) ? '<random>' : v))
      .join(', ');
  return `${row.table} ${row.kind} : ${fields}`;
}

/** Per table: the row count and each column's set of value kinds. */
function shapes(rows: readonly ConsoleRow[]): Map<string, { count: number; columns: Set<string>[] }> {
  const byTable = new Map<string, { count: number; columns: Set<string>[] }>();
  for (const row of rows) {
    let t = byTable.get(row.table);
    if (!t) byTable.set(row.table, (t = { count: 0, columns: [] }));
    t.count++;
    splitFields(row.fields).forEach((v, i) => {
      (t.columns[i] ??= new Set()).add(valueShape(v));
    });
  }
  return byTable;
}

/** What differs between the two engines' rows, as sentences; empty when they agree. */
export function compareRows(
  tideway: readonly ConsoleRow[],
  seatunnel: readonly ConsoleRow[],
  by: 'values' | 'shapes',
  opts: { mask?: readonly number[]; counts?: boolean } = {},
): string[] {
  const diffs: string[] = [];
  if (by === 'values') {
    const a = tideway.map((r) => valueKey(r, opts.mask ?? [])).sort();
    const b = seatunnel.map((r) => valueKey(r, opts.mask ?? [])).sort();
    const onlyA = multisetMinus(a, b);
    const onlyB = multisetMinus(b, a);
    for (const r of onlyA.slice(0, 10)) diffs.push(`only Tideway printed: ${r}`);
    for (const r of onlyB.slice(0, 10)) diffs.push(`only SeaTunnel printed: ${r}`);
    return diffs;
  }
  const a = shapes(tideway);
  const b = shapes(seatunnel);
  for (const table of new Set([...a.keys(), ...b.keys()])) {
    const ta = a.get(table);
    const tb = b.get(table);
    if (!ta || !tb) {
      diffs.push(`table ${table}: ${ta ? 'only Tideway' : 'only SeaTunnel'} printed rows`);
      continue;
    }
    if (opts.counts !== false && ta.count !== tb.count)
      diffs.push(`table ${table}: Tideway printed ${ta.count} rows, SeaTunnel ${tb.count}`);
    if (ta.columns.length !== tb.columns.length)
      diffs.push(`table ${table}: Tideway printed ${ta.columns.length} columns, SeaTunnel ${tb.columns.length}`);
    for (let i = 0; i < Math.min(ta.columns.length, tb.columns.length); i++) {
      const sa = [...ta.columns[i]].filter((s) => s !== 'null').sort();
      const sb = [...tb.columns[i]].filter((s) => s !== 'null').sort();
      if (sa.join() !== sb.join()) diffs.push(`table ${table} column ${i + 1}: Tideway printed ${sa.join('/')}, SeaTunnel ${sb.join('/')}`);
    }
  }
  return diffs;
}

function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

/**
 * The end of the balanced `{...}` or `[...]` starting at `open` in HOCON text (quoted strings
 * and `#` / `//` comments skipped), or -1.
 */
function blockEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The config with every Assert sink made a Console sink: its `rules` dropped, its table kept. */
export function assertToConsole(text: string): string {
  let out = text;
  for (;;) {
    const m = /\bAssert\s*\{/.exec(out);
    if (!m) return out;
    const open = m.index + m[0].length - 1;
    const end = blockEnd(out, open);
    if (end < 0) return out;
    let body = out.slice(open + 1, end);
    for (;;) {
      const r = /\brules\s*=?\s*[{[]/.exec(body);
      if (!r) break;
      const rEnd = blockEnd(body, r.index + r[0].length - 1);
      if (rEnd < 0) break;
      body = body.slice(0, r.index) + body.slice(rEnd + 1);
    }
    out = `${out.slice(0, m.index)}Console {${body}}${out.slice(end + 1)}`;
  }
}

/** Whether every FakeSource of a config lists its rows (compared on values) or some make random rows. */
export function hasExplicitRows(text: string): boolean {
  const sources = [...text.matchAll(/\bFakeSource\s*\{/g)];
  return (
    sources.length > 0 &&
    sources.every((m) => {
      const end = blockEnd(text, m.index + m[0].length - 1);
      return /\brows\s*=\s*\[/.test(text.slice(m.index, end));
    })
  );
}

/** Both engines' runs of one config. */
export interface Differential {
  readonly tideway: { code: number | null; rows: ConsoleRow[]; output: string };
  readonly seatunnel: { code: number | null; rows: ConsoleRow[]; run: SeaTunnelRun };
  readonly by: 'values' | 'shapes';
  readonly diffs: string[];
  /** Rows each engine's job statistics say it wrote (both exited 0), else undefined. */
  readonly written?: { tideway?: number; seatunnel?: number };
  /** Why SeaTunnel's release cannot run the config at all (a plugin or Sql function it lacks), when so. */
  readonly seatunnelLacks?: string;
}

/** The job statistics both engines print at the end: rows read and written. */
function statistics(output: string): { read?: number; written?: number } {
  const read = /Total Read Count\s*:\s*(\d+)/.exec(output)?.[1];
  const written = /Total Write Count\s*:\s*(\d+)/.exec(output)?.[1];
  return { read: read === undefined ? undefined : Number(read), written: written === undefined ? undefined : Number(written) };
}

/** What SeaTunnel's release lacks, from its error: a plugin or a Sql function. */
function seatunnelLacks(output: string): string | undefined {
  const factory = /Could not find any factory for identifier '([^']+)'/.exec(output)?.[1];
  if (factory !== undefined) return `the plugin ${factory}`;
  const fn = /Unsupported function: (\w+)/.exec(output)?.[1];
  if (fn !== undefined) return `the Sql function ${fn}()`;
  return undefined;
}

export interface RunBothOptions {
  readonly variables?: Readonly<Record<string, string>>;
  /** Columns (1-based) the config fills at random (compared on values), e.g. Sql's RAND(). */
  readonly mask?: readonly number[];
}

/** Runs `configPath` (Assert sinks as Console) on both engines and compares what they printed. */
export async function runBoth(
  cluster: SeaTunnelCluster,
  configPath: string,
  work: string,
  opts: RunBothOptions = {},
): Promise<Differential> {
  const variables = opts.variables ?? {};
  const text = assertToConsole(readFileSync(configPath, 'utf8'));
  const path = join(work, configPath.split('/').pop()!);
  writeFileSync(path, text);
  const vars = Object.entries(variables).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  const [tw, st] = await Promise.all([runCli(['run', '-c', path, ...vars], 180_000, { TZ: 'UTC' }), cluster.run(path, { variables })]);
  const tRows = consoleRows(tw.stdout.split('\n'));
  const sRows = consoleRows(st.consoleLines);
  const by = hasExplicitRows(text) ? 'values' : 'shapes';
  const diffs: string[] = [];
  if ((tw.code === 0) !== (st.exitCode === 0)) diffs.push(`Tideway exited ${tw.code}, SeaTunnel ${st.exitCode}`);
  // Random rows through a WHERE keep a random number of rows: then the rows read are compared,
  // and the kinds of the rows kept.
  const randomlyFiltered = by === 'shapes' && /\bwhere\b/i.test(text);
  // A job that fails on both (a value that cannot be cast) stops wherever its engine's batches
  // were: only that both failed is compared.
  let written: Differential['written'];
  if (tw.code === 0 && st.exitCode === 0) {
    const [ts, ss] = [statistics(tw.stdout), statistics(st.output)];
    written = { tideway: ts.written, seatunnel: ss.written };
    if (ts.read !== ss.read) diffs.push(`Tideway read ${ts.read} rows, SeaTunnel ${ss.read}`);
    if (!randomlyFiltered && ts.written !== ss.written) diffs.push(`Tideway wrote ${ts.written} rows, SeaTunnel ${ss.written}`);
    diffs.push(...compareRows(tRows, sRows, by, { mask: opts.mask, counts: !randomlyFiltered }));
  }
  const lacks = st.exitCode !== 0 && tw.code === 0 ? seatunnelLacks(st.output) : undefined;
  return {
    tideway: { code: tw.code, rows: tRows, output: tw.stdout + tw.stderr },
    seatunnel: { code: st.exitCode, rows: sRows, run: st },
    by,
    diffs,
    written,
    ...(lacks !== undefined ? { seatunnelLacks: lacks } : {}),
  };
}

/** Runs at most `n` of the calls given at once; the others wait their turn, in order. */
export function atMost(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await f();
    } finally {
      // The slot goes straight to the next waiting call, or is freed.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * A value of `type` for row `r` of an explicit-rows copy: fixed, varied per row, with edge values
 * both engines' FakeSource must read alike (unicode, the empty string, negative numbers, a leap
 * day, the epoch, fractions of seconds). `column` varies values between columns of one type.
 */
export function fixedValue(type: DataType, r: number, column: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[(r + column) % xs.length];
  switch (type.kind) {
    case 'null':
      return null;
    case 'string':
      return pick(['alpha', 'Ünï 中文', '', 'x y']);
    case 'boolean':
      return (r + column) % 2 === 0;
    case 'tinyint':
      return pick([1, -128, 127, 0]);
    case 'smallint':
      return pick([2, -32768, 32767, 0]);
    case 'int':
      return pick([3, -2147483648, 2147483647, 0]);
    case 'bigint':
      return pick([4n, -9007199254740993n, 9223372036854775807n, 0n]);
    case 'float':
      return pick([1.5, -0.25, 1e10, 0]);
    case 'double':
      return pick([2.5, -1e-7, 1.0e100, 0.1]);
    case 'decimal': {
      const whole = Math.min(type.precision - type.scale, 3);
      const int = whole <= 0 ? '0' : String(123).slice(0, whole);
      const text = type.scale > 0 ? `${int}.${'5'.padEnd(type.scale, '0')}` : int;
      return pick([text, `-${text}`, '0']);
    }
    case 'bytes':
      return pick(['AQID', '', '/w==']);
    case 'date':
      return pick(['2024-02-29', '1970-01-01', '1999-12-31']);
    case 'time':
      return pick(['12:34:56', '00:00:00', '23:59:59']);
    case 'timestamp':
    case 'timestamp_tz':
      // one shape for every row: SeaTunnel 2.3.8 parses a column's timestamps with the format of
      // its first (docs/seatunnel-differences.md)
      return pick(['2024-02-29T12:34:56', '1970-01-01T00:00:00', '1999-12-31T23:59:59']);
    case 'array':
      return [fixedValue(type.element, r, column), fixedValue(type.element, r + 1, column)];
    case 'map': {
      // a key never empty: HOCON's path "" is refused
      const key = type.key.kind === 'string' ? `k${r}` : fixedValue(type.key, r, column);
      return { [String(key)]: fixedValue(type.value, r, column) };
    }
    case 'row':
      return Object.fromEntries(type.fields.map((f, i) => [f.name, fixedValue(f.type, r, column + i)]));
  }
}

/** A value as HOCON (JSON with bigints unquoted). */
function hocon(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(hocon).join(', ')}]`;
  if (typeof v === 'object' && v !== null)
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)} = ${hocon(x)}`)
      .join(', ')}}`;
  // HOCON takes 1E100, not JavaScript's 1e+100
  if (typeof v === 'number') return String(v).replace('e+', 'E').replace('e-', 'E-');
  return JSON.stringify(v);
}

/** Rows of an explicit-rows copy: `count` rows of fixed values for the columns. */
export function fixedRows(columns: readonly { type: DataType }[], count: number): string {
  const rows: string[] = [];
  for (let r = 0; r < count; r++)
    rows.push(`{ kind = INSERT, fields = [${columns.map((c, i) => hocon(fixedValue(c.type, r, i))).join(', ')}] }`);
  return `rows = [\n${rows.join('\n')}\n]\n`;
}

/**
 * The copy of a config whose FakeSources make random rows with explicit `rows` of fixed values
 * instead (FakeSource has no seed: the copy compares values), given each FakeSource table's
 * columns in the config's order (from Tideway's plan). A FakeSource with `tables_configs` gets
 * rows in each table's block. Undefined when the config has no FakeSource or every table lists
 * its rows already.
 */
export function withExplicitRows(text: string, tables: readonly (readonly { type: DataType }[])[], count = 3): string | undefined {
  const inserts: { at: number; text: string }[] = [];
  let table = 0;
  for (const m of text.matchAll(/\bFakeSource\s*\{/g)) {
    const open = m.index + m[0].length - 1;
    const end = blockEnd(text, open);
    const body = text.slice(open, end);
    const multi = /\btables_configs\s*=?\s*\[/.exec(body);
    if (multi) {
      const listOpen = open + multi.index + multi[0].length - 1;
      const listEnd = blockEnd(text, listOpen);
      for (let i = listOpen + 1; i < listEnd; i++) {
        if (text[i] !== '{') continue;
        const tEnd = blockEnd(text, i);
        if (!/\brows\s*=\s*\[/.test(text.slice(i, tEnd)) && tables[table])
          inserts.push({ at: i + 1, text: fixedRows(tables[table], count) });
        table++;
        i = tEnd;
      }
    } else {
      if (!/\brows\s*=\s*\[/.test(body) && tables[table]) inserts.push({ at: open + 1, text: fixedRows(tables[table], count) });
      table++;
    }
  }
  if (inserts.length === 0) return undefined;
  let out = text;
  for (const ins of inserts.reverse()) out = `${out.slice(0, ins.at)}\n${ins.text}${out.slice(ins.at)}`;
  return out;
}

/**
 * Writes the explicit-rows copy of a config with random FakeSource rows (withExplicitRows) into
 * `work`, its tables' columns taken from Tideway's plan; the copy's path, or undefined when the
 * config has none to copy.
 */
export async function explicitRowsCopy(
  configPath: string,
  work: string,
  variables: Readonly<Record<string, string>> = {},
): Promise<string | undefined> {
  const text = readFileSync(configPath, 'utf8');
  if (hasExplicitRows(text) || !/\bFakeSource\s*\{/.test(text)) return undefined;
  const vars = Object.entries(variables).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  const plan = await runCli(['plan', '-c', configPath, '--json', ...vars], 120_000);
  if (plan.code !== 0) throw new Error(`tideway plan of ${configPath} failed: ${plan.stderr}`);
  const json = JSON.parse(plan.stdout) as {
    logical: { vertices: { id: number; plugin: { name: string } }[] };
    schemas: Record<string, { columns: { type: string }[] }[]>;
  };
  const tables = json.logical.vertices
    .filter((v) => v.plugin.name.toLowerCase() === 'fakesource')
    .sort((a, b) => a.id - b.id)
    .flatMap((v) => (json.schemas[String(v.id)] ?? []).map((t) => t.columns.map((c) => ({ type: parseDataType(c.type) }))));
  const copy = withExplicitRows(text, tables);
  if (copy === undefined) return undefined;
  const path = join(work, `rows-${configPath.split('/').pop()!}`);
  writeFileSync(path, copy);
  return path;
}
