/**
 * Tables with every column type the Jdbc connector maps, in PostgreSQL and MariaDB, with rows
 * that probe the edges: extreme numbers, NULL in every column, text with the characters COPY
 * and SQL escape (tab, newline, backslash, quotes), non-ASCII text, empty values, microsecond
 * times.
 */

import { textOf } from '@tideway/common';

/** Every PostgreSQL type the connector maps, as `all_types`. */
export const PG_ALL_TYPES_DDL = `
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE all_types (
  id bigint PRIMARY KEY,
  c_bool boolean, c_int2 smallint, c_int4 integer, c_int8 bigint, c_float4 real, c_float8 double precision,
  c_numeric numeric(20, 6), c_numeric_free numeric, c_char char(10), c_varchar varchar(64), c_text text,
  c_bytea bytea, c_date date, c_time time(6), c_timetz timetz, c_ts timestamp(6), c_tstz timestamptz(6),
  c_interval interval, c_uuid uuid, c_json json, c_jsonb jsonb, c_xml xml, c_inet inet, c_cidr cidr,
  c_macaddr macaddr, c_bit bit(4), c_varbit varbit(8), c_point point, c_int_arr integer[], c_text_arr text[],
  c_float_arr double precision[], c_enum mood, c_range int4range, c_tsvector tsvector
);
INSERT INTO all_types VALUES
  (1, true, -32768, 2147483647, 9223372036854775807, 1.5, 0.1, '-12345678901234.123456',
   '3.14159265358979323846264338327950288', 'ab', 'héllo wörld ✓ 日本',
   E'tab\\there\\nnew line \\\\ backslash "double" ''single'' \\r end', '\\x00ff10', '2024-02-29', '23:59:59.999999',
   '12:00:00+05:30', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456+08', '1 year 2 mons 3 days 04:05:06',
   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2, {"b": null}]}', '{"k": "v", "n": 1.5}', '<a>x &amp; y</a>',
   '192.0.2.1/24', '198.51.100.0/24', '08:00:2b:01:02:03', B'1010', B'101', '(1.5,-2)', '{1,NULL,3}',
   '{"a b","c,d","e\\"f",NULL}', '{0.5,-1e+300}', 'happy', '[1,10)', 'a fat cat'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, false, 0, -2147483648, -9223372036854775808, -0.25, -1e-300, '0.000001', '0', '', '', '', '\\x',
   '1900-01-01', '00:00:00', '00:00:00+00', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', '0',
   '00000000-0000-0000-0000-000000000000', '[]', '{}', '<e/>', '::1', '::/0', '00:00:00:00:00:00', B'0000', B'',
   '(0,0)', '{}', '{}', '{}', 'sad', 'empty', '');
`;

/** Every MariaDB type the connector maps, as `all_types`. */
export const MARIA_ALL_TYPES_DDL = `
CREATE TABLE all_types (
  id BIGINT PRIMARY KEY,
  c_bool BOOLEAN, c_tinyint TINYINT, c_tinyint_u TINYINT UNSIGNED, c_smallint SMALLINT, c_smallint_u SMALLINT UNSIGNED,
  c_mediumint MEDIUMINT, c_mediumint_u MEDIUMINT UNSIGNED, c_int INT, c_int_u INT UNSIGNED, c_bigint BIGINT,
  c_bigint_u BIGINT UNSIGNED, c_float FLOAT, c_double DOUBLE, c_decimal DECIMAL(20, 6), c_decimal_wide DECIMAL(65, 30),
  c_char CHAR(10), c_varchar VARCHAR(64), c_tinytext TINYTEXT, c_text TEXT, c_mediumtext MEDIUMTEXT, c_longtext LONGTEXT,
  c_binary BINARY(4), c_varbinary VARBINARY(16), c_tinyblob TINYBLOB, c_blob BLOB, c_mediumblob MEDIUMBLOB,
  c_longblob LONGBLOB, c_date DATE, c_time TIME(6), c_datetime DATETIME(6), c_timestamp TIMESTAMP(6) NULL,
  c_year YEAR, c_json JSON, c_enum ENUM('x', 'y', 'z'), c_set SET('a', 'b', 'c'), c_bit1 BIT(1), c_bit8 BIT(8),
  c_bit64 BIT(64)
);
INSERT INTO all_types VALUES
  (1, 1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
   18446744073709551615, 1.5, 0.1, '-12345678901234.123456', '12345678901234567890123456789012345.123456789012345678901234567890',
   'ab', 'héllo wörld ✓ 日本', 'tiny', 'tab\\there\\nnew line \\\\ backslash "double" ''single'' \\r end', 'medium', 'long ✓',
   X'00FF1000', X'DEADBEEF', X'01', X'0203', X'04', X'05', '2024-02-29', '23:59:59.999999', '2024-01-02 03:04:05.123456',
   '2024-01-02 03:04:05.123456', 2155, '{"a": [1, 2, {"b": null}]}', 'z', 'a,c', b'1', b'10100101', b'1111111111111111111111111111111111111111111111111111111111111111'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 0, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, -0.25, -1e-300, '0.000001', '0',
   '', '', '', '', '', '', X'00000000', X'', X'', X'', X'', X'', '1000-01-01', '00:00:00', '1000-01-01 00:00:00',
   '1970-01-02 00:00:00', 1901, '[]', 'x', '', b'0', b'0', b'0');
`;

/** A column both databases have, with the expression that renders it as comparable text in each. */
export interface CommonColumn {
  readonly name: string;
  readonly pg: string;
  readonly maria: string;
  /** How each database shows the value as text for comparison. */
  readonly pgText: string;
  readonly mariaText: string;
  /** JSON values are compared parsed: the databases space them differently. */
  readonly json?: boolean;
}

