import { Types, formatType, type DataType } from '@tideway/api';
import { Decimal } from 'decimal.js';
import type { CastType } from './ast.js';
import { SqlValueError, type Compiled, type Evaluator } from './compiled.js';
import { fromEpochMillis, formatDate, formatTime, formatTimestamp, parseDateTime, parseTime } from './temporal.js';
import { typedText } from './value-text.js';

/** SeaTunnel's CAST type names (its docs plus every type of its type system). */
export function castTargetType(t: CastType): DataType | undefined {
  switch (t.name) {
    case 'STRING':
    case 'VARCHAR':
    case 'CHAR':
    case 'TEXT':
      return Types.STRING;
    case 'INT':
    case 'INTEGER':
      return Types.INT;
    case 'BIGINT':
    case 'LONG':
      return Types.BIGINT;
    case 'BYTE':
    case 'TINYINT':
      return Types.TINYINT;
    case 'SMALLINT':
    case 'SHORT':
      return Types.SMALLINT;
    case 'FLOAT':
    case 'REAL':
      return Types.FLOAT;
    case 'DOUBLE':
      return Types.DOUBLE;
    case 'BOOLEAN':
    case 'BOOL':
      return Types.BOOLEAN;
    case 'DECIMAL':
    case 'NUMERIC':
      return Types.decimal(t.params[0] ?? 38, t.params[1] ?? (t.params.length === 0 ? 18 : 0));
    case 'TIMESTAMP':
    case 'DATETIME':
      return Types.TIMESTAMP;
    case 'DATE':
      return Types.DATE;
    case 'TIME':
      return Types.TIME;
    case 'BYTES':
    case 'BINARY':
    case 'VARBINARY':
      return Types.BYTES;
    default:
      return undefined;
  }
}

const INT_RANGES: Record<string, [number, number]> = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
};

function fail(v: unknown, to: DataType): never {
  throw new SqlValueError(`cannot cast ${typeof v === 'string' ? `'${v}'` : String(v)} to ${formatType(to)}`);
}

/** A whole number from a value, or undefined. Text must be an integer literal (as Java's parseInt). */
function wholeNumber(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.trunc(v)) : undefined;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  const s = String(v).trim();
  if (/^[+-]?\d+$/.test(s)) return BigInt(s);
  return undefined;
}

/**
 * The conversion of CAST(x AS to) for a value of type `from`, built once per query.
 * A value that does not convert throws a SqlValueError naming it and the target type.
 */
export function castFunction(from: DataType, to: DataType): (v: unknown) => unknown {
  switch (to.kind) {
    case 'string':
      return (v) => typedText(v, from);
    case 'tinyint':
    case 'smallint':
    case 'int': {
      const [lo, hi] = INT_RANGES[to.kind];
      const fromDecimal = from.kind === 'decimal';
      return (v) => {
        const n = fromDecimal ? BigInt(new Decimal(v as string).trunc().toFixed()) : wholeNumber(v);
        if (n === undefined || n < lo || n > hi) fail(v, to);
        return Number(n);
      };
    }
    case 'bigint': {
      const fromDecimal = from.kind === 'decimal';
      return (v) => {
        const n = fromDecimal ? BigInt(new Decimal(v as string).trunc().toFixed()) : wholeNumber(v);
        if (n === undefined || n !== BigInt.asIntN(64, n)) fail(v, to);
        return n;
      };
    }
    case 'float':
    case 'double':
      return (v) => {
        if (typeof v === 'number') return to.kind === 'float' ? Math.fround(v) : v;
        if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
        const s = String(v).trim();
        if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(s) && !/^[+-]?(NaN|Infinity)$/.test(s)) fail(v, to);
        const n = Number(s.replace(/[dDfF]$/, ''));
        return to.kind === 'float' ? Math.fround(n) : n;
      };
    case 'decimal':
      return (v) => {
        let d: Decimal;
        try {
          d = new Decimal(typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? v : String(v).trim());
        } catch {
          fail(v, to);
        }
        if (!d.isFinite()) fail(v, to);
        // SeaTunnel sets the scale with RoundingMode.CEILING
        const r = d.toDecimalPlaces(to.scale, Decimal.ROUND_CEIL);
        if (r.abs().gte(new Decimal(10).pow(to.precision - to.scale)))
          throw new SqlValueError(`${String(v)} does not fit ${formatType(to)}`);
        return r.toFixed(to.scale);
      };
    case 'boolean':
      return (v) => {
        if (typeof v === 'boolean') return v;
        if (typeof v === 'number' || typeof v === 'bigint') return Number(v) !== 0;
        const s = String(v).trim().toLowerCase();
        if (s === 'true' || s === '1') return true;
        if (s === 'false' || s === '0') return false;
        fail(v, to);
      };
    case 'bytes':
      return (v) => (v instanceof Uint8Array ? v : Buffer.from(typedText(v, from), 'utf8'));
    case 'timestamp':
      return (v) => {
        if (typeof v === 'bigint' || (typeof v === 'number' && from.kind !== 'double' && from.kind !== 'float'))
          return formatTimestamp(fromEpochMillis(Number(v)));
        const s = String(v);
        const t = from.kind === 'time' ? parseTime(s) : parseDateTime(s);
        if (!t) fail(v, to);
        if (from.kind === 'time') {
          const today = parseDateTime(formatDate(fromEpochMillis(Date.now())))!;
          return formatTimestamp({ ms: today.ms + t.ms, subNanos: t.subNanos });
        }
        return formatTimestamp(t);
      };
    case 'date':
      return (v) => {
        if (typeof v === 'number' && Number.isInteger(v)) {
          // yyyyMMdd as an int, as SeaTunnel reads it
          const y = Math.trunc(v / 10000);
          const m = Math.trunc(v / 100) % 100;
          const d = v % 100;
          const t = parseDateTime(`${String(y).padStart(4, '0')}-${m}-${d}`);
          if (!t) fail(v, to);
          return formatDate(t);
        }
        const t = parseDateTime(String(v));
        if (!t) fail(v, to);
        return formatDate(t);
      };
    case 'time':
      return (v) => {
        if (typeof v === 'number' && Number.isInteger(v)) {
          // HHmmss as an int, as SeaTunnel reads it
          const t = parseTime(
            `${Math.trunc(v / 10000)}:${String(Math.trunc(v / 100) % 100).padStart(2, '0')}:${String(v % 100).padStart(2, '0')}`,
          );
          if (!t) fail(v, to);
          return formatTime(t);
        }
        const s = String(v);
        if (from.kind === 'date') return '00:00:00';
        const t = parseTime(s) ?? parseDateTime(s);
        if (!t) fail(v, to);
        return formatTime({ ms: ((t.ms % 86400000) + 86400000) % 86400000, subNanos: t.subNanos });
      };
    default:
      return (v) => v;
  }
}

/** A CAST of a compiled value to a type, for CASE branches and COALESCE (SeaTunnel casts them to the common type). */
export function coerce(c: Compiled, to: DataType): Evaluator {
  if (c.type.kind === to.kind && (to.kind !== 'decimal' || JSON.stringify(c.type) === JSON.stringify(to))) return c.ev;
  if (c.type.kind === 'null') return () => null;
  const conv = castFunction(c.type, to);
  const ev = c.ev;
  return (f) => {
    const x = ev(f);
    return x == null ? null : conv(x);
  };
}
