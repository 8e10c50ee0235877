import type { DataType } from '@tideway/api';
import { ErrorCode, ValueConversionError } from '@tideway/common';
import { javaDoubleText, javaFloatText } from './java-text.js';
import {
  formatDate,
  formatDateTime,
  formatTime,
  parseDateText,
  parseDateTimeText,
  parseTimeText,
  type DateFormat,
  type DateTimeFormat,
  type TimeFormat,
} from './temporal-formats.js';

/**
 * SeaTunnel's text format (TextSerializationSchema / TextDeserializationSchema), used for
 * `text` and `csv` files: fields joined by the field delimiter; nested values (array elements,
 * map entries, row fields) joined by \u0002, map key/value by \u0003, one level deeper each
 * time; null is the empty string and an empty (blank) field reads back as null.
 */
export const NESTED_SEPARATORS = ['\u0002', '\u0003', '\u0004', '\u0005', '\u0006', '\u0007'] as const;

export interface TextFormatOptions {
  readonly fieldDelimiter: string;
  readonly dateFormat: DateFormat;
  readonly dateTimeFormat: DateTimeFormat;
  readonly timeFormat: TimeFormat;
}

type Format = (value: unknown) => string;

function separators(opts: TextFormatOptions): string[] {
  return [opts.fieldDelimiter, ...NESTED_SEPARATORS];
}

function compileFormat(type: DataType, level: number, seps: string[], opts: TextFormatOptions): Format {
  const inner = (t: DataType, l: number): Format => {
    const f = compileFormat(t, l, seps, opts);
    return (v) => (v === null || v === undefined ? '' : f(v));
  };
  switch (type.kind) {
    case 'null':
      return () => '';
    case 'string':
      return (v) => v as string;
    case 'boolean':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'decimal':
      return (v) => String(v);
    case 'float':
      return (v) => javaFloatText(v as number);
    case 'double':
      return (v) => javaDoubleText(v as number);
    case 'bytes':
      return (v) => Buffer.from(v as Uint8Array).toString('utf8');
    case 'date':
      return (v) => formatDate(v as string, opts.dateFormat);
    case 'time':
      return (v) => formatTime(v as string, opts.timeFormat);
    case 'timestamp':
      return (v) => formatDateTime(v as string, opts.dateTimeFormat);
    case 'timestamp_tz':
      // SeaTunnel's text format has no zoned timestamp; the ISO text keeps the instant.
      return (v) => v as string;
    case 'array': {
      const el = inner(type.element, level + 1);
      const sep = seps[level + 1];
      return (v) => (v as unknown[]).map(el).join(sep);
    }
    case 'map': {
      const k = inner(type.key, level + 1);
      const val = inner(type.value, level + 1);
      const entrySep = seps[level + 1];
      const kvSep = seps[level + 2];
      return (v) => {
        const parts: string[] = [];
        for (const [key, value] of v as Map<unknown, unknown>) parts.push(k(key) + kvSep + val(value));
        return parts.join(entrySep);
      };
    }
    case 'row': {
      const fs = type.fields.map((f) => inner(f.type, level + 1));
      const sep = seps[level + 1];
      return (v) => (v as unknown[]).map((x, i) => fs[i](x)).join(sep);
    }
  }
}

/** Compiles a line writer for rows of `types` (the columns written, in order). */
export function compileTextLineWriter(types: readonly DataType[], opts: TextFormatOptions): (fields: readonly unknown[]) => string {
  const seps = separators(opts);
  const formats = types.map((t) => {
    const f = compileFormat(t, 0, seps, opts);
    return (v: unknown) => (v === null || v === undefined ? '' : f(v));
  });
  const delimiter = opts.fieldDelimiter;
  const n = formats.length;
  return (fields) => {
    let line = n > 0 ? formats[0](fields[0]) : '';
    for (let i = 1; i < n; i++) line += delimiter + formats[i](fields[i]);
    return line;
  };
}

type Parse = (text: string) => unknown;

