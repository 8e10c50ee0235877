import { describe, expect, it } from 'vitest';
import { optionsOf } from '@tideway/api';
import { ErrorCode } from '@tideway/common';
import { connectionSettings } from './connection-settings.js';
import { checkDriver, parseJdbcUrl } from './jdbc-url.js';
import { compileSinkOptions, SINK_SPEC } from './sink-options.js';
import { compileSourceOptions, SOURCE_SPEC } from './source-options.js';
import { resolveTableRef } from './table-ref.js';

const pg = { url: 'jdbc:postgresql://db.example:5433/shop', driver: 'org.postgresql.Driver' };
const my = { url: 'jdbc:mysql://localhost/test', driver: 'com.mysql.cj.jdbc.Driver' };

describe('JDBC urls', () => {
  it('parses host, port, database and parameters of each dialect', () => {
    expect(parseJdbcUrl('jdbc:postgresql://db.example:5433/shop?currentSchema=s1&ApplicationName=a%20b', {})).toMatchObject({
      dialect: 'postgresql',
      host: 'db.example',
      port: 5433,
      database: 'shop',
    });
    const m = parseJdbcUrl('jdbc:mysql://localhost/test?serverTimezone=GMT%2b8&useSSL=false', {});
    expect(m).toMatchObject({ dialect: 'mysql', host: 'localhost', port: 3306, database: 'test' });
    expect([...m.params]).toEqual([
      ['serverTimezone', 'GMT+8'],
      ['useSSL', 'false'],
    ]);
    expect(parseJdbcUrl('jdbc:mariadb://[::1]:3307', {})).toMatchObject({
      dialect: 'mysql',
      subprotocol: 'mariadb',
      host: '::1',
      port: 3307,
      database: undefined,
    });
  });

  it('refuses other databases and malformed urls in one sentence', () => {
    expect(() => parseJdbcUrl('jdbc:oracle:thin:@localhost:1521/xe', { option: 'url' })).toThrow(
      "option 'url': url 'jdbc:oracle:thin:@localhost:1521/xe' cannot be used: the oracle database is not supported (use jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://, jdbc:sqlite: or jdbc:firebirdsql://)",
    );
    expect(() => parseJdbcUrl('postgres://x/y', {})).toThrow(/expected jdbc:postgresql:\/\/host\[:port\]\/database/);
  });

  it('checks the driver against the url', () => {
    const t = parseJdbcUrl(pg.url, {});
    expect(() => checkDriver(t, 'org.postgresql.Driver', {})).not.toThrow();
    expect(() => checkDriver(t, 'com.mysql.cj.jdbc.Driver', {})).toThrow(
      "driver 'com.mysql.cj.jdbc.Driver' does not fit url jdbc:postgresql:// (use org.postgresql.Driver)",
    );
  });

  it('turns parameters into session settings and refuses unknown ones', () => {
    const s = connectionSettings(
      parseJdbcUrl(
        'jdbc:mysql://h/d?serverTimezone=GMT%2b8&sessionVariables=sql_mode=ANSI&sslMode=REQUIRED&rewriteBatchedStatements=true',
        {},
      ),
      {},
      { tinyInt1isBit: 'false' },
      30,
      {},
    );
    expect(s.sessionSql).toEqual(["SET time_zone = '+08:00'", 'SET SESSION sql_mode=ANSI']);
    expect(s.ssl).toEqual({ rejectUnauthorized: false });
    expect(s.tinyInt1isBit).toBe(false);
    const p = connectionSettings(parseJdbcUrl('jdbc:postgresql://h/d?currentSchema=a,b&user=u', {}), { password: 'p' }, undefined, 5, {});
    expect(p).toMatchObject({ user: 'u', password: 'p', connectTimeoutMs: 5000, sessionSql: ['SET search_path TO "a", "b"'] });
    expect(() => connectionSettings(parseJdbcUrl('jdbc:postgresql://h/d?bogus=1', {}), {}, undefined, 5, { option: 'properties' })).toThrow(
      "option 'properties': url/properties parameter bogus=1 is not supported for PostgreSQL by this connector",
    );
    expect(() => connectionSettings(parseJdbcUrl('jdbc:mysql://h/d?characterEncoding=latin1', {}), {}, undefined, 5, {})).toThrow(
      /always reads and writes utf8mb4/,
    );
  });

  it('reads table paths as each dialect means them', () => {
    expect(resolveTableRef('postgresql', 'shop.sales.orders', 'shop', {})).toEqual({ database: 'shop', schema: 'sales', table: 'orders' });
    expect(resolveTableRef('postgresql', 'orders', 'shop', {})).toEqual({ database: 'shop', schema: 'public', table: 'orders' });
    expect(() => resolveTableRef('postgresql', 'other.s.t', 'shop', {})).toThrow(
      /names database 'other', but the url connects to database 'shop'/,
    );
    expect(resolveTableRef('mysql', 'db1.t', 'test', {})).toEqual({ database: 'db1', table: 't' });
    expect(() => resolveTableRef('mysql', 'a.b.c', 'test', {})).toThrow(/MySQL has no schemas/);
  });
});

