/**
 * The tables and rows SeaTunnel's Jdbc e2e tests (connector-jdbc-e2e, apache/seatunnel) prepare
 * before they run the configs in seatunnel-configs/: the DDL is theirs (JdbcMysqlIT,
 * JdbcMysqlMultipleTablesIT, JdbcPostgresIT), the rows are generated the way their
 * initTestData does.
 */

/** JdbcMysqlIT.CREATE_SQL (`%s` is the table). */
export const MYSQL_CREATE_SQL = `CREATE TABLE IF NOT EXISTS %s
(
    \`c_bit_1\`                bit(1)                DEFAULT NULL,
    \`c_bit_8\`                bit(8)                DEFAULT NULL,
    \`c_bit_16\`               bit(16)               DEFAULT NULL,
    \`c_bit_32\`               bit(32)               DEFAULT NULL,
    \`c_bit_64\`               bit(64)               DEFAULT NULL,
    \`c_boolean\`              tinyint(1)            DEFAULT NULL,
    \`c_tinyint\`              tinyint(4)            DEFAULT NULL,
    \`c_tinyint_unsigned\`     tinyint(3) unsigned   DEFAULT NULL,
    \`c_smallint\`             smallint(6)           DEFAULT NULL,
    \`c_smallint_unsigned\`    smallint(5) unsigned  DEFAULT NULL,
    \`c_mediumint\`            mediumint(9)          DEFAULT NULL,
    \`c_mediumint_unsigned\`   mediumint(8) unsigned DEFAULT NULL,
    \`c_int\`                  int(11)               DEFAULT NULL,
    \`c_integer\`              int(11)               DEFAULT NULL,
    \`c_bigint\`               bigint(20)            DEFAULT NULL,
    \`c_bigint_unsigned\`      bigint(20) unsigned   DEFAULT NULL,
    \`c_decimal\`              decimal(20, 0)        DEFAULT NULL,
    \`c_decimal_unsigned\`     decimal(38, 18)       DEFAULT NULL,
    \`c_float\`                float                 DEFAULT NULL,
    \`c_float_unsigned\`       float unsigned        DEFAULT NULL,
    \`c_double\`               double                DEFAULT NULL,
    \`c_double_unsigned\`      double unsigned       DEFAULT NULL,
    \`c_char\`                 char(1)               DEFAULT NULL,
    \`c_tinytext\`             tinytext,
    \`c_mediumtext\`           mediumtext,
    \`c_text\`                 text,
    \`c_varchar\`              varchar(255)          DEFAULT NULL,
    \`c_json\`                 json                  DEFAULT NULL,
    \`c_longtext\`             longtext,
    \`c_date\`                 date                  DEFAULT NULL,
    \`c_datetime\`             datetime              DEFAULT NULL,
    \`c_time\`                 time                  DEFAULT NULL,
    \`c_timestamp\`            timestamp NULL        DEFAULT NULL,
    \`c_tinyblob\`             tinyblob,
    \`c_mediumblob\`           mediumblob,
    \`c_blob\`                 blob,
    \`c_longblob\`             longblob,
    \`c_varbinary\`            varbinary(255)        DEFAULT NULL,
    \`c_binary\`               binary(1)             DEFAULT NULL,
    \`c_year\`                 year(4)               DEFAULT NULL,
    \`c_int_unsigned\`         int(10) unsigned      DEFAULT NULL,
    \`c_integer_unsigned\`     int(10) unsigned      DEFAULT NULL,
    \`c_bigint_30\`            BIGINT(40)  unsigned  DEFAULT NULL,
    \`c_decimal_unsigned_30\`  DECIMAL(30) unsigned  DEFAULT NULL,
    \`c_decimal_30\`           DECIMAL(30)           DEFAULT NULL,
    UNIQUE (c_bigint_30)
);`;

/** JdbcMysqlMultipleTablesIT.CREATE_TABLE_SQL: the same columns without c_time and the unique key. */
export const MYSQL_MULTI_CREATE_SQL = MYSQL_CREATE_SQL.replace(/\n\s+`c_time`[^\n]*/, '').replace(/,\n\s+UNIQUE \(c_bigint_30\)/, '');

