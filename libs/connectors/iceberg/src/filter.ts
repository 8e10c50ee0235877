import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { dateDays, timestampMicros, timeMicros, unscaledDecimal } from '@tideway/connector-file-common';
import type { IcebergField } from './schema.js';
import { applyTransform } from './transforms.js';
import { compareInternal, decimalScale, deserializeValue, type Internal } from './values.js';

/**
 * The Iceberg source's row filter (its `filter` option, a Tideway extension: SeaTunnel's source
 * has none): comparisons of a column with literals, joined by AND. It prunes manifests by their
 * partition summaries, data files by partition values and column bounds, row groups by their
 * Parquet statistics, and drops the rows that do not match, so what the job reads is exact
 * whatever was pruned.
 *
 *   filter = "id >= 100 AND region = 'eu' AND note IS NOT NULL AND kind IN ('a', 'b')"
 */

export type FilterOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'is null' | 'is not null' | 'in';

interface ParsedPredicate {
  readonly column: string;
  readonly op: FilterOp;
  readonly literals: readonly (string | number | boolean)[];
}

/** A predicate bound to a table field: literals in Iceberg's internal form of the field's type. */
export interface BoundPredicate {
  readonly fieldId: number;
  readonly column: string;
  /** The field's Iceberg primitive type (e.g. `long`, `decimal(9, 2)`, `timestamptz`). */
  readonly type: string;
  readonly op: FilterOp;
  readonly values: readonly Internal[];
}

const TOKEN = /\s*(?:('(?:[^']|'')*')|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(<=|>=|<>|!=|=|<|>|\(|\)|,)|([A-Za-z_][A-Za-z0-9_.]*|`[^`]+`))/y;

function tokens(text: string): { kind: 'str' | 'num' | 'op' | 'word'; text: string }[] {
  const out: { kind: 'str' | 'num' | 'op' | 'word'; text: string }[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) throw bad(`cannot read it at '${text.slice(at).trim().slice(0, 20)}'`);
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) out.push({ kind: 'str', text: m[1].slice(1, -1).replace(/''/g, "'") });
    else if (m[2] !== undefined) out.push({ kind: 'num', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'op', text: m[3] });
    else out.push({ kind: 'word', text: m[4].replace(/^`|`$/g, '') });
  }
  return out;
}

/** Where the filter was written (the job config's line), for refusals. */
let filterPlace: Place | undefined;

const bad = (why: string): ConfigError =>
  new ConfigError(
    ErrorCode.CONFIG_BAD_VALUE,
    `${filterPlace ? '' : "option 'filter': "}${why} (it takes comparisons of a column with literals joined by AND: col = 1 AND name IN ('a', 'b') AND x IS NOT NULL).`,
    filterPlace ? { place: filterPlace } : {},
  );

