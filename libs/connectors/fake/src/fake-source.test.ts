import { describe, expect, it } from 'vitest';
import { formatType } from '@tideway/api';
import { TidewayError } from '@tideway/common';
import { discoverSplits } from './splits.js';
import { FakeSourceReader, FAKE_BATCH_ROWS } from './reader.js';
import { randomLetters } from './value-generators.js';
import { fakeSourceOf, ListCollector, RecordingEnumeratorContext, RecordingReaderContext, runBounded } from './test-harness.js';

const ALL_TYPES = {
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
  c_bytes: 'bytes',
  c_date: 'date',
  c_time: 'time',
  c_timestamp: 'timestamp',
  c_array: 'array<int>',
  c_map: 'map<string, array<int>>',
  c_map_nest: 'map<string, {c_int = int, c_string = string}>',
  c_row: { c_int: 'int', c_inner: { c_s: 'string' } },
};

describe('FakeSource schema', () => {
  it('parses every type, nested rows given as objects and as {..} inside generics', () => {
    const [t] = fakeSourceOf({ schema: { fields: ALL_TYPES } }).catalogTables();
    expect(t.tableId).toBe('default.default.default');
    expect(t.columns.map((c) => formatType(c.type))).toEqual([
      'null',
      'string',
      'boolean',
      'tinyint',
      'smallint',
      'int',
      'bigint',
      'float',
      'double',
      'decimal(30, 8)',
      'bytes',
      'date',
      'time',
      'timestamp',
      'array<int>',
      'map<string, array<int>>',
      'map<string, row<c_int int, c_string string>>',
      'row<c_int int, c_inner row<c_s string>>',
    ]);
  });

  it('reads columns, table, primaryKey and constraintKeys; falls back to plugin_output for the name', () => {
    const schema = {
      table: 'db.tbl',
      columns: [
        { name: 'id', type: 'bigint', nullable: false, comment: 'pk' },
        { name: 'name', type: 'string', columnLength: 3 },
      ],
      primaryKey: { name: 'pk_id', columnNames: ['id'] },
      constraintKeys: [
        { constraintName: 'uk', constraintType: 'UNIQUE_KEY', constraintColumns: [{ columnName: 'name', sortType: 'ASC' }] },
      ],
    };
    const [t] = fakeSourceOf({ schema }).catalogTables();
    expect(t).toMatchObject({
      tableId: 'db.tbl',
      catalogName: 'FakeSource',
      primaryKey: { name: 'pk_id', columns: ['id'] },
      constraintKeys: [{ name: 'uk', type: 'UNIQUE_KEY', columns: ['name'] }],
    });
    expect(t.columns[0]).toMatchObject({ name: 'id', nullable: false, comment: 'pk' });
    const [rows] = runBounded(fakeSourceOf({ schema, 'row.num': 3 }), 1);
    for (const r of rows) expect((r.fields[1] as string).length).toBe(3);
    expect(fakeSourceOf({ schema: { fields: { a: 'int' } }, plugin_output: 'fake' }).catalogTables()[0].tableId).toBe('fake');
  });

  it('rejects a bad type naming the field', () => {
    expect(() => fakeSourceOf({ schema: { fields: { a: 'integr' } } })).toThrow(/field 'a'.*unknown type 'integr'/);
  });
});

