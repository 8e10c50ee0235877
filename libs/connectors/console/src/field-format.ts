import type { DataType } from '@tideway/api';
import { javaBytes, javaDecimal, javaDouble, javaFloat, javaTime, javaTimestamp, javaTimestampTz } from './java-text.js';

/**
 * Field text as SeaTunnel's ConsoleSinkWriter.fieldToString makes it: arrays and bytes as
 * "[a, b]", maps as Jackson JSON (JavaTimeModule: temporal values as number arrays, bytes as
 * base64), nested rows as "[f1, f2]", everything else as String.valueOf. Formatters are
 * compiled once per column type.
 */
export type FieldFormatter = (value: unknown) => string;

const quote = (s: string): string => JSON.stringify(s);

function scalarText(type: DataType): FieldFormatter {
  switch (type.kind) {
    case 'float':
      return (v) => javaFloat(v as number);
    case 'double':
      return (v) => javaDouble(v as number);
    case 'decimal':
      return (v) => javaDecimal(String(v));
    case 'time':
      return (v) => javaTime(String(v));
    case 'timestamp':
      return (v) => javaTimestamp(String(v));
    case 'timestamp_tz':
      return (v) => javaTimestampTz(String(v));
    case 'bytes':
      return (v) => javaBytes(v as Uint8Array);
    default:
      return (v) => String(v);
  }
}

/** Jackson's JavaTimeModule number arrays: [h, m] plus seconds and nanos only when non-zero. */
function timeNumbers(text: string): number[] {
  const [hms = '', frac] = text.split('.');
  const [h, m, s] = hms.split(':').map(Number) as [number, number, number | undefined];
  const nanos = frac === undefined ? 0 : Number(frac.padEnd(9, '0'));
  const out = [h, m];
  if ((s ?? 0) > 0 || nanos > 0) out.push(s ?? 0);
  if (nanos > 0) out.push(nanos);
  return out;
}

function dateNumbers(text: string): number[] {
  return text.split('-').map(Number);
}

/** A value inside a map, as Jackson writes it. */
function jsonFormatter(type: DataType): FieldFormatter {
  const nullable =
    (f: FieldFormatter): FieldFormatter =>
    (v) =>
      v === null || v === undefined ? 'null' : f(v);
  switch (type.kind) {
    case 'string':
      return nullable((v) => quote(String(v)));
    case 'bytes':
      return nullable((v) => quote(Buffer.from(v as Uint8Array).toString('base64')));
    case 'date':
      return nullable((v) => `[${dateNumbers(String(v)).join(',')}]`);
    case 'time':
      return nullable((v) => `[${timeNumbers(String(v)).join(',')}]`);
    case 'timestamp':
    case 'timestamp_tz':
      return nullable((v) => {
        const text = String(v).replace(/(Z|[+-]\d{2}:?\d{2})$/, '');
        const [d = '', t = '00:00'] = text.split(/[T ]/);
        return `[${[...dateNumbers(d), ...timeNumbers(t)].join(',')}]`;
      });
    case 'array':
    case 'row': {
      // A nested row is written as the JSON array of its fields.
      const el = type.kind === 'array' ? [jsonFormatter(type.element)] : type.fields.map((f) => jsonFormatter(f.type));
      return nullable((v) => `[${(v as unknown[]).map((x, i) => el[type.kind === 'array' ? 0 : i](x)).join(',')}]`);
    }
    case 'map':
      return nullable(mapJson(type.key, type.value));
    default:
      return nullable(scalarText(type));
  }
}

function mapJson(keyType: DataType, valueType: DataType): FieldFormatter {
  const keyText = scalarText(keyType);
  const valueJson = jsonFormatter(valueType);
  return (v) => {
    let s = '{';
    let first = true;
    for (const [k, x] of v as Map<unknown, unknown>) {
      s += `${first ? '' : ','}${quote(k === null ? 'null' : keyText(k))}:${valueJson(x)}`;
      first = false;
    }
    return `${s}}`;
  };
}

/** The text of one field of `type`; null stays null (the caller decides how to show it). */
export function fieldFormatter(type: DataType): (value: unknown) => string | null {
  const nonNull = ((): FieldFormatter => {
    switch (type.kind) {
      case 'array': {
        const el = scalarText(type.element);
        return (v) => `[${(v as unknown[]).map((x) => (x === null || x === undefined ? 'null' : el(x))).join(', ')}]`;
      }
      case 'map':
        return mapJson(type.key, type.value);
      case 'row': {
        const fs = type.fields.map((f) => fieldFormatter(f.type));
        return (v) => `[${(v as unknown[]).map((x, i) => fs[i](x) ?? 'null').join(', ')}]`;
      }
      default:
        return scalarText(type);
    }
  })();
  return (v) => (v === null || v === undefined ? null : nonNull(v));
}
