import { formatType, Types, type Column, type DataType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { SchemaElement } from 'hyparquet';

/**
 * SeaTunnel's Parquet type mapping (ParquetWriteStrategy / ParquetReadStrategy), both ways.
 *
 * | SeaTunnel     | Parquet                                                            |
 * |---------------|--------------------------------------------------------------------|
 * | string        | BYTE_ARRAY (STRING)                                                |
 * | boolean       | BOOLEAN                                                            |
 * | tinyint       | INT32 (INT_8)                                                      |
 * | smallint      | INT32 (INT_16)                                                     |
 * | int           | INT32                                                              |
 * | bigint        | INT64                                                              |
 * | float, double | FLOAT, DOUBLE                                                      |
 * | decimal(p,s)  | FIXED_LEN_BYTE_ARRAY (DECIMAL p,s), the byte count SeaTunnel uses   |
 * | bytes         | BYTE_ARRAY                                                         |
 * | date          | INT32 (DATE)                                                       |
 * | time          | INT64 TIME(MICROS, not adjusted to UTC)                            |
 * | timestamp     | INT64 TIMESTAMP(MICROS, not adjusted to UTC)                       |
 * | array<T>      | LIST, 3 levels (list / element)                                    |
 * | map<K,V>      | MAP (key_value / key, value)                                       |
 * | row<...>      | a group                                                            |
 *
 * One choice differs from SeaTunnel on purpose: SeaTunnel writes timestamps as
 * TIMESTAMP_MILLIS and so drops microseconds; Tideway keeps them (every reader that knows
 * TIMESTAMP_MILLIS knows the MICROS logical type too). On read, INT64 TIMESTAMP in millis,
 * micros or nanos and INT96 all become timestamp. Every field is OPTIONAL, as SeaTunnel writes them.
 */

/** Bytes of a FIXED_LEN_BYTE_ARRAY decimal of each precision (1..38), as SeaTunnel's PRECISION_TO_BYTE_COUNT. */
export function decimalByteCount(precision: number): number {
  // the smallest n with 2^(8n-1) > 10^precision
  let n = 1;
  while (2n ** BigInt(8 * n - 1) <= 10n ** BigInt(precision)) n++;
  return n;
}

/** The schema elements of one column, depth first (a group is followed by its children). */
function elementsOf(name: string, type: DataType, repetition: 'OPTIONAL' | 'REQUIRED' | 'REPEATED' = 'OPTIONAL'): SchemaElement[] {
  const leaf = (e: Omit<SchemaElement, 'name' | 'repetition_type'>): SchemaElement[] => [{ name, repetition_type: repetition, ...e }];
  switch (type.kind) {
    case 'string':
      return leaf({ type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } });
    case 'boolean':
      return leaf({ type: 'BOOLEAN' });
    // Converted types only: hyparquet-writer 0.17 serialises the INTEGER logical type in a way DuckDB rejects.
    case 'tinyint':
      return leaf({ type: 'INT32', converted_type: 'INT_8' });
    case 'smallint':
      return leaf({ type: 'INT32', converted_type: 'INT_16' });
    case 'int':
      return leaf({ type: 'INT32' });
    case 'bigint':
      return leaf({ type: 'INT64' });
    case 'float':
      return leaf({ type: 'FLOAT' });
    case 'double':
      return leaf({ type: 'DOUBLE' });
    case 'decimal':
      return leaf({
        type: 'FIXED_LEN_BYTE_ARRAY',
        type_length: decimalByteCount(type.precision),
        converted_type: 'DECIMAL',
        precision: type.precision,
        scale: type.scale,
        logical_type: { type: 'DECIMAL', precision: type.precision, scale: type.scale },
      });
    case 'bytes':
      return leaf({ type: 'BYTE_ARRAY' });
    case 'date':
      return leaf({ type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } });
    case 'time':
      return leaf({ type: 'INT64', logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } });
    case 'timestamp':
      return leaf({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } });
    case 'array':
      return [
        { name, repetition_type: repetition, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...elementsOf('element', type.element),
      ];
    case 'map':
      return [
        { name, repetition_type: repetition, num_children: 1, converted_type: 'MAP', logical_type: { type: 'MAP' } },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
        ...elementsOf('key', type.key, 'REQUIRED'),
        ...elementsOf('value', type.value),
      ];
    case 'row':
      return [
        { name, repetition_type: repetition, num_children: type.fields.length },
        ...type.fields.flatMap((f) => elementsOf(f.name, f.type)),
      ];
    default:
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `A ${formatType(type)} column cannot be written to Parquet (SeaTunnel's Parquet writer has no mapping for it either).`,
      );
  }
}

