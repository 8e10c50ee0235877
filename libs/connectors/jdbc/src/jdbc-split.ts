import type { SourceSplit } from '@tideway/api';
import type { JdbcConnection } from './jdbc-connection.js';
import { bareQuery } from './sql-text.js';

/** A numeric range of the split column: `lower <= c < upper` (or `<= upper`), open where absent. */
export interface SplitRange {
  readonly column: string;
  readonly lower?: string;
  readonly upper?: string;
  readonly upperInclusive: boolean;
  /** Rows whose split column is NULL belong to this split (the first one). */
  readonly includeNull: boolean;
}

/**
 * One hash bucket of a text split column (SeaTunnel splits string columns by hash modulo the
 * partition count): rows whose column hashes to `remainder` modulo `modulus`.
 */
export interface SplitBucket {
  readonly column: string;
  readonly modulus: number;
  readonly remainder: number;
  /** Rows whose split column is NULL (they hash to nothing) belong to this bucket (the first one). */
  readonly includeNull: boolean;
}

/**
 * A part of one table to read. Plain data (crosses threads and checkpoints). Progress: with an
 * `orderKey` (a one-column primary key) rows come in key order and a restored split resumes
 * after `lastKey`; otherwise it skips the `rowsRead` rows it already emitted, which is exact
 * when the database returns the rows in the same order again (an unchanged table).
 */
export interface JdbcSplit extends SourceSplit {
  readonly splitId: string;
  readonly tableId: string;
  readonly query: string;
  readonly bucket?: SplitBucket;
  readonly range?: SplitRange;
  readonly orderKey?: string;
  /** Index of the order key in the table's columns. */
  readonly orderKeyIndex?: number;
  lastKey?: string | number | bigint | null;
  rowsRead: number;
}

/** A plain decimal number: safe to put into SQL as a literal. */
const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

/** 0..modulus-1 from a text column: hashtext (an int4, maybe negative) on PostgreSQL, HASH on Firebird, CRC32 on MySQL (and SQLite, where the connection defines it). */
function hashBucket(conn: JdbcConnection, column: string, modulus: number): string {
  if (conn.dialect === 'postgresql') return `mod(mod(hashtext(${column}::text), ${modulus}) + ${modulus}, ${modulus})`;
  if (conn.dialect === 'firebird') return `MOD(MOD(HASH(${column}), ${modulus}) + ${modulus}, ${modulus})`;
  return `(CRC32(${column}) % ${modulus})`;
}

/**
 * The statement that reads what is left of a split. Bounds and resume keys are literals in the
 * text (PostgreSQL's COPY takes no parameters): numbers as numeric literals, since MySQL compares
 * a string with a BIGINT or DECIMAL column as DOUBLE, which loses digits past 2^53 (keys would
 * then fall out of every split); other values as quoted strings the database converts.
 */
export function splitStatement(conn: JdbcConnection, split: JdbcSplit): string {
  const conds: string[] = [];
  const bound = (v: string) => (NUMERIC_TEXT.test(v) ? v : conn.literal(v));
  if (split.range) {
    const c = conn.quote(split.range.column);
    const parts: string[] = [];
    if (split.range.lower !== undefined) parts.push(`${c} >= ${bound(split.range.lower)}`);
    if (split.range.upper !== undefined) parts.push(`${c} ${split.range.upperInclusive ? '<=' : '<'} ${bound(split.range.upper)}`);
    const inRange = parts.join(' AND ');
    if (split.range.includeNull) conds.push(inRange ? `(${inRange} OR ${c} IS NULL)` : `${c} IS NULL`);
    else if (inRange) conds.push(inRange);
  }
  if (split.bucket) {
    const c = conn.quote(split.bucket.column);
    const inBucket = `${hashBucket(conn, c, split.bucket.modulus)} = ${split.bucket.remainder}`;
    conds.push(split.bucket.includeNull ? `(${inBucket} OR ${c} IS NULL)` : inBucket);
  }
  const resumeAfterKey = split.orderKey !== undefined && split.lastKey !== undefined && split.lastKey !== null;
  if (resumeAfterKey) {
    const last = split.lastKey!;
    conds.push(
      `${conn.quote(split.orderKey)} > ${typeof last === 'bigint' || typeof last === 'number' ? bound(String(last)) : conn.literal(String(last))}`,
    );
  }
  let sql = `SELECT * FROM (${bareQuery(split.query)}) tw_split`;
  if (conds.length > 0) sql += ` WHERE ${conds.join(' AND ')}`;
  if (split.orderKey !== undefined) sql += ` ORDER BY ${conn.quote(split.orderKey)}`;
  else if (split.rowsRead > 0) {
    if (conn.dialect === 'firebird') sql += ` OFFSET ${split.rowsRead} ROWS`;
    else {
      const all = conn.dialect === 'postgresql' ? '' : conn.dialect === 'sqlite' ? ' LIMIT -1' : ' LIMIT 18446744073709551615';
      sql += `${all} OFFSET ${split.rowsRead}`;
    }
  }
  return sql;
}
