import { describe, expect, it } from 'vitest';
import type { CatalogTable, Row, Sink } from '@tideway/api';
import { newCatalogTable, optionsOf, parseSchemaConfig } from '@tideway/api';
import { detach, ErrorCode, TidewayError } from '@tideway/common';
import type { AssertCommitInfo } from './assert-writer.js';
import type { AssertAggregatedInfo } from './row-count-committer.js';
import { ASSERT_SINK_SPEC } from './spec.js';
import { assertSinkFactory } from './index.js';

const FULL_FIELDS = {
  c_null: 'null',
  c_string: 'string',
  c_boolean: 'boolean',
  c_tinyint: 'tinyint',
  c_smallint: 'smallint',
  c_int: 'int',
  c_bigint: 'bigint',
  c_float: 'float',
  c_double: 'double',
  c_decimal: 'decimal(30, 8)',
  c_date: 'date',
  c_timestamp: 'timestamp',
  c_time: 'time',
  c_bytes: 'bytes',
  c_array: 'array<int>',
  c_map: 'map<date, string>',
  c_map_nest: 'map<string, {c_int = int, c_string = string}>',
  c_row: { c_int: 'int', c_map: 'map<string, string>' },
};
const FULL = parseSchemaConfig({ table: 'fake', fields: FULL_FIELDS }).table;
const FULL_ROW: Row = {
  kind: '+I',
  tableId: 'fake',
  fields: [
    null,
    'AAA',
    false,
    1,
    1,
    333,
    323232n,
    3.1,
    9.33333,
    '99999.99999999',
    '2012-12-21',
    '2012-12-21T12:34:56',
    '12:34:56',
    Buffer.from('miIZj'),
    [0, 1, 2],
    new Map([['2024-01-26', 'v0']]),
    new Map([['k1', [123, 'BBB-BB']]]),
    [333, new Map([['k0', 'v0']])],
  ],
};
const EQUALS: Record<string, unknown> = {
  c_string: 'AAA',
  c_boolean: false,
  c_tinyint: 1,
  c_smallint: 1,
  c_int: 333,
  c_bigint: 323232,
  c_float: 3.1,
  c_double: 9.33333,
  c_decimal: 99999.99999999,
  c_date: '2012-12-21',
  c_timestamp: '2012-12-21T12:34:56',
  c_time: '12:34:56',
  c_bytes: 'bWlJWmo=',
  c_array: [0, 1, 2],
  c_map: { '2024-01-26': 'v0' },
  c_map_nest: { k1: [123, 'BBB-BB'] },
  c_row: [333, { k0: 'v0' }],
};

function sinkOf(rules: unknown, tables: CatalogTable[] = [FULL]): Sink<AssertCommitInfo, AssertAggregatedInfo> {
  return assertSinkFactory.create({
    jobId: 'j',
    jobMode: 'BATCH',
    parallelism: 2,
    options: optionsOf({ rules }, ASSERT_SINK_SPEC),
    inputTables: tables,
  }) as Sink<AssertCommitInfo, AssertAggregatedInfo>;
}

function writeOne(rules: unknown, row: Row = FULL_ROW, tables?: CatalogTable[]): void {
  detach(sinkOf(rules, tables).createWriter({ subtaskIndex: 0, parallelism: 1 }).write([row]), 'an Assert write');
}

function assertFailure(fn: () => unknown, ...parts: string[]): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TidewayError);
    expect((err as TidewayError).code).toBe(ErrorCode.ASSERT_FAILED);
    for (const p of parts) expect((err as Error).message).toContain(p);
    return;
  }
  throw new Error('expected an Assert failure');
}

const fieldRule = (field_name: string, field_value: unknown[], field_type?: unknown) => ({
  field_rules: [{ field_name, field_type, field_value }],
});