/** Columns with a natural type in both databases: what cross-database syncs carry. */
export const COMMON_COLUMNS: readonly CommonColumn[] = [
  { name: 'id', pg: 'bigint PRIMARY KEY', maria: 'BIGINT PRIMARY KEY', pgText: 'id::text', mariaText: 'CAST(id AS CHAR)' },
  { name: 'c_bool', pg: 'boolean', maria: 'BOOLEAN', pgText: 'c_bool::int::text', mariaText: 'CAST(c_bool AS CHAR)' },
  { name: 'c_smallint', pg: 'smallint', maria: 'SMALLINT', pgText: 'c_smallint::text', mariaText: 'CAST(c_smallint AS CHAR)' },
  { name: 'c_int', pg: 'integer', maria: 'INT', pgText: 'c_int::text', mariaText: 'CAST(c_int AS CHAR)' },
  { name: 'c_bigint', pg: 'bigint', maria: 'BIGINT', pgText: 'c_bigint::text', mariaText: 'CAST(c_bigint AS CHAR)' },
  { name: 'c_float', pg: 'real', maria: 'FLOAT', pgText: 'c_float::text', mariaText: 'CAST(c_float AS CHAR)' },
  { name: 'c_double', pg: 'double precision', maria: 'DOUBLE', pgText: 'c_double::text', mariaText: 'CAST(c_double AS CHAR)' },
  { name: 'c_decimal', pg: 'numeric(20, 6)', maria: 'DECIMAL(20, 6)', pgText: 'c_decimal::text', mariaText: 'CAST(c_decimal AS CHAR)' },
  { name: 'c_varchar', pg: 'varchar(64)', maria: 'VARCHAR(64)', pgText: 'c_varchar', mariaText: 'c_varchar' },
  { name: 'c_text', pg: 'text', maria: 'LONGTEXT', pgText: 'c_text', mariaText: 'c_text' },
  { name: 'c_bytes', pg: 'bytea', maria: 'LONGBLOB', pgText: "encode(c_bytes, 'hex')", mariaText: 'LOWER(HEX(c_bytes))' },
  { name: 'c_date', pg: 'date', maria: 'DATE', pgText: 'c_date::text', mariaText: 'CAST(c_date AS CHAR)' },
  {
    name: 'c_time',
    pg: 'time(6)',
    maria: 'TIME(6)',
    pgText: "to_char('2000-01-01'::date + c_time, 'HH24:MI:SS.US')",
    mariaText: "TIME_FORMAT(c_time, '%H:%i:%s.%f')",
  },
  {
    name: 'c_ts',
    pg: 'timestamp(6)',
    maria: 'DATETIME(6)',
    pgText: "to_char(c_ts, 'YYYY-MM-DD HH24:MI:SS.US')",
    mariaText: "DATE_FORMAT(c_ts, '%Y-%m-%d %H:%i:%s.%f')",
  },
  { name: 'c_json', pg: 'jsonb', maria: 'JSON', pgText: 'c_json::text', mariaText: 'c_json', json: true },
];

/** The same three rows, written in each database's literal syntax (E'' escapes, bytea hex vs X''). */
const COMMON_ROWS = {
  pg: `(1, true, -32768, -2147483648, -9223372036854775808, 1.5, 0.1, '-12345678901234.123456', 'héllo ✓',
        E'tab\\there\\nnew line \\\\ "double" ''single''', '\\x00ff10', '2024-02-29', '23:59:59.999999',
        '2024-01-02 03:04:05.123456', '{"a": [1, 2, {"b": null}]}'),
       (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (3, false, 32767, 2147483647, 9223372036854775807, -0.25, -1e-300, '0.000001', '', '', '\\x', '1000-01-01',
        '00:00:00', '1970-01-01 00:00:00', '[]')`,
  maria: `(1, true, -32768, -2147483648, -9223372036854775808, 1.5, 0.1, '-12345678901234.123456', 'héllo ✓',
        'tab\\there\\nnew line \\\\ "double" ''single''', X'00FF10', '2024-02-29', '23:59:59.999999',
        '2024-01-02 03:04:05.123456', '{"a": [1, 2, {"b": null}]}'),
       (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (3, false, 32767, 2147483647, 9223372036854775807, -0.25, -1e-300, '0.000001', '', '', X'', '1000-01-01',
        '00:00:00', '1970-01-01 00:00:00', '[]')`,
};

/** `common_types` with the shared columns and rows, in either database. */
export function commonTypesDdl(kind: 'pg' | 'maria'): string {
  const cols = COMMON_COLUMNS.map((c) => `${c.name} ${kind === 'pg' ? c.pg : c.maria}`).join(', ');
  return `CREATE TABLE common_types (${cols}); INSERT INTO common_types VALUES ${COMMON_ROWS[kind]};`;
}

/** The shared columns of `table` as comparable text, ordered by id. */
export function commonTypesSelect(kind: 'pg' | 'maria', table: string): string {
  const exprs = COMMON_COLUMNS.map((c) => `${kind === 'pg' ? c.pgText : c.mariaText} AS ${c.name}`);
  return `SELECT ${exprs.join(', ')} FROM ${table} ORDER BY id`;
}

/** Rows of commonTypesSelect with JSON columns parsed, so that spacing does not count. */
export function comparableCommonRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const c of COMMON_COLUMNS) {
      const v = r[c.name];
      // mysql2 hands JSON columns over parsed already; PostgreSQL's text needs parsing.
      if (c.json) out[c.name] = typeof v === 'string' ? JSON.parse(v) : (v ?? null);
      else out[c.name] = v === null || v === undefined ? null : textOf(v);
    }
    return out;
  });
}
