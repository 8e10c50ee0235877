import type { CatalogTable } from '@tideway/api';
import { ErrorCode, textOf, ValueConversionError } from '@tideway/common';
import { tableName } from './multi-table-transform.js';

/** A value for messages: quoted and cut short, so one bad row cannot flood a log. */
export function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (typeof value === 'bigint') text = `${value}`;
  else if (value instanceof Uint8Array) text = `bytes[${value.length}]`;
  else {
    try {
      text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : isMap(v) ? mapObject(v) : v)) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function isMap(v: unknown): v is ReadonlyMap<unknown, unknown> {
  return v instanceof Map;
}

/** A map as the object JSON shows it: keys as their text. */
function mapObject(m: ReadonlyMap<unknown, unknown>): Record<string, unknown> {
  return Object.fromEntries([...m].map(([k, x]) => [textOf(k), x]));
}

/** A run-time data error that names the plugin, the value, the field and the table. */
export function rowValueError(
  pluginName: string,
  table: CatalogTable,
  field: string,
  value: unknown,
  reason: string,
  cause?: unknown,
): ValueConversionError {
  return new ValueConversionError(
    ErrorCode.VALUE_CONVERSION,
    `${pluginName}: value ${describeValue(value)} of field '${field}' in table '${tableName(table)}' ${reason}`,
    cause !== undefined ? { cause } : {},
  );
}
