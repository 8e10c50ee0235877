import type { JdbcConnection, TableRef } from '@tideway/connector-jdbc';
import {
  canonicalSql,
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
  ) {
    const c = side.conn;
    this.from = c.tableSql(side.ref);
    this.raws = side.columns.map((col) => c.quote(col.name));
    this.texts = side.columns.map((col, i) => canonicalSql(c.dialect, this.raws[i], col.cls, modes[i], col.fraction));
    this.parts = this.raws.map((raw, i) => ({
      raw,
      text: this.texts[i],
      safe: isSafeText(modes[i]),
      // A text column converted to UTF-8 has as many characters as the column itself.
      ...(this.texts[i] === `CONVERT(${raw} USING utf8mb4)` ? { length: raw } : {}),
    }));
    this.keyText = rowTextSql(
      c.dialect,
      keyIndexes.map((i) => this.parts[i]),
    );
  }

  /** count(*), and for a one-column integer key its min and max as text. */
  statsSql(integerKey: boolean): string {
    if (!integerKey) return `SELECT count(*) FROM ${this.from}`;
    const k = this.raws[this.keyIndexes[0]];
    const t = (e: string) => (this.side.conn.dialect === 'postgresql' ? `${e}::text` : `CAST(${e} AS CHAR)`);
    return `SELECT count(*), ${t(`min(${k})`)}, ${t(`max(${k})`)} FROM ${this.from}`;
  }

  /** Per range: its number, row count and the sum of row hashes. */
  checksumSql(b: Bucketing): string {
    const hash = this.pgPair ? pgPairHashSql(this.texts) : hashSql(this.side.conn.dialect, rowTextSql(this.side.conn.dialect, this.parts));
    const sum = this.side.conn.dialect === 'postgresql' ? `sum(h)::text` : `CAST(SUM(h) AS CHAR)`;
    return `SELECT b, count(*), ${sum} FROM (SELECT ${this.bucketSql(b)} AS b, ${hash} AS h FROM ${this.from}) tw_ranges GROUP BY b`;
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
