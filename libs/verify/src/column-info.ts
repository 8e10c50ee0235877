import { textOf } from '@tideway/common';
import type { JdbcConnection, TableRef } from '@tideway/connector-jdbc';

/**
 * What a column's values are, across dialects: the classes canonical forms are chosen by.
 * `bit` is MySQL's BIT (booleans often land there), `timestamptz` a point in time (PostgreSQL
 * timestamptz, MySQL TIMESTAMP), `timestamp` a wall-clock time (PostgreSQL timestamp, MySQL
 * DATETIME).
 */
export type ColumnClass =
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'bit'
  | 'float'
  | 'double'
  | 'text'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'json'
  | 'bytes'
  | 'other';

/** One column of a compared table, as its database describes it. */
export interface ColumnInfo {
  readonly name: string;
  readonly cls: ColumnClass;
  /** Fraction digits of temporal columns (0-6). */
  readonly fraction: number;
  /** The database's type, e.g. `numeric(12,2)`, `datetime(3)`, for reports. */
  readonly label: string;
  /**
   * The type without dialect spelling and widths that cannot change a value (integer sizes,
   * text lengths): two columns of different shapes are reported as a type change.
   */
  readonly shape: string;
  /**
   * The text's length is the raw column's, in bytes as in characters, when verify's canonical
   * text of it is UTF-8 (a PostgreSQL text/varchar; a MySQL text column in utf8mb4, utf8mb3 or
   * ascii): its length is then read off the column instead of the converted text.
   */
  readonly utf8Column?: boolean;
  /** A decimal's declared scale (none for PostgreSQL's unconstrained numeric). */
  readonly scale?: number;
}

const UTF8_CHARSETS = new Set(['utf8mb4', 'utf8mb3', 'utf8', 'ascii']);

const PG_CLASSES: Record<string, ColumnClass> = {
  smallint: 'integer',
  integer: 'integer',
  bigint: 'integer',
  numeric: 'decimal',
  real: 'float',
  'double precision': 'double',
  boolean: 'boolean',
  'character varying': 'text',
  character: 'text',
  text: 'text',
  uuid: 'text',
  name: 'text',
  date: 'date',
  'time without time zone': 'time',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  json: 'json',
  jsonb: 'json',
  bytea: 'bytes',
};

const MYSQL_CLASSES: Record<string, ColumnClass> = {
  tinyint: 'integer',
  smallint: 'integer',
  mediumint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'integer',
  year: 'integer',
  decimal: 'decimal',
  float: 'float',
  double: 'double',
  real: 'double',
  bit: 'bit',
  char: 'text',
  varchar: 'text',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  enum: 'text',
  set: 'text',
  date: 'date',
  time: 'time',
  datetime: 'timestamp',
  timestamp: 'timestamptz',
  json: 'json',
  binary: 'bytes',
  varbinary: 'bytes',
  tinyblob: 'bytes',
  blob: 'bytes',
  mediumblob: 'bytes',
  longblob: 'bytes',
};

const PG_COLUMNS = `SELECT column_name, data_type, numeric_precision, numeric_scale, datetime_precision, udt_name
  FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`;
const MYSQL_COLUMNS = `SELECT COLUMN_NAME, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, COLUMN_TYPE, CHECK_JSON, CHARACTER_SET_NAME
  FROM (SELECT c.*, EXISTS (SELECT 1 FROM information_schema.CHECK_CONSTRAINTS k
          WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.CHECK_CLAUSE LIKE CONCAT('json_valid(\`', c.COLUMN_NAME, '\`)')) AS CHECK_JSON
        FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ?) t
  ORDER BY ORDINAL_POSITION`;

/**
 * Reads a table's columns from information_schema (empty when the table does not exist).
 * MariaDB's JSON is LONGTEXT with a json_valid check: the check makes it a json column here.
 */
export async function readColumns(conn: JdbcConnection, ref: TableRef): Promise<ColumnInfo[]> {
  const pg = conn.dialect === 'postgresql';
  const rows = (await conn.execute(pg ? PG_COLUMNS : MYSQL_COLUMNS, [pg ? (ref.schema ?? 'public') : (ref.database ?? ''), ref.table]))
    .rows;
  return rows.map((r) => {
    const dataType = String(r[1]).toLowerCase();
    const scale = r[3] === null ? undefined : Number(r[3]);
    const fraction = r[4] === null || r[4] === undefined ? 0 : Math.min(6, Number(r[4]));
    let cls = (pg ? PG_CLASSES : MYSQL_CLASSES)[dataType] ?? 'other';
    if (!pg && cls === 'text' && (r[6] === 1 || r[6] === '1' || r[6] === true)) cls = 'json';
    const label = pg
      ? dataType === 'numeric' && r[2] !== null
        ? `numeric(${textOf(r[2])},${scale})`
        : cls === 'timestamp' || cls === 'timestamptz' || cls === 'time'
          ? `${String(r[5])}(${fraction})`
          : String(r[5])
      : String(r[5]).toLowerCase();
    const shape =
      cls === 'decimal'
        ? `decimal(${textOf(r[2] ?? '')},${scale ?? ''})`
        : cls === 'timestamp' || cls === 'timestamptz' || cls === 'time'
          ? `${cls}(${fraction})`
          : label === 'tinyint(1)' || label === 'bit(1)'
            ? 'boolean'
            : cls === 'other'
              ? label
              : cls;
    const utf8Column = pg
      ? cls === 'text' && (label === 'text' || label === 'varchar')
      : (cls === 'text' || cls === 'json') && UTF8_CHARSETS.has(String(r[7]).toLowerCase());
    return { name: String(r[0]), cls, fraction, label, shape, utf8Column, ...(cls === 'decimal' && scale !== undefined ? { scale } : {}) };
  });
}

/** Whether a MySQL-dialect server is MariaDB (which truncates extra fraction digits on insert; MySQL and PostgreSQL round). */
export async function isMariaDb(conn: JdbcConnection): Promise<boolean> {
  if (conn.dialect !== 'mysql') return false;
  return /mariadb/i.test(textOf((await conn.execute('SELECT VERSION()')).rows[0]?.[0] ?? ''));
}
