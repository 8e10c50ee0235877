import { logger, textOf } from '@tideway/common';
import { clientEqual, compareMode, isClientMode, type CompareMode } from './canonical.js';
import { readColumns, type ColumnInfo } from './column-info.js';
import { SideSql, slicesOf, type Bucketing, type TableSide } from './table-sql.js';

/** A source table and its sink table, with the column pairs (source name -> sink name) and key. */
export interface TablePair {
  readonly tableId: string;
  readonly source: Omit<TableSide, 'columns'>;
  readonly sink: Omit<TableSide, 'columns'>;
  /** [source column, sink column] in the input table's field order. */
  readonly columns: readonly (readonly [string, string])[];
  /** Source column names of the key. */
  readonly keyColumns: readonly string[];
  /**
   * More sessions of each side (same servers, set up alike): with them the checksums of an
   * integer-keyed table run as that many concurrent queries per side over slices of its ranges
   * (MySQL runs a query on one core; PostgreSQL's parallel workers serve each query as well).
   */
  readonly moreSource?: readonly TableSide['conn'][];
  readonly moreSink?: readonly TableSide['conn'][];
}

/** A row that differs: its key (column=value, ...) and, for rows on both sides, the differing columns. */
export interface KeyDifference {
  readonly key: string;
  readonly columns?: readonly string[];
}

/** What comparing one table found. */
export interface TableResult {
  readonly tableId: string;
  readonly sourceTable: string;
  readonly sinkTable: string;
  readonly sourceRows: number;
  readonly sinkRows: number;
  /** Key ranges checksummed on each side, and how many of them differed. */
  readonly ranges: number;
  readonly differingRanges: number;
  readonly missing: number;
  readonly extra: number;
  readonly different: number;
  /** The first keys of each kind (up to the report limit). */
  readonly keys: {
    readonly missing: readonly KeyDifference[];
    readonly extra: readonly KeyDifference[];
    readonly different: readonly KeyDifference[];
  };
  /** Columns whose types differ beyond dialect spelling (values may still compare equal), e.g. `price: decimal(12,2) -> numeric(12,1)`. */
  readonly typeChanges: readonly string[];
  /** Why the table could not be compared, or a structural difference (missing table, missing column). */
  readonly problem?: string;
  readonly equal: boolean;
}

const log = logger('verify');

/** Rows per checksummed range, about; and the most ranges a table is cut into. */
const ROWS_PER_RANGE = 1000;
const MAX_RANGES = 20_000;
/** Ranges whose rows are fetched per query (both sides' rows of them are held at once: ~25,000 rows each). */
const RANGES_PER_FETCH = 25;
const BIG_LIMIT = 1n << 62n;

/**
 * Compares one table: row counts, then checksums over key ranges computed in each database,
 * then the rows of the ranges that differ, key by key. `maxKeys` bounds the keys listed.
 */
