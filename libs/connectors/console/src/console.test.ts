import { describe, expect, it } from 'vitest';
import type { CatalogTable, PluginContext } from '@tideway/api';
import { newCatalogTable, optionsOf, parseDataType } from '@tideway/api';
import { ConsoleSinkWriter } from './console-writer.js';
import { fieldFormatter } from './field-format.js';
import { javaDecimal, javaDouble, javaFloat, javaTime, javaTimestamp, javaTimestampTz } from './java-text.js';
import { CONSOLE_SINK_SPEC } from './spec.js';
import { consoleSinkFactory } from './index.js';

class Recorder {
  readonly writes: string[] = [];
  write(text: string): void {
    this.writes.push(text);
  }
}

const table = (id: string, cols: Record<string, string>): CatalogTable =>
  newCatalogTable(
    { table: id },
    Object.entries(cols).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true })),
  );

const fmt = (type: string, v: unknown): string | null => fieldFormatter(parseDataType(type))(v);

describe('Java value text', () => {
  it('prints doubles and floats as Double/Float.toString', () => {
    expect([1, 3.1, 100, 1e7, 1.5e21, 0.001, 0.0001, -0, 123456.789].map(javaDouble)).toEqual([
      '1.0',
      '3.1',
      '100.0',
      '1.0E7',
      '1.5E21',
      '0.001',
      '1.0E-4',
      '-0.0',
      '123456.789',
    ]);
    expect(javaFloat(3.1)).toBe('3.1');
    expect(javaFloat(40.123456789)).toBe('40.123455');
    expect(javaFloat(3.4028234663852886e38)).toBe('3.4028235E38');
  });

  it('prints decimals, times and timestamps as BigDecimal/LocalTime/LocalDateTime/OffsetDateTime', () => {
    expect(javaDecimal('99999.99999999')).toBe('99999.99999999');
    expect(javaDecimal('0.00000001')).toBe('1E-8');
    expect(javaDecimal('-0.0000123')).toBe('-0.0000123');
    expect(javaTime('12:34:00')).toBe('12:34');
    expect(javaTime('12:34:56')).toBe('12:34:56');
    expect(javaTime('12:34:56.5')).toBe('12:34:56.500');
    expect(javaTime('00:00:00.000123')).toBe('00:00:00.000123');
    expect(javaTimestamp('2012-12-21T12:34:56')).toBe('2012-12-21T12:34:56');
    expect(javaTimestamp('2012-12-21T12:34:00')).toBe('2012-12-21T12:34');
    expect(javaTimestampTz('2024-01-02T03:04:05.123+00:00')).toBe('2024-01-02T03:04:05.123Z');
    expect(javaTimestampTz('2024-01-02T03:04:05+08:00')).toBe('2024-01-02T03:04:05+08:00');
  });
});

describe('Console field format', () => {
  it('formats each type as ConsoleSinkWriter.fieldToString', () => {
    expect(fmt('string', 'AAA')).toBe('AAA');
    expect(fmt('boolean', false)).toBe('false');
    expect(fmt('bigint', 323232n)).toBe('323232');
    expect(fmt('float', 3.1)).toBe('3.1');
    expect(fmt('double', 9)).toBe('9.0');
    expect(fmt('decimal(30, 8)', '99999.99999999')).toBe('99999.99999999');
    expect(fmt('bytes', Buffer.from([98, 255]))).toBe('[98, -1]');
    expect(fmt('date', '2012-12-21')).toBe('2012-12-21');
    expect(fmt('array<int>', [0, 1, null])).toBe('[0, 1, null]');
    expect(fmt('array<double>', [1, 2.5])).toBe('[1.0, 2.5]');
    expect(fmt('map<date, string>', new Map([['2024-01-26', 'v0']]))).toBe('{"2024-01-26":"v0"}');
    expect(fmt('map<string, date>', new Map([['k', '2024-01-26']]))).toBe('{"k":[2024,1,26]}');
    expect(fmt('map<int, timestamp>', new Map([[1, '2012-12-21T12:34:56']]))).toBe('{"1":[2012,12,21,12,34,56]}');
    expect(fmt('map<string, bytes>', new Map([['b', Buffer.from('miIZj')]]))).toBe('{"b":"bWlJWmo="}');
    expect(fmt('map<string, row<a int, b string>>', new Map([['k1', [123, 'BBB-BB']]]))).toBe('{"k1":[123,"BBB-BB"]}');
    expect(fmt('row<a int, b string, c array<int>, d double>', [1, null, [2], 1])).toBe('[1, null, [2], 1.0]');
    expect(fmt('int', null)).toBeNull();
  });
});

