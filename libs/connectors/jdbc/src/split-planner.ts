import { textOf } from '@tideway/common';
import { externalError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';
import type { JdbcSplit, SplitRange } from './jdbc-split.js';
import { bareQuery } from './sql-text.js';
import type { SourceConfig } from './source-options.js';
import type { SourceTable } from './source-tables.js';

/** Floor (or ceiling) of a decimal text as a bigint. */
function toBigInt(text: string, ceil: boolean): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e[+-]?\d+)?$/i.exec(text.trim());
  if (!m || /e/i.test(text)) {
    const n = Number(text);
    return BigInt(ceil ? Math.ceil(n) : Math.floor(n));
  }
  const whole = BigInt(`${m[1]}${m[2]}`);
  const hasFraction = (m[3] ?? '').replace(/0+$/, '') !== '';
  if (!hasFraction) return whole;
  if (m[1] === '-') return ceil ? whole : whole - 1n;
  return ceil ? whole + 1n : whole;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * Splits tables into parts that readers can take in parallel. A table without a split key is
 * one split; a text partition_column gives `partition_num` hash buckets. With one: `partition_num` even ranges when set; for tables otherwise
 * SeaTunnel's dynamic chunking by `split.size` (even steps when (max - min + 1) / rows lies within
 * the even-distribution bounds, sampled boundaries when the key is skewed and the split count
 * would pass `split.sample-sharding.threshold`, boundaries found by querying otherwise); for
 * queries `partition_num` defaults to the parallelism.
 */
export async function planSplits(
  conn: JdbcConnection,
  tables: readonly SourceTable[],
  cfg: SourceConfig,
  parallelism: number,
): Promise<JdbcSplit[]> {
  const out: JdbcSplit[] = [];
  for (const table of tables) {
    try {
      out.push(...(await planTable(conn, table, cfg, parallelism)));
    } catch (err) {
      throw externalError(`splitting ${table.catalog.tableId}`, err, table.config.place);
    }
  }
  return out;
}

async function planTable(conn: JdbcConnection, table: SourceTable, cfg: SourceConfig, parallelism: number): Promise<JdbcSplit[]> {
  const tableId = table.catalog.tableId;
  const orderKey = table.resumeKey;
  const orderKeyIndex = orderKey !== undefined ? table.catalog.columns.findIndex((c) => c.name === orderKey) : undefined;
  const make = (i: number, range?: SplitRange): JdbcSplit => ({
    splitId: `${tableId}#${i}`,
    tableId,
    query: table.query,
    ...(range ? { range } : {}),
    ...(orderKey !== undefined ? { orderKey, orderKeyIndex } : {}),
    rowsRead: 0,
  });
  const key = table.splitKey;
  if (!key) return [make(0)];
  if (key.type.kind === 'string') {
    // Text keys have no ranges: SeaTunnel's fixed hash buckets, partition_num (or parallelism) of them.
    const modulus = table.config.partitionNum ?? parallelism;
    return Array.from({ length: modulus }, (_, i) => ({
      ...make(i),
      bucket: { column: key.name, modulus, remainder: i, includeNull: i === 0 && key.nullable },
    }));
  }
  const q = bareQuery(table.query);
  const k = conn.quote(key.name);
  const explicitBounds = key.explicit && (cfg.lowerBound !== undefined || cfg.upperBound !== undefined);
  let minText = key.explicit ? cfg.lowerBound : undefined;
  let maxText = key.explicit ? cfg.upperBound : undefined;
  if (minText === undefined || maxText === undefined) {
    const r = (await conn.execute(`SELECT MIN(${k}), MAX(${k}) FROM (${q}) tw_bounds`)).rows[0] ?? [null, null];
    minText ??= r[0] === null ? undefined : textOf(r[0]);
    maxText ??= r[1] === null ? undefined : textOf(r[1]);
  }
  if (minText === undefined || maxText === undefined) return [make(0)];
  const lo = toBigInt(minText, false);
  const hi = toBigInt(maxText, true);
  if (hi < lo) return [make(0, { column: key.name, lower: minText, upper: maxText, upperInclusive: true, includeNull: false })];
  const integerKey = key.type.kind !== 'decimal' && key.type.kind !== 'float' && key.type.kind !== 'double';

  let boundaries: bigint[];
  const partitionNum = table.config.partitionNum ?? (table.config.tablePath === undefined ? parallelism : undefined);
  if (partitionNum !== undefined) {
    boundaries = evenBoundaries(lo, hi, ceilDiv(hi - lo + 1n, BigInt(partitionNum)));
  } else {
    const count =
      (await estimatedRows(conn, table, cfg)) ??
      BigInt(textOf((await conn.execute(`SELECT COUNT(*) FROM (${q}) tw_count`)).rows[0]?.[0] ?? '0'));
    const splitSize = BigInt(table.config.splitSize);
    if (count <= splitSize) return [make(0)];
    const factor = Number(hi - lo + 1n) / Number(count);
    const estimated = Number(ceilDiv(count, splitSize));
    if (factor >= cfg.evenLower && factor <= cfg.evenUpper) {
      const step = BigInt(Math.max(1, Math.ceil(Number(splitSize) * factor)));
      boundaries = evenBoundaries(lo, hi, step);
    } else if (!integerKey) {
      boundaries = evenBoundaries(lo, hi, ceilDiv(hi - lo + 1n, BigInt(estimated)));
    } else if (estimated > cfg.sampleThreshold) {
      boundaries = await sampledBoundaries(conn, q, k, lo, table.config.splitSize, cfg.samplingRate);
    } else {
      boundaries = await queriedBoundaries(conn, q, k, lo, hi, table.config.splitSize);
    }
  }
  return boundaries.map((b, i) => {
    const last = i === boundaries.length - 1;
    const first = i === 0;
    return make(i, {
      column: key.name,
      lower: first && !explicitBounds ? undefined : b.toString(),
      upper: last ? (explicitBounds ? maxText : undefined) : boundaries[i + 1].toString(),
      upperInclusive: last,
      includeNull: first && !explicitBounds && key.nullable,
    });
  });
}