describe('Assert field rules', () => {
  it('the full-types row passes field_type and equals_to for every column', () => {
    const field_rules = Object.entries(FULL_FIELDS).map(([name, type]) => ({
      field_name: name,
      field_type: type,
      field_value: name === 'c_null' ? [{ rule_type: 'NULL' }] : [{ rule_type: 'NOT_NULL', equals_to: EQUALS[name] }],
    }));
    expect(() => writeOne({ field_rules })).not.toThrow();
  });

  it('equals_to fails on a different value, naming the rule, field, table and value', () => {
    assertFailure(() => writeOne(fieldRule('c_int', [{ equals_to: 334 }])), 'equals_to=334', "field 'c_int'", 'table fake', 'value 333');
    assertFailure(() => writeOne(fieldRule('c_map_nest', [{ equals_to: { k1: [124, 'BBB-BB'] } }])), "field 'c_map_nest'");
    assertFailure(() => writeOne(fieldRule('c_decimal', [{ equals_to: '99999.9999999' }])), "field 'c_decimal'");
    assertFailure(() => writeOne(fieldRule('c_bytes', [{ equals_to: 'bWlJWmk=' }])), "field 'c_bytes'");
  });

  it('field_type checks the held value, complex types included; null passes only "null"', () => {
    for (const [field, wrong] of [
      ['c_int', 'bigint'],
      ['c_bigint', 'int'],
      ['c_decimal', 'decimal(30, 2)'],
      ['c_array', 'array<string>'],
      ['c_map', 'map<string, int>'],
      ['c_row', '{c_int = string, c_map = "map<string, string>"}'],
      ['c_timestamp', 'date'],
    ] as const) {
      assertFailure(() => writeOne(fieldRule(field, [], wrong)), `field_type`, `field '${field}'`);
    }
    assertFailure(() => writeOne(fieldRule('c_null', [], 'string')), 'field_type string', "field 'c_null'", 'value null');
    expect(() => writeOne(fieldRule('c_row', [], { c_int: 'int', c_map: 'map<string, string>' }))).not.toThrow();
  });

  it('NULL / NOT_NULL', () => {
    expect(() => writeOne(fieldRule('c_null', [{ rule_type: 'NULL' }]))).not.toThrow();
    assertFailure(() => writeOne(fieldRule('c_null', [{ rule_type: 'NOT_NULL' }])), "'NOT_NULL'", "field 'c_null'");
    assertFailure(() => writeOne(fieldRule('c_int', [{ rule_type: 'NULL' }])), "'NULL'", 'value 333');
  });

  it('MIN / MAX on numbers, bigints and decimals; non-numbers fail', () => {
    expect(() =>
      writeOne(
        fieldRule('c_int', [
          { rule_type: 'MIN', rule_value: 333 },
          { rule_type: 'MAX', rule_value: 333 },
        ]),
      ),
    ).not.toThrow();
    expect(() => writeOne(fieldRule('c_bigint', [{ rule_type: 'MAX', rule_value: 323232 }]))).not.toThrow();
    expect(() => writeOne(fieldRule('c_decimal', [{ rule_type: 'MIN', rule_value: 99999 }]))).not.toThrow();
    assertFailure(
      () => writeOne(fieldRule('c_int', [{ rule_type: 'MIN', rule_value: 334 }])),
      "'MIN rule_value=334'",
      "field 'c_int'",
      'value 333',
    );
    assertFailure(() => writeOne(fieldRule('c_double', [{ rule_type: 'MAX', rule_value: 9 }])), "'MAX rule_value=9'", 'value 9.33333');
    assertFailure(() => writeOne(fieldRule('c_string', [{ rule_type: 'MAX', rule_value: 9 }])), "field 'c_string'");
  });

  it('MIN_LENGTH / MAX_LENGTH', () => {
    expect(() =>
      writeOne(
        fieldRule('c_string', [
          { rule_type: 'MIN_LENGTH', rule_value: 3 },
          { rule_type: 'MAX_LENGTH', rule_value: 3 },
        ]),
      ),
    ).not.toThrow();
    assertFailure(
      () => writeOne(fieldRule('c_string', [{ rule_type: 'MIN_LENGTH', rule_value: 4 }])),
      "'MIN_LENGTH rule_value=4'",
      'value "AAA"',
    );
    assertFailure(() => writeOne(fieldRule('c_string', [{ rule_type: 'MAX_LENGTH', rule_value: 2 }])), "'MAX_LENGTH rule_value=2'");
  });

  it('rejects bad rules when the sink is created', () => {
    expect(() => sinkOf(fieldRule('nope', [{ rule_type: 'NOT_NULL' }]))).toThrow(/field 'nope'.*table fake/);
    expect(() => sinkOf(fieldRule('c_int', [{ rule_type: 'NOT_EMPTY' }]))).toThrow(/NOT_EMPTY/);
    expect(() => sinkOf(fieldRule('c_int', [{ rule_type: 'MIN' }]))).toThrow(/rule_value/);
    expect(() => sinkOf(fieldRule('c_int', [{ equals_to: 'abc' }]))).toThrow(/equals_to.*c_int/);
    expect(() => sinkOf({ rule_ruls: [] })).toThrow(/empty/);
  });

  it('ignores keys SeaTunnel does not read (e.g. the misspelt rule_ruls)', () => {
    expect(() =>
      writeOne({ rule_ruls: [{ rule_type: 'MAX_ROW', rule_value: 0 }], ...fieldRule('c_int', [{ rule_type: 'NOT_NULL' }]) }),
    ).not.toThrow();
  });
});

