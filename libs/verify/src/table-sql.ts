import type { JdbcConnection, TableRef } from '@tideway/connector-jdbc';
import {
  canonicalSql,
  columnTextSql,
  hashBucketSql,
  hashSql,
  isSafeText,
  pgPairHashSql,
  rowTextSql,
  type CompareMode,
  type RowTextPart,
  type SideFacts,
} from './canonical.js';
import type { ColumnInfo } from './column-info.js';

/** One side of a compared table: its session, table, and the columns paired with the other side's. */
export interface TableSide {
  readonly conn: JdbcConnection;
  readonly ref: TableRef;
  readonly facts: SideFacts;
  /** This side's column of each compared pair, in pair order. */
  readonly columns: readonly ColumnInfo[];
}

/** How rows are cut into ranges: integer key ranges [lo + b*width, lo + (b+1)*width), or key hashes mod n. */
export type Bucketing =
  | { readonly kind: 'range'; readonly lo: bigint; readonly width: bigint; readonly n: number }
  | { readonly kind: 'hash'; readonly n: number };

/**
 * The ranges [from, to) of a range bucketing one checksum query covers; the first slice has no
 * lower key bound and the last no upper one, so keys beyond the bounds read at the start (rows
 * written since) still land in a range of both sides.
 */
export interface Slice {
  readonly from: number;
  readonly to: number;
}

/** Cuts ranges [0, n) into at most `k` slices of about equal size. */
export function slicesOf(n: number, k: number): Slice[] {
  const count = Math.max(1, Math.min(k, n));
  const out: Slice[] = [];
  for (let i = 0; i < count; i++) out.push({ from: Math.floor((i * n) / count), to: Math.floor(((i + 1) * n) / count) });
  return out;
}

/** The SQL one side runs: per-range checksums and the rows of chosen ranges. */
export class SideSql {
  private readonly from: string;
  private readonly texts: string[];
  private readonly raws: string[];
  private readonly keyText: string;
  private readonly parts: RowTextPart[];

  constructor(
    private readonly side: TableSide,
    private readonly modes: readonly CompareMode[],
    /** Indexes (into the pairs) of the key columns. */
    private readonly keyIndexes: readonly number[],
    /** Both sides are PostgreSQL: rows hash with PostgreSQL's own function (pgPairHashSql). */
    private readonly pgPair = false,
    /** Both sides' texts are UTF-8: text lengths in the row text are counted in bytes. */
    private readonly bytes = false,
  ) {
    const c = side.conn;
    this.from = c.tableSql(side.ref);
    this.raws = side.columns.map((col) => c.quote(col.name));
    this.texts = side.columns.map((col, i) => canonicalSql(c.dialect, this.raws[i], col.cls, modes[i], col.fraction));
    this.parts = this.raws.map((raw, i) => ({
      raw,
      text: this.hashText(raw, i),
      safe: isSafeText(modes[i]),
      ...(this.rawLength(raw, i) ? { length: raw } : {}),
    }));
    this.keyText = rowTextSql(
      c.dialect,
      keyIndexes.map((i) => this.parts[i]),
      bytes,
    );
  }

  /**
   * Column i's text in the row text that is hashed. MySQL's CONCAT converts a number, date or
   * time argument to the very text CAST(... AS CHAR) gives, and takes a UTF-8 text as it is,
   * for a fifth less of the checksum query's time than the explicit conversions (the rows
   * fetched keep them).
   */
  private hashText(raw: string, i: number): string {
    const col = this.side.columns[i];
    if (this.side.conn.dialect !== 'mysql' || !this.isColumnText(raw, i)) return this.texts[i];
    const converted = col.cls === 'text' || col.cls === 'json';
    return !converted || col.utf8Column === true ? raw : this.texts[i];
  }

  /**
   * Whether column i's text has the raw column's length: a MySQL text converted to utf8mb4 has
   * its characters (and, from a UTF-8 charset, its bytes); a PostgreSQL text/varchar is its text.
   */
  private rawLength(raw: string, i: number): boolean {
    const col = this.side.columns[i];
    if (!this.isColumnText(raw, i) || (col.cls !== 'text' && col.cls !== 'json')) return false;
    return this.side.conn.dialect === 'mysql' ? !this.bytes || col.utf8Column === true : col.utf8Column === true;
  }