export async function compareTable(pair: TablePair, maxKeys: number): Promise<TableResult> {
  const srcName = pair.source.conn.tableSql(pair.source.ref);
  const sinkName = pair.sink.conn.tableSql(pair.sink.ref);
  const base = { tableId: pair.tableId, sourceTable: srcName, sinkTable: sinkName };
  const empty = {
    ranges: 0,
    differingRanges: 0,
    missing: 0,
    extra: 0,
    different: 0,
    keys: { missing: [], extra: [], different: [] },
    typeChanges: [],
  };
  const t0 = performance.now();
  const [srcCols, sinkCols] = await Promise.all([
    readColumns(pair.source.conn, pair.source.ref),
    readColumns(pair.sink.conn, pair.sink.ref),
  ]);
  const fail = (problem: string): TableResult => ({
    ...base,
    ...empty,
    sourceRows: 0,
    sinkRows: 0,
    problem,
    equal: false,
  });
  if (sinkCols.length === 0) return fail(`the sink table ${sinkName} does not exist`);
  const a: ColumnInfo[] = [];
  const b: ColumnInfo[] = [];
  const missingCols: string[] = [];
  const typeChanges: string[] = [];
  for (const [s, t] of pair.columns) {
    const x = srcCols.find((c) => c.name === s);
    const y = sinkCols.find((c) => c.name === t);
    if (!x) return fail(`the source table ${srcName} has no column ${s} any more`);
    if (!y) {
      missingCols.push(t);
      continue;
    }
    a.push(x);
    b.push(y);
    if (x.shape !== y.shape) typeChanges.push(`${s}: ${x.label} -> ${y.label}`);
  }
  if (missingCols.length > 0) return fail(`the sink table ${sinkName} has no column ${missingCols.join(', ')}`);
  const keyIndexes = pair.keyColumns.map((k) => a.findIndex((c) => c.name === k));
  if (keyIndexes.length === 0 || keyIndexes.some((i) => i < 0))
    return fail(`${srcName} has no primary key (and the sink names none): rows cannot be matched by key`);
  const modes = a.map((x, i) => compareMode(x, b[i], pair.source.facts, pair.sink.facts));
  const pgPair = pair.source.facts.dialect === 'postgresql' && pair.sink.facts.dialect === 'postgresql';
  const bytes = pair.source.facts.utf8 === true && pair.sink.facts.utf8 === true;
  const src = new SideSql({ ...pair.source, columns: a }, modes, keyIndexes, pgPair, bytes);
  const dst = new SideSql({ ...pair.sink, columns: b }, modes, keyIndexes, pgPair, bytes);

  const integerKey = keyIndexes.length === 1 && a[keyIndexes[0]].cls === 'integer' && b[keyIndexes[0]].cls === 'integer';
  // An integer key is cut by its bounds (both sides' min and max); any other by key hashes, as many
  // ranges as the larger side's rows need. The row counts come with the range checksums.
  let bucketing: Bucketing | undefined;
  if (integerKey) {
    const [sb, tb] = await Promise.all([pair.source.conn.execute(src.boundsSql()), pair.sink.conn.execute(dst.boundsSql())]);
    bucketing = rangeBucketing([...sb.rows[0], ...tb.rows[0]]);
  }
  if (bucketing === undefined) {
    const [sn, tn] = await Promise.all([pair.source.conn.execute(src.countSql()), pair.sink.conn.execute(dst.countSql())]);
    bucketing = { kind: 'hash', n: rangesFor(Math.max(Number(sn.rows[0][0]), Number(tn.rows[0][0]))) };
  }
  log.debug(
    { table: pair.tableId, ms: Math.round(performance.now() - t0), bucketing: bucketing.kind, ranges: bucketing.n },
    'columns and key bounds read',
  );

  const timed = async (side: 'source' | 'sink', conn: TablePair['source']['conn'], sql: string) => {
    const started = performance.now();
    const res = await conn.execute(sql);
    log.debug({ table: pair.tableId, side, ms: Math.round(performance.now() - started), sql }, 'range checksums');
    return res;
  };
  // Slices of the ranges, each one query on its own session; a hash bucketing has no key bounds to cut by.
  const checksums = async (side: 'source' | 'sink', sql: SideSql, conns: readonly TableSide['conn'][]) => {
    if (bucketing.kind !== 'range') return (await timed(side, conns[0], sql.checksumSql(bucketing))).rows;
    const parts = await Promise.all(
      slicesOf(bucketing.n, conns.length).map((slice, i) => timed(side, conns[i], sql.checksumSql(bucketing, slice))),
    );
    return parts.flatMap((p) => p.rows);
  };
  const [sc, tc] = await Promise.all([
    checksums('source', src, [pair.source.conn, ...(pair.moreSource ?? [])]),
    checksums('sink', dst, [pair.sink.conn, ...(pair.moreSink ?? [])]),
  ]);
  const sums = (rows: unknown[][]) => {
    // Each range's count and hash sum, exactly (bigint); the row count is the sum of the ranges' counts.
    const m = new Map<number, { n: bigint; h: bigint }>();
    let total = 0n;
    for (const r of rows) {
      const k = Number(r[0]);
      const e = m.get(k) ?? { n: 0n, h: 0n };
      const n = BigInt(textOf(r[1]));
      e.n += n;
      e.h += BigInt(textOf(r[2] ?? '0'));
      total += n;
      m.set(k, e);
    }
    return { rows: Number(total), ranges: new Map([...m].map(([k, e]) => [k, `${e.n}/${e.h}`])) };
  };
  const { rows: sourceRows, ranges: sm } = sums(sc);
  const { rows: sinkRows, ranges: tm } = sums(tc);
  const all = new Set([...sm.keys(), ...tm.keys()]);
  const differing = [...all].filter((k) => sm.get(k) !== tm.get(k));

  const result = {
    missing: 0,
    extra: 0,
    different: 0,
    keys: { missing: [] as KeyDifference[], extra: [] as KeyDifference[], different: [] as KeyDifference[] },
  };
  const keyNames = keyIndexes.map((i) => a[i].name);
  for (let i = 0; i < differing.length; i += RANGES_PER_FETCH) {
    const part = differing.slice(i, i + RANGES_PER_FETCH);
    const [sr, tr] = await Promise.all([
      pair.source.conn.execute(src.rowsSql(bucketing, part)),
      pair.sink.conn.execute(dst.rowsSql(bucketing, part)),
    ]);
    diffRows(sr.rows, tr.rows, a, modes, keyIndexes, keyNames, maxKeys, result);
  }
  const equal = result.missing === 0 && result.extra === 0 && result.different === 0 && sourceRows === sinkRows;
  return { ...base, sourceRows, sinkRows, ranges: all.size, differingRanges: differing.length, ...result, typeChanges, equal };
}

