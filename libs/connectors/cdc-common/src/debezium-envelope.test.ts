import type { CatalogTable } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { COMPATIBLE_DEBEZIUM_TABLE, DebeziumEnvelope, envelopeOptions } from './debezium-envelope.js';

const table: CatalogTable = {
  tableId: 'shop.orders',
  path: { database: 'shop', table: 'orders' },
  primaryKey: { name: 'PRIMARY', columns: ['id'] },
  columns: [
    { name: 'id', type: { kind: 'bigint' }, nullable: false },
    { name: 'price', type: { kind: 'decimal', precision: 10, scale: 2 }, nullable: true },
    { name: 'day', type: { kind: 'date' }, nullable: true },
    { name: 'at', type: { kind: 'timestamp' }, nullable: true },
    { name: 'zoned', type: { kind: 'timestamp_tz' }, nullable: true },
    { name: 't', type: { kind: 'time' }, nullable: true },
    { name: 'raw', type: { kind: 'bytes' }, nullable: true },
  ],
};

const fields = [
  9007199254740993n,
  '12.50',
  '1970-01-02',
  '1970-01-01T00:00:01.000002',
  '2024-01-02T03:04:05.5+02:00',
  '00:00:01.5',
  Buffer.from('hi'),
];

describe('Debezium envelope (format COMPATIBLE_DEBEZIUM_JSON)', () => {
  it("writes Debezium's topic, key and envelope with the Kafka Connect schema, fields in Debezium's order", () => {
    const env = new DebeziumEnvelope(envelopeOptions('mysql', {}));
    env.setTable(table);
    const row = env.row('shop.orders', 'c', null, fields, {
      tsMs: 1000,
      snapshot: false,
      position: { file: 'binlog.000003', pos: 154, server_id: 7 },
    });
    expect(row.tableId).toBe(COMPATIBLE_DEBEZIUM_TABLE.tableId);
    const [topic, key, value] = row.fields as string[];
    expect(topic).toBe('mysql_binlog_source.shop.orders');
    expect(key).toBe(
      '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],"optional":false,"name":"mysql_binlog_source.shop.orders.Key"},"payload":{"id":9007199254740993}}',
    );
    const v = JSON.parse(value) as {
      schema: { fields: { field: string; fields?: { field: string; name?: string }[] }[]; name: string };
      payload: Record<string, Record<string, unknown> | string | null>;
    };
    expect(v.schema.name).toBe('mysql_binlog_source.shop.orders.Envelope');
    expect(v.schema.fields.map((f) => f.field)).toEqual(['before', 'after', 'source', 'op', 'ts_ms', 'transaction']);
    expect(v.schema.fields[2].fields?.map((f) => f.field)).toEqual([
      'version',
      'connector',
      'name',
      'ts_ms',
      'snapshot',
      'db',
      'sequence',
      'table',
      'server_id',
      'gtid',
      'file',
      'pos',
      'row',
      'thread',
      'query',
    ]);
    expect(v.schema.fields[1].fields?.map((f) => f.name)).toEqual([
      undefined,
      'org.apache.kafka.connect.data.Decimal',
      'io.debezium.time.Date',
      'io.debezium.time.MicroTimestamp',
      'io.debezium.time.ZonedTimestamp',
      'io.debezium.time.MicroTime',
      undefined,
    ]);
    // Exact numbers: the bigint and the decimal as written (JsonConverter's NUMERIC decimals).
    expect(value).toContain(
      '"after":{"id":9007199254740993,"price":12.50,"day":1,"at":1000002,"zoned":"2024-01-02T01:04:05.5Z","t":1500000,"raw":"aGk="}',
    );
    expect(v.payload.before).toBeNull();
    expect(v.payload.op).toBe('c');
    expect(v.payload.source).toMatchObject({
      connector: 'mysql',
      name: 'mysql_binlog_source',
      db: 'shop',
      table: 'orders',
      file: 'binlog.000003',
      pos: 154,
      server_id: 7,
      snapshot: 'false',
    });
  });

  it('without converter schemas: the payloads alone; PostgreSQL topics name the schema', () => {
    const env = new DebeziumEnvelope(
      envelopeOptions('postgresql', {
        'key.converter.schemas.enable': 'false',
        'value.converter.schemas.enable': 'false',
        'database.server.name': 'pg1',
      }),
    );
    env.setTable({ ...table, tableId: 'db.public.orders', path: { database: 'db', schema: 'public', table: 'orders' } });
    const [topic, key, value] = env.row('db.public.orders', 'd', fields, null, { tsMs: 5, snapshot: false, position: { lsn: 42n } })
      .fields as string[];
    expect(topic).toBe('pg1.public.orders');
    expect(key).toBe('{"id":9007199254740993}');
    const v = JSON.parse(value) as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['before', 'after', 'source', 'op', 'ts_ms', 'transaction']);
    expect(v.after).toBeNull();
    expect(v.source).toMatchObject({ connector: 'postgresql', name: 'pg1', db: 'db', schema: 'public', table: 'orders', lsn: 42 });
  });

  it('refuses a column type it has no encoding for, and a converter flag that is not a boolean', () => {
    const env = new DebeziumEnvelope(envelopeOptions('mysql', {}));
    expect(
      env.problem({ ...table, columns: [{ name: 'tags', type: { kind: 'array', element: { kind: 'string' } }, nullable: true }] }),
    ).toMatch(/column tags of table shop\.orders: its type array/);
    expect(() => envelopeOptions('mysql', { 'key.converter.schemas.enable': 'yes' })).toThrow(/must be true or false/);
  });
});