/** The predicates of a filter text, AND-ed. */
export function parseFilter(text: string): ParsedPredicate[] {
  const t = tokens(text);
  const out: ParsedPredicate[] = [];
  let i = 0;
  const literal = (): string | number | boolean => {
    const tok = t[i++];
    if (!tok) throw bad('a literal is missing at the end');
    if (tok.kind === 'str') return tok.text;
    if (tok.kind === 'num') return tok.text.includes('.') || /e/i.test(tok.text) ? Number(tok.text) : tok.text;
    if (tok.kind === 'word' && /^(true|false)$/i.test(tok.text)) return tok.text.toLowerCase() === 'true';
    throw bad(`'${tok.text}' is not a literal (numbers, 'text', true, false)`);
  };
  for (;;) {
    const col = t[i++];
    if (!col || col.kind !== 'word') throw bad(col ? `'${col.text}' is not a column name` : 'it is empty');
    const next = t[i++];
    if (!next) throw bad(`nothing follows ${col.text}`);
    if (next.kind === 'word' && next.text.toUpperCase() === 'IS') {
      const not = t[i]?.kind === 'word' && t[i].text.toUpperCase() === 'NOT';
      if (not) i++;
      if (t[i]?.kind !== 'word' || t[i].text.toUpperCase() !== 'NULL')
        throw bad(`IS must be followed by NULL or NOT NULL after ${col.text}`);
      i++;
      out.push({ column: col.text, op: not ? 'is not null' : 'is null', literals: [] });
    } else if (next.kind === 'word' && next.text.toUpperCase() === 'IN') {
      if (t[i++]?.text !== '(') throw bad(`IN must be followed by a list in parentheses after ${col.text}`);
      const literals = [literal()];
      while (t[i]?.text === ',') {
        i++;
        literals.push(literal());
      }
      if (t[i++]?.text !== ')') throw bad(`the IN list of ${col.text} is not closed`);
      out.push({ column: col.text, op: 'in', literals });
    } else if (next.kind === 'op' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(next.text)) {
      out.push({ column: col.text, op: (next.text === '<>' ? '!=' : next.text) as FilterOp, literals: [literal()] });
    } else throw bad(`'${next.text}' after ${col.text} is not a comparison (=, !=, <, <=, >, >=, IN, IS [NOT] NULL)`);
    if (i >= t.length) return out;
    const and = t[i++];
    if (and.kind !== 'word' || and.text.toUpperCase() !== 'AND') throw bad(`'${and.text}' where AND was expected (OR is not supported)`);
  }
}

const FILTERABLE = /^(boolean|int|long|float|double|date|time|timestamp|timestamptz|string|decimal\(\d+,\s*\d+\))$/;