function runCounts(sink: Sink<AssertCommitInfo, AssertAggregatedInfo>, perWriter: Row[][]): () => void {
  const committer = sink.createAggregatedCommitter!();
  const writers = perWriter.map((_, i) => sink.createWriter({ subtaskIndex: i, parallelism: perWriter.length }));
  perWriter.forEach((rows, i) => detach(writers[i].write(rows), 'an Assert write'));
  const infos = writers.map((w) => w.prepareCommit!(1) as AssertCommitInfo);
  const agg = committer.combine(infos);
  detach(committer.commit([agg]), 'an Assert commit');
  detach(committer.commit([agg]), 'an Assert commit'); // a replayed commit counts nothing twice
  return () => detach(committer.close!(), 'closing the Assert committer');
}

describe('Assert row rules', () => {
  const rows = (n: number, tableId = 'fake'): Row[] => Array.from({ length: n }, () => ({ ...FULL_ROW, tableId }));
  const limits = {
    row_rules: [
      { rule_type: 'MIN_ROW', rule_value: 5 },
      { rule_type: 'MAX_ROW', rule_value: 6 },
    ],
  };

  it('counts rows across all parallel writers', () => {
    expect(runCounts(sinkOf(limits), [rows(3), rows(3)])).not.toThrow();
  });

  it('MAX_ROW and MIN_ROW fail at close with the numbers', () => {
    assertFailure(runCounts(sinkOf(limits), [rows(4), rows(3)]), 'MAX_ROW 6', 'table fake', '7 rows');
    assertFailure(runCounts(sinkOf(limits), [rows(2), rows(2)]), 'MIN_ROW 5', '4 rows');
    assertFailure(runCounts(sinkOf(limits), [[], []]), 'MIN_ROW 5', '0 rows');
  });
});

describe('Assert catalog_table_rule', () => {
  const table = parseSchemaConfig(
    {
      table: 'db.t',
      columns: [
        { name: 'id', type: 'bigint', nullable: false },
        { name: 'name', type: 'string' },
      ],
      primaryKey: { name: 'pk', columnNames: ['id'] },
      constraintKeys: [
        { constraintName: 'uk', constraintType: 'UNIQUE_KEY', constraintColumns: [{ columnName: 'name', sortType: 'ASC' }] },
      ],
    },
    { catalogName: 'FakeSource' },
  ).table;
  const good = {
    primary_key_rule: { primary_key_name: 'pk', primary_key_columns: ['id'] },
    constraint_key_rule: [
      {
        constraint_key_name: 'uk',
        constraint_key_type: 'UNIQUE_KEY',
        constraint_key_columns: [{ constraint_key_column_name: 'name', constraint_key_sort_type: 'ASC' }],
      },
    ],
    column_rule: [
      { name: 'name', type: 'string' },
      { name: 'id', type: 'bigint', nullable: false },
    ],
    table_identifier_rule: { catalog_name: 'FakeSource', table: 'db.t' },
  };

  it('passes when the input table matches', () => {
    expect(() => sinkOf({ catalog_table_rule: good }, [table])).not.toThrow();
  });

  it('fails on each difference, naming it', () => {
    assertFailure(
      () => sinkOf({ catalog_table_rule: { primary_key_rule: { primary_key_name: 'pk2', primary_key_columns: ['id'] } } }, [table]),
      'primaryKey: pk is not equal to pk2',
    );
    assertFailure(
      () => sinkOf({ catalog_table_rule: { primary_key_rule: { primary_key_name: 'pk', primary_key_columns: ['name'] } } }, [table]),
      'primaryKey columns',
    );
    assertFailure(
      () =>
        sinkOf({ catalog_table_rule: { constraint_key_rule: [{ ...good.constraint_key_rule[0], constraint_key_type: 'INDEX_KEY' }] } }, [
          table,
        ]),
      'constraintKeys',
    );
    assertFailure(
      () =>
        sinkOf(
          {
            catalog_table_rule: {
              column_rule: [
                { name: 'id', type: 'bigint' },
                { name: 'name', type: 'string' },
              ],
            },
          },
          [table],
        ),
      'columns:',
      'nullable=false',
    );
    assertFailure(
      () => sinkOf({ catalog_table_rule: { table_identifier_rule: { catalog_name: 'FakeSource', table: 'db.x' } } }, [table]),
      'tableIdentifier',
    );
    assertFailure(() => sinkOf({ catalog_table_rule: good }, [FULL]), 'primaryKey is null');
  });
});

