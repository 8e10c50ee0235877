import { describe, expect, it } from 'vitest';
import { newCatalogTable, Types } from '@tideway/api';
import { parseDdl } from './mysql-ddl.js';
import { applyDdl, type MySqlSchemaRecord } from './mysql-schema.js';

const place = { plugin: 'MySQL-CDC' };

function record(): MySqlSchemaRecord {
  const catalog = newCatalogTable(
    { database: 'shop', table: 'products' },
    [
      { name: 'id', type: Types.INT, nullable: false },
      { name: 'name', type: Types.STRING, nullable: false },
      { name: 'weight', type: Types.FLOAT, nullable: true },
    ],
    { primaryKey: { name: 'PRIMARY', columns: ['id'] } },
  );
  return {
    tables: [
      {
        database: 'shop',
        table: 'products',
        defaultCharset: 'latin1',
        columns: [
          { name: 'id', columnType: 'int(11)', charset: null, collation: null },
          { name: 'name', columnType: 'varchar(255)', charset: 'utf8mb4', collation: null },
          { name: 'weight', columnType: 'float', charset: null, collation: null },
        ],
        catalog,
      },
    ],
  };
}

describe('parseDdl', () => {
  it('reads ADD COLUMN definitions with defaults, positions and several clauses', () => {
    const p = parseDdl(
      "alter table products ADD COLUMN c1 varchar(64) not null default 'yy',ADD c2 int unsigned DEFAULT 1 COMMENT 'x' AFTER id, add column c3 timestamp not null default current_timestamp() first",
    );
    expect(p).toEqual({
      kind: 'alter',
      table: 'products',
      changes: [
        { kind: 'add', column: { name: 'c1', type: 'varchar(64)', nullable: false, primaryKey: false, defaultExpression: "'yy'" } },
        {
          kind: 'add',
          column: { name: 'c2', type: 'int unsigned', nullable: true, primaryKey: false, defaultExpression: '1', comment: 'x' },
          after: 'id',
        },
        {
          kind: 'add',
          column: { name: 'c3', type: 'timestamp', nullable: false, primaryKey: false, defaultExpression: 'current_timestamp()' },
          first: true,
        },
      ],
    });
  });

  it('reads DROP, RENAME, CHANGE, MODIFY and ALTER COLUMN, and skips index and table-option clauses', () => {
    const p = parseDdl(
      "ALTER TABLE `shop`.`products` DROP COLUMN a, drop b, ADD INDEX ix (c), RENAME COLUMN c TO d, CHANGE e f int default 1 not null, MODIFY name LONGTEXT DEFAULT 'SeaTunnel' NOT NULL, ALTER COLUMN g SET DEFAULT 5, ENGINE=InnoDB",
    );
    expect(p.kind).toBe('alter');
    if (p.kind !== 'alter') return;
    expect(p.database).toBe('shop');
    expect(p.changes.map((c) => c.kind)).toEqual(['drop', 'drop', 'rename', 'change', 'change', 'default']);
    expect(p.changes[4]).toEqual({
      kind: 'change',
      from: 'name',
      column: { name: 'name', type: 'longtext', nullable: false, primaryKey: false, defaultExpression: "'SeaTunnel'" },
    });
  });

  it('names the tables of statements it does not follow, and ignores statements about no table', () => {
    expect(parseDdl('TRUNCATE TABLE shop.products')).toEqual({
      kind: 'other-table',
      tables: [{ database: 'shop', table: 'products' }],
      what: 'TRUNCATE TABLE',
    });
    expect(parseDdl('RENAME TABLE a TO b').kind).toBe('other-table');
    expect(parseDdl("GRANT ALL ON *.* TO 'x'@'%'")).toEqual({ kind: 'none' });
    const convert = parseDdl('alter table t convert to character set utf8mb4');
    expect(convert.kind === 'alter' ? convert.unsupported : undefined).toContain('CONVERT');
  });
});

describe('applyDdl', () => {
  it('turns a statement into schema-change events and a new record', () => {
    const out = applyDdl(
      record(),
      "alter table products add column c1 varchar(64) not null default 'yy', change weight w double",
      'shop',
      true,
      true,
      place,
    )!;
    expect(out.events).toHaveLength(1);
    const e = out.events[0];
    expect(e.changes.map((c) => c.kind)).toEqual(['add', 'rename', 'modify']);
    expect(e.table.columns.map((c) => `${c.name}:${c.type.kind}`)).toEqual(['id:int', 'name:string', 'w:double', 'c1:string']);
    const t = out.record.tables[0];
    expect(t.columns.map((c) => [c.name, c.columnType, c.charset])).toEqual([
      ['id', 'int(11)', null],
      ['name', 'varchar(255)', 'utf8mb4'],
      ['w', 'double', null],
      ['c1', 'varchar(64)', 'latin1'],
    ]);
  });

  it('a rename by CHANGE with the same definition is a rename only', () => {
    const out = applyDdl(record(), 'alter table products change weight w float', 'shop', true, true, place)!;
    expect(out.events[0].changes).toEqual([{ kind: 'rename', from: 'weight', to: 'w' }]);
  });

  it('ignores other tables and index-only changes; refuses column changes when schema changes are off', () => {
    expect(applyDdl(record(), 'alter table other add column x int', 'shop', true, true, place)).toBeUndefined();
    expect(applyDdl(record(), 'alter table products add index ix (name)', 'shop', false, true, place)).toBeUndefined();
    expect(() => applyDdl(record(), 'alter table products add column x int', 'shop', false, true, place)).toThrow(
      /table shop\.products changed .*schema-changes\.enabled = true/,
    );
    expect(() => applyDdl(record(), 'truncate table products', 'shop', true, true, place)).toThrow(
      /table shop\.products: TRUNCATE TABLE is not supported/,
    );
  });
});