/**
 * SeaTunnel's approximate row count for dynamic chunking: where the rows read are a whole table
 * (table_path, with no query or one without WHERE), the database's own estimate (PostgreSQL's
 * reltuples, as SeaTunnel's PostgreSQL dialect reads it), which costs no scan. It shapes only the
 * split boundaries: the first and last splits are open-ended, so a stale estimate makes splits of
 * uneven size, never misses a row. A where_condition, a query with WHERE, or a table without an
 * estimate is counted with COUNT(*).
 */
async function estimatedRows(conn: JdbcConnection, table: SourceTable, cfg: SourceConfig): Promise<bigint | undefined> {
  if (!table.ref || !conn.estimatedRowCount || cfg.whereCondition !== undefined) return undefined;
  if (table.config.query !== undefined && /\bwhere\b/i.test(table.config.query)) return undefined;
  return conn.estimatedRowCount(table.ref);
}

/** Range starts lo, lo+step, … up to hi. */
function evenBoundaries(lo: bigint, hi: bigint, step: bigint): bigint[] {
  const s = step < 1n ? 1n : step;
  const out: bigint[] = [];
  for (let b = lo; b <= hi; b += s) out.push(b);
  return out;
}

/** Range starts found by asking where each chunk of `size` rows ends (one indexed query per chunk). */
async function queriedBoundaries(conn: JdbcConnection, q: string, k: string, lo: bigint, hi: bigint, size: number): Promise<bigint[]> {
  const out: bigint[] = [lo];
  let start = lo;
  const limit = conn.dialect === 'firebird' ? `FETCH FIRST ${size} ROWS ONLY` : `LIMIT ${size}`;
  const sql = `SELECT MAX(${k}) FROM (SELECT ${k} FROM (${q}) tw_chunk WHERE ${k} >= ${conn.placeholder(0)} ORDER BY ${k} ${limit}) tw_end`;
  for (;;) {
    const end = (await conn.execute(sql, [start.toString()])).rows[0]?.[0];
    if (end === null || end === undefined) break;
    const next = toBigInt(textOf(end), false) + 1n;
    if (next > hi) break;
    out.push(next);
    start = next;
  }
  return out;
}

/** Range starts from a sample of one key in `rate`, every (size / rate) samples. */
async function sampledBoundaries(conn: JdbcConnection, q: string, k: string, lo: bigint, size: number, rate: number): Promise<bigint[]> {
  const sample = await conn.execute(
    `SELECT ${k} FROM (SELECT ${k}, ROW_NUMBER() OVER (ORDER BY ${k}) AS tw_rn FROM (${q}) tw_all WHERE ${k} IS NOT NULL) tw_sample WHERE MOD(tw_rn, ${rate}) = 0 ORDER BY ${k}`,
  );
  const every = Math.max(1, Math.ceil(size / rate));
  const out: bigint[] = [lo];
  for (let i = every - 1; i < sample.rows.length; i += every) {
    const b = toBigInt(String(sample.rows[i][0]), false) + 1n;
    if (b > out[out.length - 1]) out.push(b);
  }
  return out;
}
