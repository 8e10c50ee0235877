import { formatType, type DataType } from '@tideway/api';

/**
 * JSON values (as parsed, or as a JSONPath result) to Tideway values of a declared type, after
 * SeaTunnel's JsonToRowConverters: numbers and text convert both ways, booleans parse like
 * Java's Boolean.parseBoolean, containers turn into JSON text for a string type.
 */

/** A value that does not convert to the declared type; `message` says why. */
export class JsonConversionError extends Error {
  override readonly name = 'JsonConversionError';
}

export type JsonConverter = (value: unknown) => unknown;

const INT_RANGES: Record<'tinyint' | 'smallint' | 'int', [number, number]> = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
};

/** JSON text of a value, as Jackson writes it (bigint exact, Maps as objects, bytes as base64). */
export function toJsonText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${JSON.stringify(String(k))}:${toJsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : toJsonText(v))).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Jackson's asText(): the text of a scalar. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  throw new JsonConversionError(`is ${Array.isArray(value) ? 'an array' : 'an object'}, not a scalar`);
}

function fail(value: unknown, type: DataType): never {
  throw new JsonConversionError(`is not a valid ${formatType(type)}`);
}

function integer(kind: 'tinyint' | 'smallint' | 'int', type: DataType): JsonConverter {
  const [min, max] = INT_RANGES[kind];
  return (v) => {
    // Jackson converts an in-range JSON number to int by truncation; text must be an integer.
    const n =
      typeof v === 'number' && kind === 'int'
        ? Math.trunc(v)
        : typeof v === 'bigint'
          ? Number(v)
          : /^[+-]?\d+$/.test(textOf(v).trim())
            ? Number(textOf(v).trim())
            : NaN;
    if (!Number.isInteger(n) || n < min || n > max) fail(v, type);
    return n;
  };
}

function bigintOf(v: unknown, type: DataType): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isFinite(v)) n = BigInt(Math.trunc(v));
  else {
    const t = textOf(v).trim();
    if (!/^[+-]?\d+$/.test(t)) fail(v, type);
    n = BigInt(t);
  }
  if (n < -(2n ** 63n) || n >= 2n ** 63n) fail(v, type);
  return n;
}

const JAVA_DOUBLE = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)$/;

function floating(v: unknown, type: DataType): number {
  if (typeof v === 'number') return v;
  const t = textOf(v).trim();
  if (!JAVA_DOUBLE.test(t)) fail(v, type);
  return Number(t.replace(/[fFdD]$/, ''));
}

/** Decimal text at the column's scale (half-up, as BigDecimal.setScale), checked against its precision. */
function decimal(precision: number, scale: number, type: DataType): JsonConverter {
  return (v) => {
    const t = textOf(v).trim();
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
    if (m === null || (m[2] === '' && (m[3] ?? '') === '')) fail(v, type);
    const digits = `${m[2]}${m[3] ?? ''}`;
    let point = m[2].length + Number(m[4] ?? 0); // digits before the decimal point
    let all = digits;
    if (point < 0) {
      all = '0'.repeat(-point) + all;
      point = 0;
    }
    if (all.length < point + scale + 1) all = all.padEnd(point + scale + 1, '0');
    let kept = BigInt(all.slice(0, point + scale) || '0');
    if (Number(all[point + scale]) >= 5) kept += 1n;
    const abs = kept.toString().padStart(scale + 1, '0');
    const intPart = abs.slice(0, abs.length - scale).replace(/^0+(?=\d)/, '');
    if (intPart.replace(/^0$/, '').length > precision - scale) throw new JsonConversionError(`does not fit ${formatType(type)}`);
    const text = scale > 0 ? `${intPart}.${abs.slice(abs.length - scale)}` : intPart;
    return m[1] === '-' && kept !== 0n ? `-${text}` : text;
  };
}

function validDate(y: number, mo: number, d: number): boolean {
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const DATE = /^(\d{4})([-/.]?)(\d{2})\2(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?$/;
const TIMESTAMP = /^(\d{4})([-/.]?)(\d{2})\2(\d{2})(?:[T ]|(?<=^\d{8}))([01]\d|2[0-3]):?([0-5]\d):?([0-5]\d)(\.\d{1,9})?$/;

function date(type: DataType): JsonConverter {
  return (v) => {
    const m = DATE.exec(textOf(v).trim());
    if (m === null || !validDate(+m[1], +m[3], +m[4])) fail(v, type);
    return `${m[1]}-${m[3]}-${m[4]}`;
  };
}

function timestamp(type: DataType): JsonConverter {
  return (v) => {
    const m = TIMESTAMP.exec(textOf(v).trim());
    if (m === null || !validDate(+m[1], +m[3], +m[4])) fail(v, type);
    return `${m[1]}-${m[3]}-${m[4]}T${m[5]}:${m[6]}:${m[7]}${m[8] ?? ''}`;
  };
}

function bytes(type: DataType): JsonConverter {
  return (v) => {
    if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) fail(v, type);
    return new Uint8Array(Buffer.from(v, 'base64'));
  };
}

/**
 * The converter for a declared type; undefined for types SeaTunnel's JSON reader does not
 * produce (timestamp_tz). A converter gets non-null values; null and undefined map to null.
 */
export function jsonConverter(type: DataType): JsonConverter | undefined {
  const inner = notNullConverter(type);
  if (inner === undefined) return undefined;
  return (v) => (v === null || v === undefined ? null : inner(v));
}

function notNullConverter(type: DataType): JsonConverter | undefined {
  switch (type.kind) {
    case 'null':
      return () => null;
    case 'string':
      return (v) => (typeof v === 'string' ? v : typeof v === 'object' ? toJsonText(v) : textOf(v));
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : textOf(v).trim().toLowerCase() === 'true');
    case 'tinyint':
    case 'smallint':
    case 'int':
      return integer(type.kind, type);
    case 'bigint':
      return (v) => bigintOf(v, type);
    case 'float':
    case 'double':
      return (v) => floating(v, type);
    case 'decimal':
      return decimal(type.precision, type.scale, type);
    case 'date':
      return date(type);
    case 'time':
      return (v) => {
        const t = textOf(v).trim();
        if (!TIME.test(t)) fail(v, type);
        return t;
      };
    case 'timestamp':
      return timestamp(type);
    case 'bytes':
      return bytes(type);
    case 'array': {
      const element = jsonConverter(type.element);
      if (element === undefined) return undefined;
      return (v) => {
        if (!Array.isArray(v)) throw new JsonConversionError(`is not a JSON array for ${formatType(type)}`);
        return v.map(element);
      };
    }
    case 'map': {
      const key = jsonConverter(type.key);
      const value = jsonConverter(type.value);
      if (key === undefined || value === undefined) return undefined;
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v))
          throw new JsonConversionError(`is not a JSON object for ${formatType(type)}`);
        const out = new Map<unknown, unknown>();
        for (const [k, x] of Object.entries(v)) out.set(key(k), value(x));
        return out;
      };
    }
    case 'row': {
      const fields = type.fields.map((f) => jsonConverter(f.type));
      if (fields.some((f) => f === undefined)) return undefined;
      const names = type.fields.map((f) => f.name);
      return (v) => {
        if (v === null || typeof v !== 'object') throw new JsonConversionError(`is not a JSON object or array for ${formatType(type)}`);
        const byIndex = Array.isArray(v);
        return names.map((name, i) => fields[i]!(byIndex ? (v as unknown[])[i] : (v as Record<string, unknown>)[name]));
      };
    }
    default:
      return undefined;
  }
}
