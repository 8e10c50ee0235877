import { describe, expect, it } from 'vitest';
import { one, sql, table } from './sql-fixture.test-util.js';

// The queries and expected values of SeaTunnel's Sql e2e cases (seatunnel-transforms-v2-e2e part-2
// and the shared conformance configs), run through the transform directly.

describe('Sql conformance cases', () => {
  it('sql_transform.conf: projection, regexp_replace, arithmetic, pi, pass-through of complex types', () => {
    const t = table({
      id: 'int',
      name: 'string',
      age: 'int',
      c_time: 'time',
      c_timestamp: 'timestamp',
      c_date: 'date',
      c_map: 'map<string, string>',
      c_array: 'array<int>',
      c_decimal: 'decimal(30, 8)',
    });
    const r = one(
      "select id, regexp_replace(name, '.+', 'b') as name, age+1 as age, pi() as pi, c_time, c_timestamp, c_date, c_map, c_array, c_decimal from fake",
      t,
      [1, 'Joy', 20, '10:00:00', '2024-01-01T00:00:00', '2024-01-01', new Map([['a', 'b']]), [1], '1.00000000'],
    )!;
    expect(r).toMatchObject({ id: 1, name: 'b', age: 21, pi: Math.PI, c_time: '10:00:00', c_decimal: '1.00000000' });
    const types = sql('select id, age+1 as age, pi() as pi from fake', t)
      .outputTables()[0]
      .columns.map((c) => c.type.kind);
    expect(types).toEqual(['int', 'int', 'double']);
  });

  it('case_when.conf', () => {
    const t = table({
      c_string: 'string',
      c_boolean: 'boolean',
      c_tinyint: 'tinyint',
      c_smallint: 'smallint',
      c_int: 'int',
      c_bigint: 'bigint',
      c_float: 'float',
      c_double: 'double',
      c_decimal: 'decimal(30, 8)',
    });
    const q = `select case when c_string in ('c_string') then 1 else 0 end     as c_string_1,
       case when c_string not in ('c_string') then 1 else 0 end as c_string_0,
       case when c_tinyint = 117 and TO_CHAR(c_boolean)='true' then 1 else 0 end as c_tinyint_boolean_1,
       case when c_tinyint != 117 and TO_CHAR(c_boolean)='true' then 1 else 0 end as c_tinyint_boolean_0,
       case when c_tinyint != 117 or TO_CHAR(c_boolean)='true' then 1 else 0 end as c_tinyint_boolean_or_1,
       case when c_int > 1 and c_bigint >1 and c_float >1 and c_double > 1 and c_decimal > 1 then 1 else 0 end as c_number_1,
       case when c_tinyint <> 117 then 1 else 0 end as c_number_0
       from fake`;
    const r = one(q, t, [
      'c_string',
      true,
      117,
      15987,
      56387395,
      7084913402530365000n,
      Math.fround(1.23),
      1.23,
      '2924137191386439303744.39292216',
    ]);
    expect(r).toEqual({
      c_string_1: 1,
      c_string_0: 0,
      c_tinyint_boolean_1: 1,
      c_tinyint_boolean_0: 0,
      c_tinyint_boolean_or_1: 1,
      c_number_1: 1,
      c_number_0: 0,
    });
    expect(
      sql(q, t)
        .outputTables()[0]
        .columns.every((c) => c.type.kind === 'int'),
    ).toBe(true);
  });

  it('criteria_filter.conf keeps exactly the row with id 1', () => {
    const t = table({ id: 'int', name: 'string', age: 'int', email: 'string' });
    const q = `select id, name, age, email from fake
              where ( id = 1 or id = 4 or id in (8, 9, 10, 11, 12) )
                  and id != 0 and name <> 'Kin Dom'
                  and ( age >= 20 or age < 22 )
                  and regexp_like(name, '[A-Z ]*')
                  and id > 0 and id >= 1 and id in (1, 2, 3, 4, 8, 9, 10, 11, 12)
                  and id not in (5, 6, 7) and name is not null and email is null
                  and id < 500 and id <= 500
                  and ( name like '%Din_' or name like 'Wan_%' or name like '%Yu%' )
                  and name not like '%LeBron%'
                  and name not like 'Wan_%'
                  and name not like '%Lian_'`;
    const rows = [
      [1, 'Joy Ding', 20, null],
      [2, 'May Ding', 22, 'may_ding@apache.com'],
      [3, 'Kin Dom', 21, 'kin_dom@apache.com'],
      [4, 'LeBron Ding', 38, null],
      [8, 'Wang DingCC', 34, null],
      [9, 'Zu DingDD', 33, null],
      [10, 'Zhang DingEE', 40, null],
      [11, 'Lin Qiang', 40, null],
      [12, 'Yu Liang', 40, null],
    ].map((fields) => ({ kind: '+I' as const, tableId: t.tableId, fields }));
    const out = sql(q, t).transform(rows);
    expect(out.map((r) => r.fields[0])).toEqual([1]);
  });

  it('func_numeric.conf', () => {
    const t = table({
      id: 'int',
      name: 'string',
      c1: 'double',
      c2: 'double',
      c3: 'double',
      c4: 'int',
      c5: 'double',
      c6: 'double',
      c7: 'int',
      c8: 'double',
      c9: 'double',
      c10: 'double',
      c11: 'tinyint',
      c12: 'smallint',
    });
    const q =
      'select abs(-10.3) as c0_1, abs(c1) as c1_1, acos(id) as id1, asin(c2) as c2_1, atan(c2) as c2_2, cos(c2) as c2_3, cosh(c2) as c2_4, sin(c2) as c2_5, sinh(c2) as c2_6, tan(c3/4) as c3_1, tanh(c2) as c2_7, mod(c4, 5) as c4_1, mod(c4, 5.4) as c4_2, ceil(c5) as c5_1, exp(c10) as c10_1, floor(c5) as c5_2, ln(c5) as c5_3, log(10,c5) as c5_4, log10(c6) as c6_1, radians(c7) as c7_1, sqrt(c8) as c8_1, pi() as pi, power(c5,2) as c5_5, rand() as rand, round(c9,2) as c9_1, sign(c1) as c1_2, trunc(c9,2) as c9_2, c11 + 3 as c11_2, c12 * 2 as c12_2 from fake';
    const r = one(q, t, [1, 'Joy Ding', -120.72, 0, 3.1415926, 13, 13.2, 1324.252, 180, 10.24, 120.72124, 2, 11, 23])!;
    expect(r).toMatchObject({
      c0_1: 10.3,
      c1_1: 120.72,
      id1: 0,
      c2_1: 0,
      c2_2: 0,
      c2_3: 1,
      c2_4: 1,
      c2_5: 0,
      c2_6: 0,
      c3_1: 0.9999999732051038,
      c2_7: 0,
      c4_1: 3,
      c4_2: 2.2,
      c5_1: 14,
      c10_1: 7.38905609893065,
      c5_2: 13,
      c5_3: 2.580216829592325,
      c5_4: 1.1205739312058498,
      c6_1: 3.1219706375172507,
      c7_1: 3.141592653589793,
      c8_1: 3.2,
      pi: 3.141592653589793,
      c5_5: 174.23999999999998,
      c9_1: 120.72,
      c1_2: -1,
      c9_2: 120.72,
      c11_2: 14,
      c12_2: 46,
    });
    expect(typeof r.rand).toBe('number');
    const types = Object.fromEntries(
      sql(q, t)
        .outputTables()[0]
        .columns.map((c) => [c.name, c.type.kind]),
    );
    expect(types).toMatchObject({
      c0_1: 'double',
      c4_1: 'int',
      c4_2: 'double',
      c5_1: 'int',
      c1_2: 'int',
      c11_2: 'int',
      c12_2: 'int',
      c9_2: 'double',
    });
  });

  it('func_string.conf', () => {
    const t = table({
      id: 'int',
      name: 'string',
      c1: 'string',
      c2: 'string',
      c3: 'string',
      c4: 'string',
      c5: 'int',
      c6: 'string',
      c7: 'string',
      c8: 'string',
      c9: 'string',
      c10: 'string',
      c11: 'timestamp',
    });
    const q =
      "select ascii(c1) as c1_1, ascii(c2) as c2_1, bit_length(c4) as c4_1, length(c4) as c4_2, octet_length(c4) as c4_3, char(c5) as c5_1, concat(c1,id,'!') as c1_2, hextoraw(c6) as c6_1, rawtohex(c7) as c7_1, insert(name,2,2,'**') as name1, lower(name) as name2, upper(name) as name3, left(name, 3) as name4, right(name, 4) as name5, lpad(name, 10, '*') as name6, rpad(name, 10, '*') as name7, ltrim(c8, '*') as c8_1, rtrim(c8, '*') as c8_2, trim(c8, '*') as c8_3, regexp_replace(c9, 'w+', 'W', 'i') as c9_1, regexp_like(name, '[A-Z ]*', 'i') as name8, regexp_substr(c10, '\\d{4}') as c10_1, regexp_substr(c10, '(\\d{4})-(\\d{2})-(\\d{2})', 1, 1, null, 2) as c10_2, repeat(name||' ',3) as name9, replace(name,' ','_') as name10, soundex(name) as name11, name || space(3) as name12, substring(name, 1, 3) as name13, to_char(id) as id1, to_char(c11,'yyyy-MM-dd') as c11_1, translate(name, 'ing', 'ING') as name14, des_decrypt('1234567890', des_encrypt('1234567890', name)) as name15,UUID() as uuid from fake";
    const r = one(q, t, [
      1,
      'Joy Ding',
      'A',
      'b',
      '&',
      '&^^$wef9',
      98,
      '0037',
      '7',
      '*Joy_Ding@s.com*',
      'Joy_WWWDing@s.com',
      '2020-10-01',
      '2022-12-12T23:34:45',
    ])!;
    expect(r).toMatchObject({
      c1_1: 65,
      c2_1: 98,
      c4_1: 64n,
      c4_2: 8n,
      c4_3: 8n,
      c5_1: 'b',
      c1_2: 'A1!',
      c6_1: '7',
      c7_1: '0037',
      name1: 'J** Ding',
      name2: 'joy ding',
      name3: 'JOY DING',
      name4: 'Joy',
      name5: 'Ding',
      name6: '**Joy Ding',
      name7: 'Joy Ding**',
      c8_1: 'Joy_Ding@s.com*',
      c8_2: '*Joy_Ding@s.com',
      c8_3: 'Joy_Ding@s.com',
      c9_1: 'Joy_WDing@s.com',
      name8: true,
      c10_1: '2020',
      c10_2: '10',
      name9: 'Joy Ding Joy Ding Joy Ding ',
      name10: 'Joy_Ding',
      name11: 'J352',
      name12: 'Joy Ding   ',
      name13: 'Joy',
      id1: '1',
      c11_1: '2022-12-12',
      name14: 'Joy DING',
      name15: 'Joy Ding',
    });
    expect(r.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('binary_expression.conf', () => {
    const t = table({ id: 'int', name: 'string', price: 'double' });
    const r = one(
      "select id+1 as id, id*4 as id2, price/3 as price, price-34.22 as price2, price%23.12 as price3, name||'_'||id as name from fake",
      t,
      [1, 'Joy Ding', 134.22],
    );
    expect(r).toEqual({ id: 2, id2: 4, price: 44.74, price2: 100, price3: 18.619999999999994, name: 'Joy Ding_1' });
  });

  it('func_system.conf', () => {
    const t = table({ id: 'bigint', name: 'string', c1: 'string', c2: 'timestamp', c3: 'string', c4: 'bigint', c5: 'int', c6: 'int' });
    const q =
      "select cast(id as STRING) as id, cast(id as INT) as id2, cast(id as DOUBLE) as id3 , cast(c1 as double) as c1_1, cast(c1 as DECIMAL(10,2)) as c1_2, cast(c2 as DATE) as c2_1, coalesce(c3,'Unknown') c3_1, ifnull(c3,'Unknown') c3_2, ifnull(nullif(name,'Joy Ding'),'NULL') name1, nullif(name,'Joy Ding_') name2, cast(c4 as decimal(17,4)) as c4_2, cast(c5 as date) as c5, cast(c6 as time) as c6, cast(name as bytes) as c7, name as `apply` from fake";
    const r = one(q, t, [1n, 'Joy Ding', '12.4', '2012-12-21T12:34:56', null, 1687747869032n, 20230625, 235109])!;
    expect(r).toMatchObject({
      id: '1',
      id2: 1,
      id3: 1,
      c1_1: 12.4,
      c1_2: '12.40',
      c2_1: '2012-12-21',
      c3_1: 'Unknown',
      c3_2: 'Unknown',
      name1: 'NULL',
      name2: 'Joy Ding',
      c4_2: '1687747869032.0000',
      c5: '2023-06-25',
      c6: '23:51:09',
      apply: 'Joy Ding',
    });
    expect(Buffer.from(r.c7 as Uint8Array).toString()).toBe('Joy Ding');
    const cols = sql(q, t).outputTables()[0].columns;
    expect(cols.find((c) => c.name === 'c1_2')!.type).toEqual({ kind: 'decimal', precision: 10, scale: 2 });
  });

  it('func_datetime.conf', () => {
    const t = table({
      id: 'int',
      name: 'string',
      c1: 'timestamp',
      c2: 'timestamp',
      c3: 'timestamp',
      c4: 'timestamp',
      c5: 'string',
      c6: 'string',
      c7: 'string',
    });
    const q =
      "select current_date as cd, current_timestamp as ct2, dateadd(c1, 1) as c1_1, dateadd(c1, 40, 'DAY') as c1_2, dateadd(c1, 2, 'YEAR') as c1_3, dateadd(c1, 10, 'MONTH') as c1_4, dateadd(c1, 13, 'HOUR') as c1_5, dateadd(c1, 40, 'MINUTE') as c1_6, dateadd(c1, 30, 'SECOND') as c1_7, datediff(c1, c2) as test, datediff(c1, c2, 'DAY') as c2_1, datediff(c1, c2, 'YEAR') as c2_2, datediff(c1, c2, 'MONTH') as c2_3, datediff(c1, c2, 'HOUR') as c2_4, datediff(c1, c2, 'MINUTE') as c2_5, datediff(c1, c2, 'SECOND') as c2_6, date_trunc(c3, 'YEAR') as c3_1, date_trunc(c3, 'MONTH') as c3_2, date_trunc(c3, 'DAY') as c3_3, date_trunc(c3, 'HOUR') as c3_4, date_trunc(c3, 'MINUTE') as c3_5, date_trunc(c3, 'SECOND') as c3_6, dayname(c3) as c3_7, day_of_week(c3) c3_8, day_of_year(c3) c3_9, extract(YEAR FROM c3) c3_10, extract(MONTH FROM c3) c3_11, extract(DAY FROM c3) c3_12, extract(HOUR FROM c3) c3_13, extract(MINUTE from c3) c3_14, extract(SECOND from c3) c3_15, extract(MILLISECOND from c3) c3_16, extract(DAYOFWEEK FROM c3) c3_17, extract(DAYOFYEAR FROM c3) c3_18, formatdatetime(c4,'yyyy-MM-dd HH:mm:ss.S') c4_1, formatdatetime(c4,'yyyy-MM-dd') c4_2, formatdatetime(c4,'HH:mm:ss.SSS') c4_3, hour(c4) c4_4, minute(c4) c4_5, month(c4) c4_6, monthname(c4) c4_7, parsedatetime(c5,'yyyy-MM-dd HH:mm:ss.SSS') c5_1, to_date(c6,'yyyy-MM-dd') c6_1, quarter(c4) c4_8, second(c4) c4_9, week(c4) c4_10, year(c4) c4_11, case when c7 is not null and is_date(c7, 'yyyy-MM-dd HH:mm:ss.SSS') then to_date(c7,'yyyy-MM-dd HH:mm:ss.SSS') else null end as c7_1 from fake";
    const r = one(q, t, [
      1,
      'Joy Ding',
      '2021-04-15T13:34:45',
      '2022-01-23T12:34:56',
      '2021-04-15T13:34:45.235',
      '2021-04-08T13:34:45.235',
      '2021-04-08 13:34:45.235',
      '2021-04-08',
      '2021-04-08 13:34:45.235',
    ])!;
    expect(r.cd).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.ct2).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r).toMatchObject({
      c1_1: '2021-04-16T13:34:45',
      c1_2: '2021-05-25T13:34:45',
      c1_3: '2023-04-15T13:34:45',
      c1_4: '2022-02-15T13:34:45',
      c1_5: '2021-04-16T02:34:45',
      c1_6: '2021-04-15T14:14:45',
      c1_7: '2021-04-15T13:35:15',
      test: 283n,
      c2_1: 283n,
      c2_2: 0n,
      c2_3: 9n,
      c2_4: 6791n,
      c2_5: 407460n,
      c2_6: 24447611n,
      c3_1: '2021-01-01T00:00:00',
      c3_2: '2021-04-01T00:00:00',
      c3_3: '2021-04-15T00:00:00',
      c3_4: '2021-04-15T13:00:00',
      c3_5: '2021-04-15T13:34:00',
      c3_6: '2021-04-15T13:34:45',
      c3_7: 'Thursday',
      c3_8: 4,
      c3_9: 105,
      c3_10: 2021,
      c3_11: 4,
      c3_12: 15,
      c3_13: 13,
      c3_14: 34,
      c3_15: 45,
      c3_16: 235,
      c3_17: 4,
      c3_18: 105,
      c4_1: '2021-04-08 13:34:45.2',
      c4_2: '2021-04-08',
      c4_3: '13:34:45.235',
      c4_4: 13,
      c4_5: 34,
      c4_6: 4,
      c4_7: 'April',
      c5_1: '2021-04-08T13:34:45.235',
      c6_1: '2021-04-08',
      c4_8: 2,
      c4_9: 45,
      c4_10: 15,
      c4_11: 2021,
      c7_1: '2021-04-08T13:34:45.235',
    });
    const types = Object.fromEntries(
      sql(q, t)
        .outputTables()[0]
        .columns.map((c) => [c.name, c.type.kind]),
    );
    expect(types).toMatchObject({
      cd: 'date',
      ct2: 'timestamp',
      c1_1: 'timestamp',
      test: 'bigint',
      c5_1: 'timestamp',
      c6_1: 'date',
      c7_1: 'timestamp',
    });
  });

  it('func_from_unixtime.conf', () => {
    const t = table({ unixtime: 'bigint' });
    expect(one("select from_unixtime(unixtime,'yyyy-MM-dd HH:mm:ss','UTC+8') as ts from fake", t, [1672502400n])).toEqual({
      ts: '2023-01-01 00:00:00',
    });
  });

  it('inner_query.conf: nested rows and map keys', () => {
    const t = table({
      name: 'string',
      c_row: 'row<c_inner_row row<c_inner_int int, c_inner_string string, c_map map<string, string>>, c_string string>',
    });
    const q =
      'select c_row.c_string c_string, c_row.c_inner_row.c_inner_string c_inner_string, c_row.c_inner_row.c_map inner_map, c_row.c_inner_row.c_map.innerQuery map_val, c_row.c_inner_row.c_map.notExistKey map_not_exist_val from fake';
    const m = new Map([['innerQuery', 'v']]);
    const r = one(q, t, ['n', [[1, 'innerQuery', m], 'innerQuery']]);
    expect(r).toEqual({ c_string: 'innerQuery', c_inner_string: 'innerQuery', inner_map: m, map_val: 'v', map_not_exist_val: null });
  });

  it('sql_all_columns.conf and fake_to_assert.conf: * plus extra columns', () => {
    const t = table({ id: 'int', name: 'string' });
    expect(one('select *, id as id_ from fake', t, [1, 'a'])).toEqual({ id: 1, name: 'a', id_: 1 });
    expect(one('select * from fake', t, [1, 'a'])).toEqual({ id: 1, name: 'a' });
  });

  it('fake_to_console.variables.conf: WHERE on a string', () => {
    const t = table({ name: 'string', age: 'int' });
    const tr = sql("select * from fake where name = 'abc' ", t);
    expect(
      tr.transform([
        { kind: '+I', tableId: t.tableId, fields: ['abc', 1] },
        { kind: '+I', tableId: t.tableId, fields: ['def', 2] },
      ]).length,
    ).toBe(1);
  });

  it('batch_fakesource_to_console_error.conf: cast(name as int) fails with the value, expression and table', () => {
    const t = table({ id: 'int', name: 'string', age: 'int' });
    const tr = sql('select cast(name as int) as name, id,age from fake', t);
    expect(() => tr.transform([{ kind: '+I', tableId: t.tableId, fields: [1, 'abc', 2] }])).toThrow(
      /cannot cast 'abc' to int.*cast\(name as int\)/,
    );
    expect(() => tr.transform([{ kind: '+I', tableId: t.tableId, fields: [1, 'abc', 2] }])).toThrow(/default\.fake/);
  });
});