describe('Console writer', () => {
  const t = table('fake.table1', { id: 'bigint', name: 'string', score: 'int' });

  it("writes SeaTunnel's line per row, one write per batch, null fields empty", async () => {
    const out = new Recorder();
    const w = new ConsoleSinkWriter(2, [t], true, 0, out);
    await w.write([
      { kind: '+I', tableId: 'fake.table1', fields: [1n, 'A', 100] },
      { kind: '-U', tableId: 'fake.table1', fields: [1n, null, 100] },
    ]);
    await w.write([{ kind: '-D', tableId: 'fake.table1', fields: [2n, 'B', 100] }]);
    expect(out.writes).toEqual([
      'subtaskIndex=2  rowIndex=1:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=INSERT : 1, A, 100\n' +
        'subtaskIndex=2  rowIndex=2:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_BEFORE : 1, , 100\n',
      'subtaskIndex=2  rowIndex=3:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=DELETE : 2, B, 100\n',
    ]);
  });

  it('formats each row by its own table in a multi-table stream', async () => {
    const out = new Recorder();
    const t2 = table('fake.public.table2', { d: 'double' });
    await new ConsoleSinkWriter(0, [t, t2], true, 0, out).write([
      { kind: '+I', tableId: 'fake.public.table2', fields: [1] },
      { kind: '+U', tableId: 'fake.table1', fields: [1n, 'A', 300] },
    ]);
    expect(out.writes[0]).toBe(
      'subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake.public.table2 SeaTunnelRow#kind=INSERT : 1.0\n' +
        'subtaskIndex=0  rowIndex=2:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_AFTER : 1, A, 300\n',
    );
  });

  it('log.print.data = false prints nothing', async () => {
    const out = new Recorder();
    await new ConsoleSinkWriter(0, [t], false, 0, out).write([{ kind: '+I', tableId: 'fake.table1', fields: [1n, 'A', 1] }]);
    expect(out.writes).toEqual([]);
  });

  it('log.print.delay.ms waits after each row', async () => {
    const out = new Recorder();
    const w = new ConsoleSinkWriter(0, [t], true, 30, out);
    const start = Date.now();
    await w.write([
      { kind: '+I', tableId: 'fake.table1', fields: [1n, 'A', 1] },
      { kind: '+I', tableId: 'fake.table1', fields: [2n, 'B', 2] },
    ]);
    expect(Date.now() - start).toBeGreaterThanOrEqual(55);
    expect(out.writes).toHaveLength(2);
  });

  it('the factory reads its options and the input tables', () => {
    const ctx: PluginContext = {
      jobId: 'j',
      jobMode: 'BATCH',
      parallelism: 1,
      options: optionsOf({}, CONSOLE_SINK_SPEC),
      inputTables: [t],
    };
    expect(consoleSinkFactory.spec.options.map((o) => o.name)).toEqual(expect.arrayContaining(['log.print.data', 'log.print.delay.ms']));
    const writer = consoleSinkFactory.create(ctx).createWriter({ subtaskIndex: 0, parallelism: 1 });
    expect(writer).toBeInstanceOf(ConsoleSinkWriter);
  });
});