describe('Assert multi-table', () => {
  const t1 = newCatalogTable({ database: 'test', table: 'table1' }, [{ name: 'c_int', type: { kind: 'int' }, nullable: true }]);
  const t2 = newCatalogTable({ database: 'test', table: 'table2' }, [{ name: 'c_string', type: { kind: 'string' }, nullable: true }]);
  const rules = {
    tables_configs: [
      {
        table_path: 'test.table1',
        row_rules: [{ rule_type: 'MIN_ROW', rule_value: 2 }],
        field_rules: [{ field_name: 'c_int', field_type: 'int', field_value: [{ rule_type: 'MIN', rule_value: 10 }] }],
      },
      {
        table_path: 'test.table2',
        row_rules: [{ rule_type: 'MAX_ROW', rule_value: 1 }],
        field_rules: [{ field_name: 'c_string', field_type: 'string', field_value: [{ rule_type: 'NOT_NULL' }] }],
      },
    ],
  };
  const r1 = (v: number): Row => ({ kind: '+I', tableId: 'test.table1', fields: [v] });
  const r2 = (v: string | null): Row => ({ kind: '+I', tableId: 'test.table2', fields: [v] });

  it('applies each table_path its own field and row rules', () => {
    expect(runCounts(sinkOf(rules, [t1, t2]), [[r1(10), r2('a')], [r1(11)]])).not.toThrow();
    assertFailure(
      runCounts(sinkOf(rules, [t1, t2]), [
        [r1(10), r2('a')],
        [r2('b'), r1(11)],
      ]),
      'MAX_ROW 1',
      'table test.table2',
      '2 rows',
    );
    assertFailure(runCounts(sinkOf(rules, [t1, t2]), [[r1(10)], [r2('b')]]), 'MIN_ROW 2', 'table test.table1', '1 rows');
    assertFailure(() => writeOne(rules, r2(null), [t1, t2]), "'field_type string'", 'table test.table2');
    assertFailure(() => writeOne(rules, r1(9), [t1, t2]), "'MIN rule_value=10'", 'table test.table1', 'value 9');
  });

  it('rules without tables_configs apply to every input table', () => {
    const any = { row_rules: [{ rule_type: 'MIN_ROW', rule_value: 1 }] };
    expect(runCounts(sinkOf(any, [t1, t2]), [[r1(1), r2('x')]])).not.toThrow();
    assertFailure(runCounts(sinkOf(any, [t1, t2]), [[r1(1)]]), 'table test.table2', '0 rows');
  });

  it('table-names must equal the tables seen in the data', () => {
    expect(runCounts(sinkOf({ 'table-names': ['test.table1', 'test.table2'] }, [t1, t2]), [[r1(1)], [r2('x')]])).not.toThrow();
    assertFailure(runCounts(sinkOf({ 'table-names': ['test.table1', 'test.table2'] }, [t1, t2]), [[r1(1)]]), 'table-names', 'test.table1');
  });
});
