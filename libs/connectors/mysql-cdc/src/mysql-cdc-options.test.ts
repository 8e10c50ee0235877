import { optionsOf } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { compileMySqlCdcOptions, MYSQL_CDC_SPEC } from './mysql-cdc-options.js';

const options = (extra: Record<string, unknown>) =>
  optionsOf(
    { 'base-url': 'jdbc:mysql://127.0.0.1:3306/db', username: 'u', password: 'p', 'table-names': ['db.t'], ...extra },
    MYSQL_CDC_SPEC,
  );

describe("MySQL-CDC's catalog option (SeaTunnel's deprecated catalog { factory = Mysql })", () => {
  it('takes factory = Mysql, in any case', () => {
    expect(() => compileMySqlCdcOptions(options({ catalog: { factory: 'Mysql' } }))).not.toThrow();
    expect(() => compileMySqlCdcOptions(options({ catalog: { factory: 'MySQL' } }))).not.toThrow();
  });

  it('refuses another factory or key by name', () => {
    expect(() => compileMySqlCdcOptions(options({ catalog: { factory: 'Postgres' } }))).toThrow(
      'catalog factory = Postgres is not supported: MySQL-CDC reads its tables from MySQL (factory = Mysql)',
    );
    expect(() => compileMySqlCdcOptions(options({ catalog: { factory: 'Mysql', url: 'x' } }))).toThrow(
      "catalog key 'url' is not supported (only factory = Mysql)",
    );
  });
});