/** About ROWS_PER_RANGE rows per range, at most MAX_RANGES ranges. */
function rangesFor(rows: number): number {
  return Math.min(MAX_RANGES, Math.max(1, Math.ceil(rows / ROWS_PER_RANGE)));
}

/**
 * Integer key ranges over both sides' bounds, one per ROWS_PER_RANGE keys of the span (a dense
 * key's ~1,000 rows; fewer when keys are sparse); undefined when a bound is too large to cut.
 */
function rangeBucketing(bounds: readonly unknown[]): Bucketing | undefined {
  const keys = bounds.filter((v) => v !== null && v !== undefined).map((v) => BigInt(textOf(v)));
  if (keys.length === 0) return { kind: 'range', lo: 0n, width: 1n, n: 1 };
  const lo = keys.reduce((x, y) => (x < y ? x : y));
  const hi = keys.reduce((x, y) => (x > y ? x : y));
  if (lo <= -BIG_LIMIT || hi >= BIG_LIMIT) return undefined;
  const span = hi - lo + 1n;
  const n = rangesFor(Number(span));
  const width = (span + BigInt(n) - 1n) / BigInt(n);
  return { kind: 'range', lo, width: width > 0n ? width : 1n, n };
}

/** Matches the fetched rows of both sides by key text and records what differs. */
function diffRows(
  source: unknown[][],
  sink: unknown[][],
  cols: readonly ColumnInfo[],
  modes: readonly CompareMode[],
  keyIndexes: readonly number[],
  keyNames: readonly string[],
  maxKeys: number,
  out: {
    missing: number;
    extra: number;
    different: number;
    keys: { missing: KeyDifference[]; extra: KeyDifference[]; different: KeyDifference[] };
  },
): void {
  const text = (v: unknown) => (v === null || v === undefined ? null : textOf(v));
  const keyOf = (r: unknown[]) => keyNames.map((k, j) => `${k}=${text(r[1 + keyIndexes[j]])}`).join(', ');
  const sinkByKey = new Map<string, unknown[]>();
  for (const r of sink) sinkByKey.set(String(r[0]), r);
  for (const r of source) {
    const k = String(r[0]);
    const other = sinkByKey.get(k);
    if (!other) {
      if (out.keys.missing.length < maxKeys) out.keys.missing.push({ key: keyOf(r) });
      out.missing++;
      continue;
    }
    sinkByKey.delete(k);
    const changed: string[] = [];
    for (let i = 0; i < cols.length; i++) {
      const x = text(r[1 + i]);
      const y = text(other[1 + i]);
      if (isClientMode(modes[i]) ? !clientEqual(modes[i], x, y) : x !== y) changed.push(cols[i].name);
    }
    if (changed.length > 0) {
      if (out.keys.different.length < maxKeys) out.keys.different.push({ key: keyOf(r), columns: changed });
      out.different++;
    }
  }
  for (const r of sinkByKey.values()) {
    if (out.keys.extra.length < maxKeys) out.keys.extra.push({ key: keyOf(r) });
    out.extra++;
  }
}