/** The Parquet schema (root first) of the written columns; names are lower-cased as SeaTunnel writes them. */
export function parquetSchemaOf(columns: readonly Column[]): SchemaElement[] {
  return [{ name: 'SeaTunnelRecord', num_children: columns.length }, ...columns.flatMap((c) => elementsOf(c.name.toLowerCase(), c.type))];
}

/** A column's type and the elements it spans, read from a file's flat schema. */
interface Parsed {
  readonly type: DataType;
  readonly next: number;
}

function leafType(e: SchemaElement, where: string): DataType {
  const lt = e.logical_type;
  if (e.converted_type === 'DECIMAL' || lt?.type === 'DECIMAL') return Types.decimal(e.precision ?? 38, e.scale ?? 0);
  switch (e.type) {
    case 'BOOLEAN':
      return Types.BOOLEAN;
    case 'INT32':
      if (e.converted_type === 'DATE' || lt?.type === 'DATE') return Types.DATE;
      if (e.converted_type === 'INT_8' || (lt?.type === 'INTEGER' && lt.bitWidth === 8)) return Types.TINYINT;
      if (e.converted_type === 'INT_16' || (lt?.type === 'INTEGER' && lt.bitWidth === 16)) return Types.SMALLINT;
      if (e.converted_type === 'TIME_MILLIS' || lt?.type === 'TIME') return Types.TIME;
      return Types.INT;
    case 'INT64':
      if (e.converted_type === 'TIMESTAMP_MILLIS' || e.converted_type === 'TIMESTAMP_MICROS' || lt?.type === 'TIMESTAMP')
        return Types.TIMESTAMP;
      if (e.converted_type === 'TIME_MICROS' || lt?.type === 'TIME') return Types.TIME;
      return Types.BIGINT;
    case 'INT96':
      return Types.TIMESTAMP;
    case 'FLOAT':
      return Types.FLOAT;
    case 'DOUBLE':
      return Types.DOUBLE;
    case 'BYTE_ARRAY':
      return e.converted_type === 'UTF8' ||
        e.converted_type === 'JSON' ||
        e.converted_type === 'ENUM' ||
        lt?.type === 'STRING' ||
        lt?.type === 'JSON' ||
        lt?.type === 'ENUM'
        ? Types.STRING
        : Types.BYTES;
    case 'FIXED_LEN_BYTE_ARRAY':
      return Types.BYTES;
    default:
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: Parquet type ${String(e.type)} has no SeaTunnel type.`);
  }
}

/** Whether a group is annotated as a list. */
export const isListGroup = (e: SchemaElement): boolean => e.converted_type === 'LIST' || e.logical_type?.type === 'LIST';

/** Whether a group is annotated as a map (MAP_KEY_VALUE: older writers). */
export const isMapGroup = (e: SchemaElement): boolean =>
  e.converted_type === 'MAP' || e.converted_type === 'MAP_KEY_VALUE' || e.logical_type?.type === 'MAP';

function parseAt(schema: readonly SchemaElement[], i: number, where: string): Parsed {
  const e = schema[i];
  if (!e.num_children) {
    const t = leafType(e, where);
    // A bare repeated leaf is a 1-level list (old writers).
    return { type: e.repetition_type === 'REPEATED' ? Types.array(t) : t, next: i + 1 };
  }
  if (isListGroup(e)) {
    const rep = schema[i + 1];
    if (!rep.num_children) return { type: Types.array(leafType(rep, where)), next: i + 2 }; // 2-level list
    if (rep.num_children === 1) {
      const el = parseAt(schema, i + 2, where);
      return { type: Types.array(el.type), next: el.next };
    }
    const row = parseGroup(schema, i + 1, where); // a list of structs written as 2 levels
    return { type: Types.array(row.type), next: row.next };
  }
  if (isMapGroup(e)) {
    const key = parseAt(schema, i + 2, where);
    const value = parseAt(schema, key.next, where);
    return { type: Types.map(key.type, value.type), next: value.next };
  }
  const group = parseGroup(schema, i, where);
  // a repeated group outside a LIST or MAP is a list of its rows (the format's backward-compatibility rules)
  return e.repetition_type === 'REPEATED' ? { type: Types.array(group.type), next: group.next } : group;
}

function parseGroup(schema: readonly SchemaElement[], i: number, where: string): Parsed {
  const fields = [];
  let next = i + 1;
  for (let k = 0; k < (schema[i].num_children ?? 0); k++) {
    const name = schema[next].name;
    const child = parseAt(schema, next, where);
    fields.push({ name, type: child.type });
    next = child.next;
  }
  return { type: Types.row(fields), next };
}

/** The columns of a Parquet file's schema (root first, as in the file's metadata). */
export function columnsOfParquetSchema(schema: readonly SchemaElement[], where: string): Column[] {
  const root = parseGroup(schema, 0, where).type as Extract<DataType, { kind: 'row' }>;
  return root.fields.map((f) => ({ name: f.name, type: f.type, nullable: true }));
}
