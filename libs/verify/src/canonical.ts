import type { DialectName } from '@tideway/connector-jdbc';
import type { ColumnClass, ColumnInfo } from './column-info.js';

/**
 * How one column pair is compared. Most modes are computed in each database as a canonical
 * text both produce for the same value: numbers without trailing fraction zeros (so a decimal
 * scale or an integer/boolean mapping does not matter), temporal values at the lower of the
 * two precisions (rounded the way the lower side stores them), text in UTF-8, bytes as hex.
 * `client` modes have no canonical text both dialects always produce (JSON layout, float
 * digits and exponents). They are hashed as a text each side produces that is usually the
 * same for the same value (the shortest digits of a float; PostgreSQL's jsonb layout, which
 * MySQL's JSON and MariaDB's JSON_OBJECT share), and where a range's hashes differ its values
 * are fetched and compared here (clientEqual). Equal texts always mean equal values there,
 * so a range whose hashes match needs no fetch.
 */
export type CompareMode =
  /** `plain`: two decimals of one scale, which both dialects print with all of its digits. */
  | { readonly kind: 'number'; readonly plain?: boolean }
  | { readonly kind: 'native' }
  | { readonly kind: 'text' }
  | { readonly kind: 'date' }
  /** `same`: both sides store `fraction` digits, so each prints its own text (trailing zeros dropped). */
  | { readonly kind: 'temporal'; readonly time: boolean; readonly fraction: number; readonly round: boolean; readonly same?: boolean }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'json' }
  | { readonly kind: 'client-json' }
  | { readonly kind: 'client-float'; readonly digits: number };

/** Whether values of a mode are compared here rather than hashed in the databases. */
export function isClientMode(m: CompareMode): boolean {
  return m.kind === 'client-json' || m.kind === 'client-float';
}

const NUMBERISH = new Set<ColumnClass>(['integer', 'decimal', 'boolean', 'bit']);
const FLOATS = new Set<ColumnClass>(['float', 'double']);
const TIMESTAMPS = new Set<ColumnClass>(['timestamp', 'timestamptz']);

/**
 * One side of a pair: its dialect, whether it truncates extra fraction digits on insert
 * (MariaDB), and whether its texts are UTF-8 (PostgreSQL: a UTF8 database; MySQL: always, as
 * verify converts them to utf8mb4), so that both sides count a text's length in bytes alike.
 */
export interface SideFacts {
  readonly dialect: DialectName;
  readonly truncates: boolean;
  readonly utf8?: boolean;
}

/** Chooses how a source column and its sink column are compared. */
export function compareMode(a: ColumnInfo, b: ColumnInfo, sa: SideFacts, sb: SideFacts): CompareMode {
  const same = sa.dialect === sb.dialect;
  if (a.cls === 'json' || b.cls === 'json') return same ? { kind: 'json' } : { kind: 'client-json' };
  // Same dialect and type: the database's own text of the value is canonical, and cheapest.
  if (same && a.shape === b.shape && a.cls !== 'other') return { kind: 'native' };
  if (NUMBERISH.has(a.cls) && NUMBERISH.has(b.cls)) {
    const plain = a.cls === 'decimal' && b.cls === 'decimal' && a.scale !== undefined && a.scale === b.scale;
    return plain ? { kind: 'number', plain } : { kind: 'number' };
  }
  if ((FLOATS.has(a.cls) || NUMBERISH.has(a.cls)) && (FLOATS.has(b.cls) || NUMBERISH.has(b.cls))) {
    if (same && a.cls === b.cls) return { kind: 'native' };
    return { kind: 'client-float', digits: a.cls === 'float' || b.cls === 'float' ? 6 : 15 };
  }
  if (a.cls === 'date' && b.cls === 'date') return { kind: 'date' };
  const temporal = (TIMESTAMPS.has(a.cls) && TIMESTAMPS.has(b.cls)) || (a.cls === 'time' && b.cls === 'time');
  if (temporal) {
    const fraction = Math.min(a.fraction, b.fraction);
    // The side with fewer digits stored the value: MariaDB cut the extra digits, the others rounded.
    const lower = a.fraction <= b.fraction ? sa : sb;
    const mode = { kind: 'temporal' as const, time: a.cls === 'time', fraction, round: !lower.truncates };
    return a.fraction === b.fraction ? { ...mode, same: true } : mode;
  }
  if (a.cls === 'bytes' && b.cls === 'bytes') return { kind: 'bytes' };
  return { kind: 'text' };
}