describe('FakeSource random values', () => {
  it('makes strings of any string.length, short and past what one call can take as arguments', () => {
    for (const length of [0, 5, 8192, 8193, 2_000_000]) {
      const next = randomLetters(length);
      const a = next();
      expect(a).toHaveLength(length);
      expect(a).toMatch(/^[A-Za-z]*$/);
      if (length > 100) expect(next()).not.toBe(a);
    }
  });

  it('generates values of every type, held as types.ts says', () => {
    const [rows] = runBounded(fakeSourceOf({ schema: { fields: ALL_TYPES }, 'row.num': 200 }), 1);
    expect(rows).toHaveLength(200);
    const year = new Date().getFullYear();
    for (const { kind, tableId, fields: f } of rows) {
      expect(kind).toBe('+I');
      expect(tableId).toBe('default.default.default');
      expect(f[0]).toBeNull();
      expect(f[1]).toMatch(/^[A-Za-z]{5}$/);
      expect(typeof f[2]).toBe('boolean');
      for (const [i, max] of [
        [3, 127],
        [4, 32767],
        [5, 2147483647],
      ] as const) {
        expect(Number.isInteger(f[i])).toBe(true);
        expect(f[i] as number).toBeGreaterThanOrEqual(0);
        expect(f[i] as number).toBeLessThan(max);
      }
      expect(typeof f[6]).toBe('bigint');
      expect(typeof f[7]).toBe('number');
      expect(typeof f[8]).toBe('number');
      expect(f[9]).toMatch(/^(0|[1-9]\d{0,21})\.\d{8}$/);
      expect(f[10]).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(f[10] as Uint8Array).toString()).toMatch(/^[A-Za-z]{5}$/);
      expect(f[11]).toMatch(new RegExp(`^${year}-(0[1-9]|1[0-2])-(0[1-9]|1\\d|2[0-8])$`));
      expect(f[12]).toMatch(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
      expect(f[13]).toMatch(new RegExp(`^${year}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d$`));
      expect(f[14]).toHaveLength(5);
      expect(f[15]).toBeInstanceOf(Map);
      const nest = f[16] as Map<string, unknown[]>;
      for (const v of nest.values()) expect(v).toEqual([expect.any(Number), expect.stringMatching(/^[A-Za-z]{5}$/)]);
      expect(f[17]).toEqual([expect.any(Number), [expect.stringMatching(/^[A-Za-z]{5}$/)]]);
    }
  });

  it('honours map.size, array.size, bytes.length, string.length', () => {
    const [rows] = runBounded(
      fakeSourceOf({
        schema: { fields: { m: 'map<int, int>', a: 'array<string>', b: 'bytes', s: 'string' } },
        'map.size': 1,
        'array.size': 7,
        'bytes.length': 2,
        'string.length': 11,
      }),
      1,
    );
    for (const r of rows) {
      expect((r.fields[0] as Map<unknown, unknown>).size).toBe(1);
      expect(r.fields[1]).toHaveLength(7);
      expect(r.fields[2]).toHaveLength(2);
      expect(r.fields[3]).toHaveLength(11);
    }
  });

  it('range mode keeps every numeric type in [min, max)', () => {
    const opts = {
      schema: { fields: { t: 'tinyint', s: 'smallint', i: 'int', b: 'bigint', f: 'float', d: 'double' } },
      'row.num': 500,
      'tinyint.min': 1,
      'tinyint.max': 9,
      'smallint.min': 10,
      'smallint.max': 19,
      'int.min': 20,
      'int.max': 29,
      'bigint.min': 30,
      'bigint.max': 39,
      'float.min': 40,
      'float.max': 43,
      'double.min': 44,
      'double.max': 47,
    };
    const [rows] = runBounded(fakeSourceOf(opts), 1);
    const lo = [1, 10, 20, 30n, 40, 44];
    const hi = [9, 19, 29, 39n, 43, 47];
    for (const r of rows)
      r.fields.forEach((v, i) => {
        expect((v as number | bigint) >= lo[i] && (v as number | bigint) < hi[i]).toBe(true);
      });
    expect(new Set(rows.map((r) => r.fields[0])).size).toBeGreaterThan(3);
  });

  it('rejects a min outside the range SeaTunnel allows', () => {
    expect(() =>
      fakeSourceOf({ schema: { fields: { a: 'int' } }, tables_configs: [{ int: { min: -1 }, schema: { fields: { a: 'int' } } }] }),
    ).toThrow(/int\.min/);
    expect(() => fakeSourceOf({ schema: { fields: { a: 'int' } }, 'int.min': 10, 'int.max': 5 })).toThrow(/int\.min.*larger/);
  });

  it('template mode picks from the lists (also without fake.mode, as SeaTunnel)', () => {
    const opts = {
      schema: { fields: { s: 'string', t: 'tinyint', i: 'int', b: 'bigint', d: 'double' } },
      'row.num': 300,
      'string.fake.mode': 'template',
      'string.template': ['tyrantlucifer', 'hailin', 'kris'],
      'tinyint.fake.mode': 'template',
      'tinyint.template': [1, 2, 3],
      'int.template': [20, 21],
      'bigint.fake.mode': 'template',
      'bigint.template': [30, 31],
      'double.fake.mode': 'template',
      'double.template': [44.5],
    };
    const [rows] = runBounded(fakeSourceOf(opts), 1);
    expect(new Set(rows.map((r) => r.fields[0]))).toEqual(new Set(['tyrantlucifer', 'hailin', 'kris']));
    expect(new Set(rows.map((r) => r.fields[1]))).toEqual(new Set([1, 2, 3]));
    expect(new Set(rows.map((r) => r.fields[2]))).toEqual(new Set([20, 21]));
    expect(new Set(rows.map((r) => r.fields[3]))).toEqual(new Set([30n, 31n]));
    expect(new Set(rows.map((r) => r.fields[4]))).toEqual(new Set([44.5]));
  });

  it('template mode without a template list is a config error', () => {
    expect(() => fakeSourceOf({ schema: { fields: { a: 'int' } }, 'int.fake.mode': 'template' })).toThrow(/int\.template/);
  });

  it('date and time templates drive date, time and timestamp values', () => {
    const opts = {
      schema: { fields: { d: 'date', t: 'time', ts: 'timestamp' } },
      'row.num': 50,
      'date.year.template': [2020],
      'date.month.template': [2],
      'date.day.template': [29, 3],
      'time.hour.template': [7],
      'time.minute.template': [5],
      'time.second.template': [9],
    };
    const [rows] = runBounded(fakeSourceOf(opts), 1);
    for (const r of rows) {
      expect(['2020-02-29', '2020-02-03']).toContain(r.fields[0]);
      expect(r.fields[1]).toBe('07:05:09');
      expect(r.fields[2]).toMatch(/^2020-02-(29|03)T07:05:09$/);
    }
  });

  it('columns with defaultValue yield it; CURRENT_DATE is today', () => {
    const today = new Date();
    const iso = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    const [rows] = runBounded(
      fakeSourceOf({
        schema: {
          columns: [
            { name: 'ts', type: 'timestamp', defaultValue: '2024-09-12 15:45:30' },
            { name: 'd', type: 'date', defaultValue: 'CURRENT_DATE' },
            { name: 'n', type: 'int', defaultValue: 0 },
          ],
        },
      }),
      1,
    );
    expect(rows[0].fields).toEqual(['2024-09-12T15:45:30', iso, 0]);
  });
});

