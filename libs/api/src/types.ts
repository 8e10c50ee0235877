/**
 * SeaTunnel's data types, and how their values are held in JavaScript.
 *
 * | type        | JS value                                                        |
 * |-------------|-----------------------------------------------------------------|
 * | null        | null                                                            |
 * | string      | string                                                          |
 * | boolean     | boolean                                                         |
 * | tinyint, smallint, int | number (integer)                                     |
 * | bigint      | bigint                                                          |
 * | float, double | number                                                        |
 * | decimal(p,s)| string, canonical decimal text (exact; e.g. "-12.50")           |
 * | bytes       | Uint8Array (Buffer)                                             |
 * | date        | string 'YYYY-MM-DD'                                             |
 * | time        | string 'HH:mm:ss' with optional fraction up to 9 digits         |
 * | timestamp   | string 'YYYY-MM-DDTHH:mm:ss' with optional fraction (no zone)   |
 * | timestamp_tz| string ISO-8601 with offset, e.g. '2024-01-02T03:04:05.123+08:00' |
 * | array<T>    | Array of T values                                               |
 * | map<K,V>    | Map of K values to V values                                     |
 * | row<...>    | Array of field values (a nested row, positional)                |
 *
 * Any value may be null when its column is nullable. Temporal values are kept as text so that
 * microseconds and "no time zone" survive every hop unchanged.
 */
export type DataType =
  | { readonly kind: 'null' }
  | { readonly kind: 'string' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'tinyint' }
  | { readonly kind: 'smallint' }
  | { readonly kind: 'int' }
  | { readonly kind: 'bigint' }
  | { readonly kind: 'float' }
  | { readonly kind: 'double' }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'date' }
  | { readonly kind: 'time' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'timestamp_tz' }
  | { readonly kind: 'array'; readonly element: DataType }
  | { readonly kind: 'map'; readonly key: DataType; readonly value: DataType }
  | { readonly kind: 'row'; readonly fields: readonly RowField[] };

export type DataTypeKind = DataType['kind'];

/** A field of a nested row type. */
export interface RowField {
  readonly name: string;
  readonly type: DataType;
}

/** Shared instances of the parameterless types. */
export const Types = {
  NULL: { kind: 'null' },
  STRING: { kind: 'string' },
  BOOLEAN: { kind: 'boolean' },
  TINYINT: { kind: 'tinyint' },
  SMALLINT: { kind: 'smallint' },
  INT: { kind: 'int' },
  BIGINT: { kind: 'bigint' },
  FLOAT: { kind: 'float' },
  DOUBLE: { kind: 'double' },
  BYTES: { kind: 'bytes' },
  DATE: { kind: 'date' },
  TIME: { kind: 'time' },
  TIMESTAMP: { kind: 'timestamp' },
  TIMESTAMP_TZ: { kind: 'timestamp_tz' },
  decimal: (precision: number, scale: number): DataType => ({ kind: 'decimal', precision, scale }),
  array: (element: DataType): DataType => ({ kind: 'array', element }),
  map: (key: DataType, value: DataType): DataType => ({ kind: 'map', key, value }),
  row: (fields: RowField[]): DataType => ({ kind: 'row', fields }),
} as const satisfies Record<string, DataType | ((...a: never[]) => DataType)>;

/** SeaTunnel's spelling of a type, e.g. `decimal(38, 18)`, `map<string, array<int>>`. */
export function formatType(t: DataType): string {
  switch (t.kind) {
    case 'decimal':
      return `decimal(${t.precision}, ${t.scale})`;
    case 'array':
      return `array<${formatType(t.element)}>`;
    case 'map':
      return `map<${formatType(t.key)}, ${formatType(t.value)}>`;
    case 'row':
      return `row<${t.fields.map((f) => `${f.name} ${formatType(f.type)}`).join(', ')}>`;
    default:
      return t.kind;
  }
}

export function typesEqual(a: DataType, b: DataType): boolean {
  return formatType(a) === formatType(b);
}