function fail(field: string, type: string, text: string): never {
  throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Field '${field}': '${text}' is not a valid ${type}.`);
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const FLOAT = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?$/;

function intParser(field: string, type: string, min: number, max: number): Parse {
  return (s) => {
    const n = INTEGER.test(s) ? Number(s) : NaN;
    if (!(n >= min && n <= max)) fail(field, type, s);
    return n;
  };
}

function compileParse(type: DataType, level: number, seps: string[], field: string): Parse {
  const inner = (t: DataType, l: number): Parse => {
    const p = compileParse(t, l, seps, field);
    return (s) => (s.trim() === '' ? null : p(s));
  };
  switch (type.kind) {
    case 'null':
      return () => null;
    case 'string':
      return (s) => s;
    case 'boolean':
      return (s) => s.toLowerCase() === 'true'; // Java's Boolean.parseBoolean
    case 'tinyint':
      return intParser(field, 'tinyint', -128, 127);
    case 'smallint':
      return intParser(field, 'smallint', -32768, 32767);
    case 'int':
      return intParser(field, 'int', -2147483648, 2147483647);
    case 'bigint':
      return (s) => {
        if (!INTEGER.test(s)) fail(field, 'bigint', s);
        const b = BigInt(s);
        if (b < -(2n ** 63n) || b >= 2n ** 63n) fail(field, 'bigint', s);
        return b;
      };
    case 'float':
    case 'double':
      return (s) => {
        const t = s.trim();
        if (!FLOAT.test(t)) fail(field, type.kind, s);
        const n = Number(t.replace(/[fFdD]$/, ''));
        return type.kind === 'float' ? Math.fround(n) : n;
      };
    case 'decimal':
      return (s) => {
        if (!DECIMAL.test(s)) fail(field, 'decimal', s);
        return s.startsWith('+') ? s.slice(1) : s;
      };
    case 'bytes':
      return (s) => Buffer.from(s, 'utf8');
    case 'date':
      return (s) => parseDateText(s, field);
    case 'time':
      return (s) => parseTimeText(s, field);
    case 'timestamp':
      return (s) => parseDateTimeText(s, field);
    case 'timestamp_tz':
      return (s) => {
        if (Number.isNaN(Date.parse(s))) fail(field, 'timestamp_tz', s);
        return s;
      };
    case 'array': {
      const el = inner(type.element, level + 1);
      const sep = seps[level + 1];
      return (s) => s.split(sep).map(el);
    }
    case 'map': {
      const k = inner(type.key, level + 1);
      const v = inner(type.value, level + 1);
      const entrySep = seps[level + 1];
      const kvSep = seps[level + 2];
      return (s) => {
        const out = new Map<unknown, unknown>();
        for (const entry of s.split(entrySep)) {
          const at = entry.indexOf(kvSep);
          if (at < 0) out.set(k(entry), null);
          else out.set(k(entry.slice(0, at)), v(entry.slice(at + kvSep.length)));
        }
        return out;
      };
    }
    case 'row': {
      const ps = type.fields.map((f) => compileParse(f.type, level + 1, seps, `${field}.${f.name}`));
      const sep = seps[level + 1];
      return (s) => {
        const parts = s.split(sep);
        return ps.map((p, i) => (parts[i] === undefined || parts[i].trim() === '' ? null : p(parts[i])));
      };
    }
  }
}

/** Compiles per-column parsers: each takes one field's text (blank reads as null). */
export function compileTextFieldParsers(
  columns: readonly { name: string; type: DataType }[],
  fieldDelimiter: string,
): ((text: string | undefined) => unknown)[] {
  const seps = [fieldDelimiter, ...NESTED_SEPARATORS];
  return columns.map((c) => {
    const p = compileParse(c.type, 0, seps, c.name);
    return (text) => (text === undefined || text.trim() === '' ? null : p(text));
  });
}

/** Splits a csv line on `delimiter`, honouring double quotes ("a,b" and "" for a quote). */
export function splitCsvLine(line: string, delimiter: string): string[] {
  const d = delimiter.charCodeAt(0);
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (quoted) {
      if (c === 34) {
        if (line.charCodeAt(i + 1) === 34) {
          field += '"';
          i++;
        } else quoted = false;
      } else field += line[i];
    } else if (c === 34 && field === '') quoted = true;
    else if (c === d) {
      out.push(field);
      field = '';
    } else field += line[i];
  }
  out.push(field);
  return out;
}
