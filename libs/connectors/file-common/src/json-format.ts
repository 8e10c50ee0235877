import type { DataType } from '@tideway/api';
import { ErrorCode, ValueConversionError } from '@tideway/common';
import { isoTemporalText, javaDoubleText, javaFloatText } from './java-text.js';
import { parseDateText, parseDateTimeText, parseTimeText } from './temporal-formats.js';

/**
 * SeaTunnel's json file format: one JSON object per line, keyed by column name
 * (RowToJsonConverters / JsonToRowConverters). Bytes are base64, dates and times ISO text,
 * decimals and 64-bit integers exact JSON numbers, non-finite doubles quoted strings.
 */

type Write = (v: unknown) => string;

function compileWrite(type: DataType): Write {
  const nullable = (t: DataType): Write => {
    const w = compileWrite(t);
    return (v) => (v === null || v === undefined ? 'null' : w(v));
  };
  switch (type.kind) {
    case 'null':
      return () => 'null';
    case 'string':
      return (v) => JSON.stringify(v);
    case 'boolean':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'decimal':
      return (v) => String(v);
    case 'float':
    case 'double': {
      const text = type.kind === 'float' ? javaFloatText : javaDoubleText;
      return (v) => (Number.isFinite(v) ? text(v as number) : `"${text(v as number)}"`);
    }
    case 'bytes':
      return (v) => `"${Buffer.from(v as Uint8Array).toString('base64')}"`;
    case 'date':
      return (v) => `"${v as string}"`;
    case 'time':
    case 'timestamp':
      return (v) => `"${isoTemporalText(v as string)}"`;
    case 'timestamp_tz':
      return (v) => JSON.stringify(v);
    case 'array': {
      const el = nullable(type.element);
      return (v) => `[${(v as unknown[]).map(el).join(',')}]`;
    }
    case 'map': {
      const k = compileWrite(type.key);
      const val = nullable(type.value);
      const keyIsText = type.key.kind === 'string';
      return (v) => {
        const parts: string[] = [];
        for (const [key, value] of v as Map<unknown, unknown>) {
          const keyText = keyIsText ? JSON.stringify(key) : JSON.stringify(key === null ? 'null' : stripQuotes(k(key)));
          parts.push(`${keyText}:${val(value)}`);
        }
        return `{${parts.join(',')}}`;
      };
    }
    case 'row':
      return compileObjectWriter(type.fields);
  }
}

function stripQuotes(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? (JSON.parse(s) as string) : s;
}

function compileObjectWriter(fields: readonly { name: string; type: DataType }[]): Write {
  const keys = fields.map((f) => `${JSON.stringify(f.name)}:`);
  const writers = fields.map((f) => {
    const w = compileWrite(f.type);
    return (v: unknown) => (v === null || v === undefined ? 'null' : w(v));
  });
  return (v) => {
    const row = v as readonly unknown[];
    let out = '{';
    for (let i = 0; i < writers.length; i++) out += (i === 0 ? '' : ',') + keys[i] + writers[i](row[i]);
    return `${out}}`;
  };
}

/** Compiles a writer of one JSON object per row for the given columns. */
export function compileJsonLineWriter(columns: readonly { name: string; type: DataType }[]): (fields: readonly unknown[]) => string {
  return compileObjectWriter(columns);
}

type Read = (v: unknown) => unknown;