/** JdbcMysqlIT's field order (initTestData, checkResult). */
export const MYSQL_FIELDS = [
  'c_bit_1',
  'c_bit_8',
  'c_bit_16',
  'c_bit_32',
  'c_bit_64',
  'c_boolean',
  'c_tinyint',
  'c_tinyint_unsigned',
  'c_smallint',
  'c_smallint_unsigned',
  'c_mediumint',
  'c_mediumint_unsigned',
  'c_int',
  'c_integer',
  'c_year',
  'c_int_unsigned',
  'c_integer_unsigned',
  'c_bigint',
  'c_bigint_unsigned',
  'c_decimal',
  'c_decimal_unsigned',
  'c_float',
  'c_float_unsigned',
  'c_double',
  'c_double_unsigned',
  'c_char',
  'c_tinytext',
  'c_mediumtext',
  'c_text',
  'c_varchar',
  'c_json',
  'c_longtext',
  'c_date',
  'c_datetime',
  'c_time',
  'c_timestamp',
  'c_tinyblob',
  'c_mediumblob',
  'c_blob',
  'c_longblob',
  'c_varbinary',
  'c_binary',
  'c_bigint_30',
  'c_decimal_unsigned_30',
  'c_decimal_30',
] as const;

/** The same fields without c_time (JdbcMysqlMultipleTablesIT). */
export const MYSQL_MULTI_FIELDS = MYSQL_FIELDS.filter((f) => f !== 'c_time');

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * JdbcMysqlIT.initTestData: 100 rows; the last is NULL except c_bigint_30 and
 * c_decimal_unsigned_30 (the parallel configs partition by them). `withNullRow` false gives
 * JdbcMysqlMultipleTablesIT's rows (no NULL row, no c_time).
 */
export function mysqlTestRows(withNullRow: boolean, now = new Date()): unknown[][] {
  const bigint = 2844674407371055000n;
  const decimal = 999999999999999999999999999899n;
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  const rows: unknown[][] = [];
  for (let i = 0; i < 100; i++) {
    const b = i & 0xff;
    let row: unknown[];
    if (withNullRow && i === 99) {
      row = MYSQL_FIELDS.map(() => null);
      row[42] = String(bigint + BigInt(i));
      row[43] = String(decimal + BigInt(i));
    } else {
      const test = Buffer.from('test');
      row = [
        i % 2 === 0 ? 1 : 0,
        Buffer.from([b]),
        Buffer.from([b, b]),
        Buffer.alloc(4, b),
        Buffer.alloc(8, b),
        i % 2 === 0,
        i,
        i,
        i,
        i,
        i,
        i,
        i,
        i,
        i,
        1,
        1,
        1,
        String(i),
        `0.${String(i).padStart(18, '0')}`,
        `0.${String(i).padStart(18, '0')}`,
        1.1,
        1.1,
        1.1,
        1.1,
        'f',
        `f1_${i}`,
        `f1_${i}`,
        `f1_${i}`,
        `f1_${i}`,
        `{"aa":"bb_${i}"}`,
        `f1_${i}`,
        date,
        `${date} ${time}`,
        time,
        `${date} ${time}`,
        test,
        test,
        test,
        test,
        test,
        Buffer.from('f'),
        String(bigint + BigInt(i)),
        String(decimal + BigInt(i)),
        String(decimal + BigInt(i)),
      ];
    }
    rows.push(withNullRow ? row : row.filter((_, idx) => MYSQL_FIELDS[idx] !== 'c_time'));
  }
  return rows;
}

/** JdbcPostgresIT.PG_SOURCE_DDL (with its column comment) and PG_SINK_DDL. */
export const PG_SOURCE_DDL = `CREATE TABLE IF NOT EXISTS pg_e2e_source_table (
  gid SERIAL PRIMARY KEY,
  uuid_col UUID,
  text_col TEXT,
  varchar_col VARCHAR(255),
  char_col CHAR(10),
  boolean_col bool,
  smallint_col int2,
  integer_col int4,
  bigint_col BIGINT,
  decimal_col DECIMAL(10, 2),
  numeric_col NUMERIC(8, 4),
  real_col float4,
  double_precision_col float8,
  smallserial_col SMALLSERIAL,
  serial_col SERIAL,
  bigserial_col BIGSERIAL,
  date_col DATE,
  timestamp_col TIMESTAMP,
  bpchar_col BPCHAR(10),
  age INT NOT null,
  name VARCHAR(255) NOT null,
  point geometry(POINT, 4326),
  linestring geometry(LINESTRING, 4326),
  polygon_colums geometry(POLYGON, 4326),
  multipoint geometry(MULTIPOINT, 4326),
  multilinestring geometry(MULTILINESTRING, 4326),
  multipolygon geometry(MULTIPOLYGON, 4326),
  geometrycollection geometry(GEOMETRYCOLLECTION, 4326),
  geog geography(POINT, 4326),
  json_col json NOT NULL,
  jsonb_col jsonb NOT NULL,
  xml_col xml NOT NULL
);comment on column pg_e2e_source_table.uuid_col is '"#¥%……&*（）;;'',,.\\.\`\`\`\`\`\`//''@特殊注释''\\\\''"'`;