describe('FakeSource explicit rows', () => {
  const schema = { fields: { id: 'bigint', name: 'string', m: 'map<date, string>', r: { a: 'int', b: 'bytes' }, d: 'decimal(10, 2)' } };
  const rows = [
    { kind: 'INSERT', fields: [1, 'A', { '2024-01-26': 'v0' }, [5, 'bWlJWmo='], 99.5] },
    { kind: 'UPDATE_BEFORE', fields: { id: 2, name: 'B' } },
    { kind: 'DELETE', fields: [3, null, null, null, '1.25'] },
  ];

  it('emits the rows with their kinds and typed values; each split emits them all', () => {
    const [out] = runBounded(fakeSourceOf({ schema, rows, 'split.num': 2, 'row.num': 2 }), 1);
    expect(out).toHaveLength(6);
    expect(out.map((r) => r.kind)).toEqual(['+I', '-U', '-D', '+I', '-U', '-D']);
    const f = out[0].fields;
    expect(f[0]).toBe(1n);
    expect(f[2]).toEqual(new Map([['2024-01-26', 'v0']]));
    expect((f[3] as unknown[])[0]).toBe(5);
    expect(Buffer.from((f[3] as Uint8Array[])[1]).toString()).toBe('miIZj');
    expect(f[4]).toBe('99.5');
    expect(out[1].fields).toEqual([2n, 'B', null, null, null]);
    expect(out[3].fields).not.toBe(f);
  });

  it('rejects a value that does not fit its column, naming the row and field', () => {
    expect(() => fakeSourceOf({ schema, rows: [{ kind: 'INSERT', fields: ['x'] }] })).toThrow(/rows\[0\]\.fields\.id/);
    expect(() => fakeSourceOf({ schema, rows: [{ kind: 'UPSERT', fields: [] }] })).toThrow(/UPSERT/);
  });
});