function bad(field: string, type: string, v: unknown): never {
  throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Field '${field}': JSON value ${JSON.stringify(v)} is not a valid ${type}.`);
}

function integer(field: string, type: string, min: number, max: number): Read {
  return (v) => {
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) bad(field, type, v);
    return n;
  };
}

function compileRead(type: DataType, field: string): Read {
  const nullable = (t: DataType, name: string): Read => {
    const r = compileRead(t, name);
    return (v) => (v === null || v === undefined ? null : r(v));
  };
  switch (type.kind) {
    case 'null':
      return () => null;
    case 'string':
      return (v) => (typeof v === 'string' ? v : JSON.stringify(v));
    case 'boolean':
      return (v) => {
        if (typeof v === 'boolean') return v;
        if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
        return bad(field, 'boolean', v);
      };
    case 'tinyint':
      return integer(field, 'tinyint', -128, 127);
    case 'smallint':
      return integer(field, 'smallint', -32768, 32767);
    case 'int':
      return integer(field, 'int', -2147483648, 2147483647);
    case 'bigint':
      return (v) => {
        if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
        if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return BigInt(v);
        return bad(field, 'bigint', v);
      };
    case 'float':
    case 'double':
      return (v) => {
        const n = typeof v === 'string' ? Number(v) : v;
        if (typeof n !== 'number' || (Number.isNaN(n) && v !== 'NaN')) bad(field, type.kind, v);
        return type.kind === 'float' ? Math.fround(n) : n;
      };
    case 'decimal':
      return (v) => {
        const s = typeof v === 'number' ? String(v) : v;
        if (typeof s !== 'string' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) bad(field, 'decimal', v);
        return s;
      };
    case 'bytes':
      return (v) => (typeof v === 'string' ? Buffer.from(v, 'base64') : bad(field, 'bytes (base64 text)', v));
    case 'date':
      return (v) => (typeof v === 'string' ? parseDateText(v, field) : bad(field, 'date', v));
    case 'time':
      return (v) => (typeof v === 'string' ? parseTimeText(v, field) : bad(field, 'time', v));
    case 'timestamp':
      return (v) => (typeof v === 'string' ? parseDateTimeText(v, field) : bad(field, 'timestamp', v));
    case 'timestamp_tz':
      return (v) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : bad(field, 'timestamp_tz', v));
    case 'array': {
      const el = nullable(type.element, field);
      return (v) => (Array.isArray(v) ? v.map(el) : bad(field, 'array', v));
    }
    case 'map': {
      const k = compileRead(type.key, field);
      const val = nullable(type.value, field);
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(field, 'map', v);
        const out = new Map<unknown, unknown>();
        for (const [key, value] of Object.entries(v)) out.set(k(key), val(value));
        return out;
      };
    }
    case 'row': {
      const readers = type.fields.map((f) => nullable(f.type, `${field}.${f.name}`));
      const names = type.fields.map((f) => f.name);
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(field, 'row', v);
        const o = v as Record<string, unknown>;
        return names.map((n, i) => readers[i](o[n]));
      };
    }
  }
}

const NUMBER_START = /[-0-9]/;

/**
 * Quotes the JSON number literals that a JS number would change (a fraction or exponent, or
 * more than 15 digits), so bigint and decimal fields get their exact text. Strings are untouched.
 */
export function quoteInexactNumbers(line: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 34) {
      // skip a string literal
      for (i++; i < line.length && line.charCodeAt(i) !== 34; i++) if (line.charCodeAt(i) === 92) i++;
      continue;
    }
    if (!NUMBER_START.test(line[i])) continue;
    let j = i + 1;
    let exact = true;
    let digits = c === 45 ? 0 : 1;
    for (; j < line.length; j++) {
      const d = line.charCodeAt(j);
      if (d >= 48 && d <= 57) digits++;
      else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) exact = false;
      else break;
    }
    if (!exact || digits > 15) {
      out += `${line.slice(from, i)}"${line.slice(i, j)}"`;
      from = j;
    }
    i = j - 1;
  }
  return from === 0 ? line : out + line.slice(from);
}

function needsExactNumbers(type: DataType): boolean {
  switch (type.kind) {
    case 'bigint':
    case 'decimal':
      return true;
    case 'array':
      return needsExactNumbers(type.element);
    case 'map':
      return needsExactNumbers(type.value);
    case 'row':
      return type.fields.some((f) => needsExactNumbers(f.type));
    default:
      return false;
  }
}

/**
 * Compiles a reader of a parsed JSON object (JSON.parse of a line, after quoteInexactNumbers when
 * `exactNumbers` says so) into the fields of `columns` (missing keys are null).
 */
export function compileJsonObjectReader(columns: readonly { name: string; type: DataType }[]): {
  read: (o: Readonly<Record<string, unknown>>) => unknown[];
  exactNumbers: boolean;
} {
  const readers = columns.map((c) => {
    const r = compileRead(c.type, c.name);
    return (v: unknown) => (v === null || v === undefined ? null : r(v));
  });
  const names = columns.map((c) => c.name);
  return {
    read: (rec) => names.map((n, i) => readers[i](rec[n])),
    exactNumbers: columns.some((c) => needsExactNumbers(c.type)),
  };
}

/** Parses one JSON text that must be an object; throws a ValueConversionError quoting it otherwise. */
export function parseJsonObject(line: string, exactNumbers: boolean): Record<string, unknown> {
  let o: unknown;
  try {
    o = JSON.parse(exactNumbers ? quoteInexactNumbers(line) : line);
  } catch (err) {
    throw new ValueConversionError(
      ErrorCode.VALUE_CONVERSION,
      `A line is not valid JSON (${(err as Error).message}): ${line.slice(0, 200)}`,
    );
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) {
    throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `A line is not a JSON object: ${line.slice(0, 200)}`);
  }
  return o as Record<string, unknown>;
}

/** Compiles a parser of one JSON line into the fields of `columns` (missing keys are null). */
export function compileJsonLineParser(columns: readonly { name: string; type: DataType }[]): (line: string) => unknown[] {
  const { read, exactNumbers } = compileJsonObjectReader(columns);
  return (line) => read(parseJsonObject(line, exactNumbers));
}

/** The JSON text of one value of `type` (a map or array inside a text cell: excel, xml). */
export function compileJsonValueWriter(type: DataType): (v: unknown) => string {
  const line = compileJsonLineWriter([{ name: 'v', type }]);
  return (v) => line([v]).slice(5, -1); // {"v":<value>} -> <value>
}

/** Parses the JSON text of one value of `type` (the reverse of compileJsonValueWriter). */
export function compileJsonValueParser(type: DataType): (text: string) => unknown {
  const line = compileJsonLineParser([{ name: 'v', type }]);
  return (text) => line(`{"v":${text}}`)[0];
}