describe('option checks', () => {
  const source = (o: Record<string, unknown>) => () => compileSourceOptions(optionsOf(o, SOURCE_SPEC));
  const sink = (o: Record<string, unknown>) => () => compileSinkOptions(optionsOf(o, SINK_SPEC));

  it('source: needs a query or table, refuses Oracle-only options and bad combinations', () => {
    expect(source(pg)).toThrow('plugin test: one of query, table_path or table_list is required');
    expect(source({ ...pg, query: 'select 1', use_select_count: true })).toThrow(/use_select_count applies to Oracle only/);
    expect(source({ ...pg, query: 'select 1', table_list: [{ table_path: 'a' }] })).toThrow(
      /table_list cannot be combined with table_path or query/,
    );
    expect(source({ ...pg, query: 'select 1', where_condition: 'id > 1' })).toThrow(/where_condition must start with 'where'/);
    expect(source({ ...pg, query: 'select 1', partition_lower_bound: 1 })).toThrow(/need partition_column/);
    expect(source({ ...pg, table_list: [{ table_path: 'a', bogus: 1 }] })).toThrow(/table_list entries take .*, not 'bogus'/);
    expect(source({ ...pg, query: 'select 1', compatible_mode: 'oracle' })).toThrow(/compatible_mode 'oracle' is not supported/);
    expect(source({ ...pg, query: 'select 1', partition_column: 'id', partition_upper_bound: '10.5' })().upperBound).toBe('10.5');
    expect(source({ ...pg, query: 'select 1' })().fetchSize).toBe(1024);
  });

  it('sink: needs query or generated SQL, and checks XA and save-mode options', () => {
    expect(sink(pg)).toThrow(/needs query, or generate_sink_sql = true with database and table/);
    expect(sink({ ...pg, query: 'insert', table: 't' })).toThrow(/table without generate_sink_sql = true cannot be combined with query/);
    expect(sink({ ...pg, query: 'insert', table: 't', generate_sink_sql: true })()).toMatchObject({ query: 'insert', table: 't' });
    expect(sink({ ...pg, generate_sink_sql: true })()).toMatchObject({ table: '${table_name}' });
    expect(sink({ ...my, generate_sink_sql: true, database: 'd', schema: 's' })).toThrow(/schema applies to PostgreSQL targets/);
    expect(sink({ ...pg, query: 'insert', tablePrefix: 'p_' })).toThrow(/tablePrefix applies only when the sink generates its SQL/);
    expect(sink({ ...pg, query: 'insert', is_exactly_once: true })).toThrow(/is_exactly_once needs xa_data_source_class_name/);
    expect(sink({ ...my, query: 'insert', is_exactly_once: true, xa_data_source_class_name: 'org.postgresql.xa.PGXADataSource' })).toThrow(
      /xa_data_source_class_name 'org.postgresql.xa.PGXADataSource' does not fit url jdbc:mysql:\/\//,
    );
    expect(sink({ ...pg, query: 'insert', data_save_mode: 'DROP_DATA' })).toThrow(
      /data_save_mode applies only when the sink generates its SQL/,
    );
    expect(sink({ ...pg, table: 't', data_save_mode: 'CUSTOM_PROCESSING' })).toThrow(/CUSTOM_PROCESSING needs custom_sql/);
    expect(sink({ ...my, generate_sink_sql: true, table: 't', use_copy_statement: true })).toThrow(/use_copy_statement needs PostgreSQL/);
    expect(sink({ ...pg, table: 't', transaction_timeout_sec: 5 })).toThrow(
      /transaction_timeout_sec needs is_exactly_once or auto_commit = false/,
    );
    const ok = sink({ ...pg, table: 't', is_exactly_once: true, xa_data_source_class_name: 'org.postgresql.xa.PGXADataSource' })();
    expect(ok).toMatchObject({
      exactlyOnce: true,
      autoCommit: false,
      table: 't',
      schemaSaveMode: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
      dataSaveMode: 'APPEND_DATA',
    });
    let code: unknown;
    try {
      sink({ ...pg })();
    } catch (e) {
      code = (e as { code: unknown }).code;
    }
    expect(code).toBe(ErrorCode.CONFIG_MISSING_OPTION);
  });
});