/** A literal in Iceberg's internal form of `type`. */
function literalInternal(type: string, v: string | number | boolean, column: string): Internal {
  const refuse = (): never => {
    throw bad(`${JSON.stringify(v)} is not a ${type} value for column ${column}`);
  };
  try {
    switch (type) {
      case 'boolean':
        return typeof v === 'boolean' ? v : refuse();
      case 'int':
      case 'float':
      case 'double': {
        const n = Number(v);
        return typeof v !== 'boolean' && Number.isFinite(n) && (type !== 'int' || Number.isInteger(n)) ? n : refuse();
      }
      case 'long':
        return typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : refuse();
      case 'date':
        return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? dateDays(v) : refuse();
      case 'time':
        return typeof v === 'string' ? timeMicros(v) : refuse();
      case 'timestamp':
        return typeof v === 'string' ? timestampMicros(v) : refuse();
      case 'timestamptz': {
        if (typeof v !== 'string') return refuse();
        const ms = Date.parse(/[zZ]|[+-]\d{2}:\d{2}$/.test(v) ? v : `${v}Z`);
        if (Number.isNaN(ms)) return refuse();
        const frac = /\.(\d{1,6})/.exec(v)?.[1] ?? '';
        return BigInt(Math.floor(ms / 1000)) * 1_000_000n + BigInt(frac.padEnd(6, '0') || '0');
      }
      case 'string':
        return typeof v === 'string' ? v : refuse();
      default:
        if (type.startsWith('decimal') && typeof v !== 'boolean' && /^-?\d+(\.\d+)?$/.test(String(v)))
          return unscaledDecimal(String(v), decimalScale(type));
        return refuse();
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return refuse();
  }
}

/** The predicates bound to the table's top-level fields (names matched per case_sensitive). */
export function bindFilter(text: string, fields: readonly IcebergField[], caseSensitive: boolean, place?: Place): BoundPredicate[] {
  filterPlace = place;
  try {
    return bindParsed(parseFilter(text), fields, caseSensitive);
  } finally {
    filterPlace = undefined;
  }
}

function bindParsed(parsed: readonly ParsedPredicate[], fields: readonly IcebergField[], caseSensitive: boolean): BoundPredicate[] {
  const norm = (s: string): string => (caseSensitive ? s : s.toLowerCase());
  return parsed.map((p) => {
    const field = fields.find((f) => norm(f.name) === norm(p.column));
    if (!field) throw bad(`the table has no column ${p.column} (${fields.map((f) => f.name).join(', ')})`);
    const type = typeof field.type === 'string' ? field.type : '';
    if (!FILTERABLE.test(type))
      throw bad(`column ${field.name} of type ${typeof field.type === 'string' ? field.type : field.type.type} cannot be filtered on`);
    return { fieldId: field.id, column: field.name, type, op: p.op, values: p.literals.map((l) => literalInternal(type, l, field.name)) };
  });
}

/** Whether a value (internal form, null for null) satisfies the predicate. */
export function matches(p: BoundPredicate, v: Internal | null): boolean {
  if (p.op === 'is null') return v === null;
  if (p.op === 'is not null') return v !== null;
  if (v === null || (typeof v === 'number' && Number.isNaN(v))) return false;
  const c = compareInternal(v, p.values[0]);
  switch (p.op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case 'in':
      return p.values.some((x) => compareInternal(v, x) === 0);
  }
}

/** What a set of values is known to hold: bounds (internal form) and whether nulls or non-nulls are there. */
export interface ValueRange {
  readonly lower?: Internal;
  readonly upper?: Internal;
  /** false when the set surely has no null; undefined when unknown. */
  readonly hasNull?: boolean;
  /** false when the set surely has only nulls; undefined when unknown. */
  readonly hasValue?: boolean;
}

/** False when no value of the range can satisfy the predicate (then what it describes is skipped). */
export function mayMatch(p: BoundPredicate, r: ValueRange): boolean {
  if (p.op === 'is null') return r.hasNull !== false;
  if (r.hasValue === false) return false;
  if (p.op === 'is not null') return true;
  const { lower, upper } = r;
  const v = p.values[0];
  switch (p.op) {
    case '=':
      return !(lower !== undefined && compareInternal(v, lower) < 0) && !(upper !== undefined && compareInternal(v, upper) > 0);
    case '!=':
      return !(lower !== undefined && upper !== undefined && compareInternal(lower, v) === 0 && compareInternal(upper, v) === 0);
    case '<':
      return lower === undefined || compareInternal(lower, v) < 0;
    case '<=':
      return lower === undefined || compareInternal(lower, v) <= 0;
    case '>':
      return upper === undefined || compareInternal(upper, v) > 0;
    case '>=':
      return upper === undefined || compareInternal(upper, v) >= 0;
    case 'in':
      return p.values.some((x) => mayMatch({ ...p, op: '=', values: [x] }, r));
  }
}

/** Transforms whose values keep the order of their source values (the predicate projects onto them, loosened). */
const MONOTONIC = /^(identity|year|month|day|hour|truncate\[\d+\])$/;

/**
 * The predicate on a partition field of `transform` over the predicate's column (Iceberg's
 * inclusive projection: every row that matches has a partition value that matches it), or
 * undefined when it does not project (other transforms, a != on a lossy transform).
 */
export function projectPredicate(p: BoundPredicate, transform: string, resultType: string): BoundPredicate | undefined {
  if (!MONOTONIC.test(transform)) return undefined;
  if (p.op === 'is null' || p.op === 'is not null') return { ...p, type: resultType };
  if (transform === 'identity') return p;
  const sourceType = p.type === 'timestamptz' ? 'timestamp' : p.type;
  const values = p.values.map((v) => applyTransform(transform, sourceType, v) as Internal);
  switch (p.op) {
    case '!=':
      return undefined;
    case '<':
      return { ...p, op: '<=', type: resultType, values };
    case '>':
      return { ...p, op: '>=', type: resultType, values };
    default:
      return { ...p, type: resultType, values };
  }
}

/**
 * A bound's bytes (the single-value serialization) in the internal form of `type`. A file
 * written before a column was widened keeps its narrower bounds (int for long, float for double).
 */
export function boundValue(type: string, bytes: Uint8Array): Internal {
  const t = type === 'timestamptz' ? 'timestamp' : type;
  if (t === 'long' && bytes.length === 4) return BigInt(Buffer.from(bytes).readInt32LE());
  if (t === 'double' && bytes.length === 4) return Buffer.from(bytes).readFloatLE();
  return deserializeValue(t, bytes);
}