describe('FakeSource splits and parallelism', () => {
  it('cuts row.num per reader into split.num splits owned by index % parallelism', () => {
    const [cfg] = fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 10, 'split.num': 3 }).tables;
    const splits = discoverSplits([cfg], 2);
    expect(splits.map((s) => [s.index, s.rowNum])).toEqual([
      [0, 4],
      [2, 4],
      [4, 2],
      [1, 4],
      [3, 4],
      [5, 2],
    ]);
  });

  it('emits row.num rows per reader; every reader ends', () => {
    const out = runBounded(fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 10, 'split.num': 3 }, 3), 3);
    expect(out.map((r) => r.length)).toEqual([10, 10, 10]);
  });

  it('a reader with no splits (row.num = 0) still ends', () => {
    expect(runBounded(fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 0 }), 1)).toEqual([[]]);
  });

  it('emits large splits in batches and resumes a checkpointed split after the rows already emitted', () => {
    const source = fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 10_000 });
    const ectx = new RecordingEnumeratorContext(1);
    const en = source.createEnumerator(ectx);
    en.run();
    const r1 = new RecordingReaderContext(0, 1);
    const reader = source.createReader(r1);
    reader.addSplits(ectx.assigned.get(0)!);
    reader.handleNoMoreSplits();
    const out = new ListCollector();
    void reader.pollNext(out);
    expect(out.rows).toHaveLength(FAKE_BATCH_ROWS);
    const state = reader.snapshotState(1);
    expect(state).toEqual([expect.objectContaining({ emitted: FAKE_BATCH_ROWS, rowNum: 10_000 })]);
    const enumState = en.snapshotState(1);

    // Restore: the enumerator does not hand the split out again; the reader gets it back from its state.
    const ectx2 = new RecordingEnumeratorContext(1);
    const en2 = source.createEnumerator(ectx2, enumState);
    en2.run();
    expect(ectx2.assigned.size).toBe(0);
    expect(ectx2.noMoreSplits.has(0)).toBe(true);
    const r2 = new RecordingReaderContext(0, 1);
    const restored = source.createReader(r2);
    restored.addSplits(state);
    restored.handleNoMoreSplits();
    const rest = new ListCollector();
    while (!r2.ended) void restored.pollNext(rest);
    expect(rest.rows).toHaveLength(10_000 - FAKE_BATCH_ROWS);
    expect(rest.batches).toBe(2);
  });

  it('splits handed back are assigned again when their reader registers', () => {
    const source = fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 4, 'split.num': 2 }, 2);
    const ectx = new RecordingEnumeratorContext(2, []);
    const en = source.createEnumerator(ectx);
    en.run();
    en.registerReader(1);
    const given = ectx.assigned.get(1)!;
    expect(given.map((s) => s.index)).toEqual([1, 3]);
    en.addSplitsBack(given, 1);
    expect(en.snapshotState(2).assigned).toEqual([]);
    en.registerReader(1);
    expect(ectx.assigned.get(1)!.map((s) => s.index)).toEqual([1, 3, 1, 3]);
  });

  it('waits split.read-interval between two splits', () => {
    const [cfg] = fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 2, 'split.num': 2, 'split.read-interval': 1000 }).tables;
    let now = 10_000;
    const ctx = new RecordingReaderContext(0, 1);
    const reader = new FakeSourceReader(ctx, [cfg], undefined, () => now);
    reader.addSplits(discoverSplits([cfg], 1));
    reader.handleNoMoreSplits();
    const out = new ListCollector();
    reader.pollNext(out);
    reader.pollNext(out);
    expect(out.rows).toHaveLength(1);
    now += 1000;
    reader.pollNext(out);
    expect(out.rows).toHaveLength(2);
    expect(ctx.ended).toBe(true);
  });

  it('STREAMING: emits its rows, then keeps running without signalling the end', () => {
    const source = fakeSourceOf({ schema: { fields: { a: 'int' } }, 'row.num': 3 }, 1, 'STREAMING');
    expect(source.boundedness()).toBe('UNBOUNDED');
    const ctx = new RecordingReaderContext(0, 1, 'UNBOUNDED');
    const reader = source.createReader(ctx);
    const ectx = new RecordingEnumeratorContext(1);
    source.createEnumerator(ectx).run();
    reader.addSplits(ectx.assigned.get(0)!);
    reader.handleNoMoreSplits();
    const out = new ListCollector();
    for (let i = 0; i < 10; i++) reader.pollNext(out);
    expect(out.rows).toHaveLength(3);
    expect(ctx.ended).toBe(false);
  });
});

describe('FakeSource multi-table', () => {
  it('tables_configs: one table per item with its own options', () => {
    const source = fakeSourceOf({
      tables_configs: [
        { row: { num: 16 }, schema: { table: 'test.table1', fields: { c_int: 'int' } } },
        { row: { num: 17 }, 'int.template': [7], schema: { table: 'test.table2', fields: { c_int: 'int' } } },
      ],
    });
    expect(source.catalogTables().map((t) => t.tableId)).toEqual(['test.table1', 'test.table2']);
    const [rows] = runBounded(source, 1);
    const t2 = rows.filter((r) => r.tableId === 'test.table2');
    expect(rows.filter((r) => r.tableId === 'test.table1')).toHaveLength(16);
    expect(t2).toHaveLength(17);
    expect(new Set(t2.map((r) => r.fields[0]))).toEqual(new Set([7]));
  });

  it('rejects duplicate table names and unknown options in items', () => {
    const item = { schema: { table: 't', fields: { a: 'int' } } };
    expect(() => fakeSourceOf({ tables_configs: [item, item] })).toThrow(/unique/);
    expect(() => fakeSourceOf({ tables_configs: [{ ...item, row: { nmu: 1 } }] })).toThrow(TidewayError);
    expect(() => fakeSourceOf({ tables_configs: [{ ...item, row: { nmu: 1 } }] })).toThrow(/row\.nmu/);
  });
});