  /** Whether column i's canonical text is the column's own text (columnTextSql). */
  private isColumnText(raw: string, i: number): boolean {
    return this.texts[i] === columnTextSql(this.side.conn.dialect, raw, this.side.columns[i].cls);
  }

  /** The row count. */
  countSql(): string {
    return `SELECT count(*) FROM ${this.from}`;
  }

  /** A one-column integer key's min and max, as text (index lookups: no scan). */
  boundsSql(): string {
    const k = this.raws[this.keyIndexes[0]];
    const t = (e: string) => (this.side.conn.dialect === 'postgresql' ? `${e}::text` : `CAST(${e} AS CHAR)`);
    return `SELECT ${t(`min(${k})`)}, ${t(`max(${k})`)} FROM ${this.from}`;
  }

  /**
   * Per range: its number, row count and the sum of row hashes; of the ranges of `slice` only
   * (range bucketing), else of all. MySQL groups the expression itself, without ordering the
   * groups (a derived table and the implicit ORDER BY cost it a fifth more).
   */
  checksumSql(b: Bucketing, slice?: Slice): string {
    const d = this.side.conn.dialect;
    const hash = this.pgPair ? pgPairHashSql(this.texts) : hashSql(d, rowTextSql(d, this.parts, this.bytes));
    const where = slice && b.kind === 'range' ? this.sliceWhere(b, slice) : '';
    if (d === 'postgresql')
      return `SELECT b, count(*), sum(h)::text FROM (SELECT ${this.bucketSql(b)} AS b, ${hash} AS h FROM ${this.from}${where}) tw_ranges GROUP BY b`;
    return `SELECT ${this.bucketSql(b)} AS b, count(*), CAST(SUM(${hash}) AS CHAR) FROM ${this.from}${where} GROUP BY b ORDER BY NULL`;
  }

  private sliceWhere(b: Extract<Bucketing, { kind: 'range' }>, s: Slice): string {
    const k = this.raws[this.keyIndexes[0]];
    const bounds: string[] = [];
    if (s.from > 0) bounds.push(`${k} >= ${b.lo + BigInt(s.from) * b.width}`);
    if (s.to < b.n) bounds.push(`${k} < ${b.lo + BigInt(s.to) * b.width}`);
    return bounds.length > 0 ? ` WHERE ${bounds.join(' AND ')}` : '';
  }

  /** The key text and every column's canonical text of the rows in ranges `buckets`. */
  rowsSql(b: Bucketing, buckets: readonly number[]): string {
    const cols = [this.keyText, ...this.texts.map((t, i) => `CASE WHEN ${this.raws[i]} IS NULL THEN NULL ELSE ${t} END`)].join(', ');
    return `SELECT ${cols} FROM ${this.from} WHERE ${this.whereBuckets(b, buckets)}`;
  }

  private bucketSql(b: Bucketing): string {
    const d = this.side.conn.dialect;
    if (b.kind === 'hash') return hashBucketSql(d, this.keyText, b.n);
    const k = this.raws[this.keyIndexes[0]];
    return d === 'postgresql' ? `((${k}::bigint - (${b.lo})) / ${b.width})` : `((${k} - (${b.lo})) DIV ${b.width})`;
  }

  private whereBuckets(b: Bucketing, buckets: readonly number[]): string {
    if (b.kind === 'hash') return `${this.bucketSql(b)} IN (${buckets.join(', ')})`;
    const k = this.raws[this.keyIndexes[0]];
    // Consecutive ranges merge into one key interval: the key's index serves each.
    const spans: Array<[number, number]> = [];
    for (const x of [...buckets].sort((p, q) => p - q)) {
      const last = spans[spans.length - 1];
      if (last && last[1] === x) last[1] = x + 1;
      else spans.push([x, x + 1]);
    }
    return spans.map(([s, e]) => `(${k} >= ${b.lo + BigInt(s) * b.width} AND ${k} < ${b.lo + BigInt(e) * b.width})`).join(' OR ');
  }
}