export const PG_SINK_DDL = `CREATE TABLE IF NOT EXISTS pg_e2e_sink_table (
    gid SERIAL PRIMARY KEY,
    uuid_col UUID,
    text_col TEXT,
    varchar_col VARCHAR(255),
    char_col CHAR(10),
    boolean_col bool,
    smallint_col int2,
    integer_col int4,
    bigint_col BIGINT,
    decimal_col DECIMAL(10, 2),
    numeric_col NUMERIC(8, 4),
    real_col float4,
    double_precision_col float8,
    smallserial_col SMALLSERIAL,
    serial_col SERIAL,
    bigserial_col BIGSERIAL,
    date_col DATE,
    timestamp_col TIMESTAMP,
    bpchar_col BPCHAR(10),
    age int4 NOT NULL,
    name varchar(255) NOT NULL,
    point varchar(2000) NULL,
    linestring varchar(2000) NULL,
    polygon_colums varchar(2000) NULL,
    multipoint varchar(2000) NULL,
    multilinestring varchar(2000) NULL,
    multipolygon varchar(2000) NULL,
    geometrycollection varchar(2000) NULL,
    geog varchar(2000) NULL,
    json_col json NOT NULL,
    jsonb_col jsonb NOT NULL,
    xml_col xml NOT NULL
  )`;

/** JdbcPostgresIT.initializeJdbcTable's 1,000 rows, in one statement. */
export function pgSourceInsert(): string {
  const values: string[] = [];
  for (let i = 1; i <= 1000; i++) {
    values.push(`('${i}', gen_random_uuid(), 'Hello World', 'Test', 'Testing', true, 10, 100, 1000, 10.55, 8.8888, 3.14, 3.14159265, 1, 100, 10000,
      '2023-05-07', '2023-05-07 14:30:00', 'Testing', 21, 'Leblanc',
      ST_GeomFromText('POINT(-122.3452 47.5925)', 4326),
      ST_GeomFromText('LINESTRING(-122.3451 47.5924, -122.3449 47.5923)', 4326),
      ST_GeomFromText('POLYGON((-122.3453 47.5922, -122.3453 47.5926, -122.3448 47.5926, -122.3448 47.5922, -122.3453 47.5922))', 4326),
      ST_GeomFromText('MULTIPOINT(-122.3459 47.5927, -122.3445 47.5918)', 4326),
      ST_GeomFromText('MULTILINESTRING((-122.3463 47.5920, -122.3461 47.5919),(-122.3459 47.5924, -122.3457 47.5923))', 4326),
      ST_GeomFromText('MULTIPOLYGON(((-122.3458 47.5925, -122.3458 47.5928, -122.3454 47.5928, -122.3454 47.5925, -122.3458 47.5925)),((-122.3453 47.5921, -122.3453 47.5924, -122.3448 47.5924, -122.3448 47.5921, -122.3453 47.5921)))', 4326),
      ST_GeomFromText('GEOMETRYCOLLECTION(POINT(-122.3462 47.5921), LINESTRING(-122.3460 47.5924, -122.3457 47.5924))', 4326),
      ST_GeographyFromText('POINT(-122.3452 47.5925)'), '{"key":"test"}', '{"key":"test"}', '<XX:NewSize>test</XX:NewSize>')`);
  }
  return `INSERT INTO pg_e2e_source_table (gid, uuid_col, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col,
    bigint_col, decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col, date_col,
    timestamp_col, bpchar_col, age, name, point, linestring, polygon_colums, multipoint, multilinestring, multipolygon,
    geometrycollection, geog, json_col, jsonb_col, xml_col) VALUES ${values.join(',\n')}`;
}

const PG_COMMON = `gid, uuid_col, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col, bigint_col, decimal_col,
  numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col, date_col, timestamp_col, bpchar_col, age, name`;

/** JdbcPostgresIT.SOURCE_SQL and SINK_SQL (ordered by gid: the IT relies on insertion order). */
export const PG_SOURCE_SQL = `select ${PG_COMMON}, point, linestring, polygon_colums, multipoint, multilinestring, multipolygon,
  geometrycollection, geog, json_col::text, jsonb_col, cast(xml_col as varchar) from pg_e2e_source_table order by gid`;
export const PG_SINK_SQL = `select ${PG_COMMON}, cast(point as geometry) as point, cast(linestring as geometry) as linestring,
  cast(polygon_colums as geometry) as polygon_colums, cast(multipoint as geometry) as multipoint,
  cast(multilinestring as geometry) as multilinestring, cast(multipolygon as geometry) as multilinestring,
  cast(geometrycollection as geometry) as geometrycollection, cast(geog as geography) as geog, json_col::text, jsonb_col,
  cast(xml_col as varchar) from pg_e2e_sink_table order by gid`;