/**
 * The column's own text: PostgreSQL's `::text`, MySQL's text converted to utf8mb4, anything else
 * cast to CHAR. A canonical text equal to it is the column's value as the database prints it.
 */
export function columnTextSql(dialect: DialectName, col: string, cls: ColumnClass): string {
  if (dialect === 'postgresql') return `${col}::text`;
  return cls === 'text' || cls === 'json' ? `CONVERT(${col} USING utf8mb4)` : `CAST(${col} AS CHAR)`;
}

/** The canonical text of column `col` (a quoted identifier) of class `cls`, in `dialect`, or null for NULL. */
export function canonicalSql(dialect: DialectName, col: string, cls: ColumnClass, mode: CompareMode, fraction: number): string {
  const pg = dialect === 'postgresql';
  const asText = columnTextSql(dialect, col, cls);
  switch (mode.kind) {
    case 'number': {
      const t = cls === 'boolean' ? `(CASE WHEN ${col} THEN '1' ELSE '0' END)` : cls === 'bit' ? `CAST(${col} + 0 AS CHAR)` : asText;
      if (cls !== 'decimal' || mode.plain) return t;
      return pg
        ? `(CASE WHEN position('.' in ${t}) > 0 THEN rtrim(rtrim(${t}, '0'), '.') ELSE ${t} END)`
        : `(CASE WHEN LOCATE('.', ${t}) > 0 THEN TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM ${t})) ELSE ${t} END)`;
    }
    case 'date':
      // PostgreSQL's own text of a date (its sessions here run with DateStyle ISO): half the cost of to_char.
      return pg ? `${col}::text` : `DATE_FORMAT(${col}, '%Y-%m-%d')`;
    case 'temporal':
      return temporalSql(pg, col, cls, mode, fraction);
    case 'bytes':
      return pg ? `encode(${col}, 'hex')` : `LOWER(HEX(${col}))`;
    case 'json':
    case 'client-json':
      return pg ? `${col}::jsonb::text` : asText;
    case 'client-float':
      // Both print a double's shortest round-trip digits; PostgreSQL writes 1e+20 where MySQL writes 1e20.
      if (cls === 'float' || cls === 'double') return pg ? `replace(${col}::text, 'e+', 'e')` : asText;
      return canonicalSql(dialect, col, cls, { kind: 'number' }, fraction);
    default:
      return asText;
  }
}

/**
 * A temporal value as `YYYY-MM-DD HH:MI:SS.ffffff` (or the time alone) cut to the compared
 * fraction digits; a side with more digits than that first adds half a unit when the other
 * side rounded on insert. Point-in-time columns are rendered in UTC (PostgreSQL by AT TIME
 * ZONE; MySQL sessions of verify run with time_zone '+00:00').
 */
function temporalSql(
  pg: boolean,
  col: string,
  cls: ColumnClass,
  mode: Extract<CompareMode, { kind: 'temporal' }>,
  fraction: number,
): string {
  const keep = (mode.time ? 8 : 19) + (mode.fraction > 0 ? 1 + mode.fraction : 0);
  let v = pg && cls === 'timestamptz' ? `(${col} AT TIME ZONE 'UTC')` : col;
  if (mode.same) {
    // Both hold the same digits: PostgreSQL's own text (DateStyle ISO) drops trailing fraction
    // zeros, MySQL's keeps them all, so they are trimmed there (up to the point, which a
    // fraction column always prints). Half the cost of to_char in PostgreSQL.
    if (pg) return `${v}::text`;
    const t = `CAST(${v} AS CHAR)`;
    return fraction > 0 ? `TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM ${t}))` : t;
  }
  if (mode.round && fraction > mode.fraction && !mode.time) {
    const half = 5 * 10 ** (5 - mode.fraction);
    v = pg ? `(${v} + interval '${half} microseconds')` : `DATE_ADD(${v}, INTERVAL ${half} MICROSECOND)`;
  }
  const text = pg
    ? `to_char(${v}, '${mode.time ? 'HH24:MI:SS.US' : 'YYYY-MM-DD HH24:MI:SS.US'}')`
    : `DATE_FORMAT(${v}, '${mode.time ? '%H:%i:%s.%f' : '%Y-%m-%d %H:%i:%s.%f'}')`;
  return pg ? `substr(${text}, 1, ${keep})` : `LEFT(${text}, ${keep})`;
}

