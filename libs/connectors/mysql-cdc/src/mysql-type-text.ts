import type { DataType } from '@tideway/api';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { MySqlType, mysqlColumnReading, type MySqlFieldMeta } from '@tideway/connector-jdbc';

const UNSIGNED_FLAG = 32;
const BINARY_CHARSET = 63;
const TEXT_CHARSET = 33;

/** Type codes by the base word of a column type as DDL writes it. */
const CODES: Record<string, number> = {
  tinyint: MySqlType.TINY,
  bool: MySqlType.TINY,
  boolean: MySqlType.TINY,
  smallint: MySqlType.SHORT,
  mediumint: MySqlType.INT24,
  int: MySqlType.LONG,
  integer: MySqlType.LONG,
  bigint: MySqlType.LONGLONG,
  serial: MySqlType.LONGLONG,
  float: MySqlType.FLOAT,
  double: MySqlType.DOUBLE,
  real: MySqlType.DOUBLE,
  'double precision': MySqlType.DOUBLE,
  decimal: MySqlType.NEWDECIMAL,
  numeric: MySqlType.NEWDECIMAL,
  dec: MySqlType.NEWDECIMAL,
  fixed: MySqlType.NEWDECIMAL,
  date: MySqlType.DATE,
  time: MySqlType.TIME,
  datetime: MySqlType.DATETIME,
  timestamp: MySqlType.TIMESTAMP,
  year: MySqlType.YEAR,
  char: MySqlType.STRING,
  character: MySqlType.STRING,
  varchar: MySqlType.VAR_STRING,
  'character varying': MySqlType.VAR_STRING,
  nchar: MySqlType.STRING,
  nvarchar: MySqlType.VAR_STRING,
  'national char': MySqlType.STRING,
  'national varchar': MySqlType.VAR_STRING,
  tinytext: MySqlType.TINY_BLOB,
  text: MySqlType.BLOB,
  mediumtext: MySqlType.MEDIUM_BLOB,
  longtext: MySqlType.LONG_BLOB,
  'long varchar': MySqlType.MEDIUM_BLOB,
  binary: MySqlType.STRING,
  varbinary: MySqlType.VAR_STRING,
  tinyblob: MySqlType.TINY_BLOB,
  blob: MySqlType.BLOB,
  mediumblob: MySqlType.MEDIUM_BLOB,
  longblob: MySqlType.LONG_BLOB,
  bit: MySqlType.BIT,
  json: MySqlType.JSON,
  enum: MySqlType.ENUM,
  set: MySqlType.SET,
  uuid: MySqlType.STRING,
  inet4: MySqlType.STRING,
  inet6: MySqlType.STRING,
  geometry: MySqlType.GEOMETRY,
  point: MySqlType.GEOMETRY,
  linestring: MySqlType.GEOMETRY,
  polygon: MySqlType.GEOMETRY,
  multipoint: MySqlType.GEOMETRY,
  multilinestring: MySqlType.GEOMETRY,
  multipolygon: MySqlType.GEOMETRY,
  geometrycollection: MySqlType.GEOMETRY,
};
const BINARY_BASES = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);

/**
 * The SeaTunnel type of a column type as a DDL statement writes it (`int unsigned`,
 * `decimal(10,2)`, `varchar(64)`, `tinyint(1)`), by the same mapping the snapshot reader uses
 * for result columns (mysqlColumnReading), so a column added later reads like one discovered.
 */
export function mysqlTypeOfText(typeText: string, tinyInt1isBit: boolean, place: Place, where: string): DataType {
  const m = /^\s*([a-z]+(?: precision| varying| varchar| char)?)\s*(?:\(([^)]*)\))?\s*(.*)$/i.exec(typeText);
  const base = m?.[1]?.toLowerCase() ?? '';
  const code = CODES[base];
  if (!m || code === undefined) {
    throw new TidewayError(ErrorCode.UNSUPPORTED_TYPE, `${where}: column type '${typeText}' is not supported`, { place });
  }
  const params = (m[2] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const rest = (m[3] ?? '').toLowerCase();
  const unsigned = /\bunsigned\b/.test(rest) || base === 'serial';
  const n = params.length > 0 && /^\d+$/.test(params[0]) ? Number(params[0]) : undefined;
  let columnLength = n ?? 0;
  let decimals = 0;
  if (code === MySqlType.NEWDECIMAL) {
    const precision = n ?? 10;
    decimals = params.length > 1 ? Number(params[1]) : 0;
    columnLength = precision + (decimals > 0 ? 1 : 0) + (unsigned ? 0 : 1);
  } else if (code === MySqlType.TINY) columnLength = base === 'bool' || base === 'boolean' ? 1 : (n ?? 4);
  else if (code === MySqlType.BIT) columnLength = n ?? 1;
  const binary = BINARY_BASES.has(base);
  const meta: MySqlFieldMeta = {
    name: '',
    columnType: code,
    flags: unsigned ? UNSIGNED_FLAG : 0,
    decimals,
    columnLength,
    characterSet: binary ? BINARY_CHARSET : TEXT_CHARSET,
  };
  const reading = mysqlColumnReading(meta, tinyInt1isBit);
  if (!reading) throw new TidewayError(ErrorCode.UNSUPPORTED_TYPE, `${where}: column type '${typeText}' is not supported`, { place });
  return reading.type;
}

/** Whether a column type holds text (its values decode with a character set). */
export function isTextType(typeText: string): boolean {
  return /^\s*(char|character|varchar|nchar|nvarchar|national|tinytext|text|mediumtext|longtext|long|enum|set|json)\b/i.test(typeText);
}
