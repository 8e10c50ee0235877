import type { DataType } from '@tideway/api';

/**
 * Elasticsearch/OpenSearch field types as Tideway types (SeaTunnel's EsTypeMappingSeaTunnelType):
 * numbers, booleans, dates and binary map to their kind; every text-like type to string; objects,
 * nested documents, geo shapes, ranges and the other structured types to string holding their
 * JSON (a mapping cannot say more about them).
 */
export function fromEsType(esType: string): DataType {
  switch (esType) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'byte':
      return { kind: 'tinyint' };
    case 'short':
      return { kind: 'smallint' };
    case 'integer':
      return { kind: 'int' };
    case 'long':
      return { kind: 'bigint' };
    case 'unsigned_long':
      return { kind: 'decimal', precision: 20, scale: 0 };
    case 'float':
    case 'half_float':
      return { kind: 'float' };
    case 'double':
    case 'scaled_float':
      return { kind: 'double' };
    case 'date':
    case 'date_nanos':
      return { kind: 'timestamp' };
    case 'binary':
      return { kind: 'bytes' };
    default:
      return { kind: 'string' };
  }
}

/** The mapping of a Tideway type in an index created by the sink (SeaTunnel's reconvert). */
export function toEsMapping(type: DataType): Record<string, unknown> {
  switch (type.kind) {
    case 'boolean':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'binary' };
    case 'tinyint':
      return { type: 'byte' };
    case 'smallint':
      return { type: 'short' };
    case 'int':
      return { type: 'integer' };
    case 'bigint':
      return { type: 'long' };
    case 'float':
      return { type: 'float' };
    case 'double':
      return { type: 'double' };
    case 'date':
      return { type: 'date', format: 'strict_date_optional_time||epoch_millis' };
    case 'timestamp':
    case 'timestamp_tz':
      return { type: 'date_nanos', format: 'strict_date_optional_time_nanos||strict_date_optional_time||epoch_millis' };
    case 'array':
      return toEsMapping(type.element);
    case 'map':
      return { type: 'object', dynamic: true };
    case 'row':
      return { properties: Object.fromEntries(type.fields.map((f) => [f.name, toEsMapping(f.type)])) };
    case 'decimal':
    case 'time':
    case 'string':
      return { type: 'text' };
    case 'null':
      return { type: 'keyword' };
  }
}