/** One column of a row text: its raw column (NULL test), canonical text, and how that text is joined. */
export interface RowTextPart {
  readonly raw: string;
  readonly text: string;
  /** The text never holds `|` and is never `N` (numbers, dates, times): joined as it is. */
  readonly safe?: boolean;
  /** An expression whose length is the text's, cheaper to measure (the raw column itself). */
  readonly length?: string;
}

/** Modes whose canonical texts are digits, signs, `.`, `:`, `-`, spaces and exponents only. */
export function isSafeText(m: CompareMode): boolean {
  return m.kind === 'number' || m.kind === 'date' || m.kind === 'temporal' || m.kind === 'client-float';
}

/**
 * Joins column texts into one row text that cannot collide: separated by `|`, a NULL as `N`,
 * a value that may hold `|` as `length:text`, one that cannot (`safe`) as its text (so each
 * is evaluated once; both sides decide by the pair's mode, so they join alike). The NULL test
 * reads the raw column (a canonical text of a NULL boolean would read '0'). The length is in
 * UTF-8 bytes when `bytes` (both sides' texts are UTF-8: reading a byte count is several times
 * cheaper than counting characters), else in characters.
 */
export function rowTextSql(dialect: DialectName, parts: readonly RowTextPart[], bytes = false): string {
  const pg = dialect === 'postgresql';
  const len = pg ? (bytes ? 'octet_length' : 'char_length') : bytes ? 'LENGTH' : 'CHAR_LENGTH';
  const piece = (p: RowTextPart) => {
    if (p.safe) return `(CASE WHEN ${p.raw} IS NULL THEN 'N' ELSE ${p.text} END)`;
    return pg
      ? `(CASE WHEN ${p.raw} IS NULL THEN 'N' ELSE ${len}(${p.length ?? p.text})::text || ':' || ${p.text} END)`
      : `(CASE WHEN ${p.raw} IS NULL THEN 'N' ELSE CONCAT(${len}(${p.length ?? p.text}), ':', ${p.text}) END)`;
  };
  if (parts.length === 0) return `''`;
  return pg ? parts.map(piece).join(` || '|' || `) : `CONCAT(${parts.map(piece).join(`, '|', `)})`;
}

/**
 * The row hash when both sides are PostgreSQL: the record text of the canonical values
 * (quoted where needed, NULL empty, so unambiguous) through PostgreSQL's own 64-bit text hash,
 * about three times cheaper per row than MD5 of a length-prefixed concatenation.
 */
export function pgPairHashSql(texts: readonly string[]): string {
  return `hashtextextended(ROW(${texts.join(', ')})::text, 0)`;
}

/**
 * A non-negative integer below 2^60 from the SHA-256 of a text's UTF-8 bytes: summed per range,
 * exactly, by both databases. SHA-256 rather than MD5: MariaDB's MD5 costs a microsecond per row,
 * its SHA2 a third of that; PostgreSQL's are alike. The PostgreSQL side hashes the UTF-8 bytes
 * whatever the database's encoding (convert_to), as MySQL's utf8mb4 texts are.
 */
export function hashSql(dialect: DialectName, text: string): string {
  return dialect === 'postgresql'
    ? `('x' || left(encode(sha256(convert_to(${text}, 'UTF8')), 'hex'), 15))::bit(60)::bigint`
    : `CAST(CONV(LEFT(SHA2(${text}, 256), 15), 16, 10) AS UNSIGNED)`;
}

/** A bucket number in [0, n) from the MD5 of a key text (for keys that are not one integer column). */
export function hashBucketSql(dialect: DialectName, keyText: string, n: number): string {
  return dialect === 'postgresql'
    ? `((('x' || substr(md5(${keyText}), 1, 7))::bit(28)::int) % ${n})`
    : `(CONV(SUBSTRING(MD5(${keyText}), 1, 7), 16, 10) % ${n})`;
}

/** JSON text in one layout: keys sorted, numbers as JavaScript reads them, no spaces. */
export function normalJson(text: string | null): string | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = norm((v as Record<string, unknown>)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(norm(value));
}

/** Whether two fetched values of a client-compared column are equal. */
export function clientEqual(mode: CompareMode, a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  if (mode.kind === 'client-json') return normalJson(a) === normalJson(b);
  if (mode.kind === 'client-float') {
    const x = Number(a);
    const y = Number(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return a === b;
    return Number(x.toPrecision(mode.digits)) === Number(y.toPrecision(mode.digits));
  }
  return a === b;
}
