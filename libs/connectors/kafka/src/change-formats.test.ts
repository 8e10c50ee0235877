import type { DataType } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { compileChangeDecoder, compileChangeEncoder } from './change-formats.js';

const t = (kind: string): DataType => ({ kind }) as DataType;
const COLUMNS = [
  { name: 'id', type: t('int') },
  { name: 'name', type: t('string') },
  { name: 'weight', type: t('string') },
];

describe('change formats', () => {
  it('canal_json: each row of a statement, updates as -U (data overlaid by old) and +U, DDL skipped', () => {
    const decode = compileChangeDecoder(COLUMNS, 'canal_json');
    expect(decode('{"data":null,"isDdl":true,"type":"CREATE","sql":"CREATE TABLE t (id int)"}')).toEqual([]);
    expect(
      decode(
        '{"data":[{"id":"1","name":"a","weight":"2.5"},{"id":"2","name":"b","weight":"3"}],"old":[{"weight":"1.5"},{"name":"c"}],"type":"UPDATE","isDdl":false}',
      ),
    ).toEqual([
      { kind: '-U', fields: [1, 'a', '1.5'] },
      { kind: '+U', fields: [1, 'a', '2.5'] },
      { kind: '-U', fields: [2, 'c', '3'] },
      { kind: '+U', fields: [2, 'b', '3'] },
    ]);
    expect(decode('{"data":[{"id":"3","name":"x","weight":null}],"type":"DELETE"}')).toEqual([{ kind: '-D', fields: [3, 'x', null] }]);
    expect(() => decode('{"type":"INSERT"}')).toThrow(/no "data" array/);
    // As SeaTunnel's canal_json sink writes it: one row as an object.
    expect(decode('{"data":{"id":"4","name":"y","weight":"1"},"type":"DELETE"}')).toEqual([{ kind: '-D', fields: [4, 'y', '1'] }]);
  });

  it('debezium_json: an update without its old row names REPLICA IDENTITY FULL, as SeaTunnel does', () => {
    const decode = compileChangeDecoder(COLUMNS, 'debezium_json');
    expect(() => decode('{"op":"u","before":null,"after":{"id":1,"name":"a","weight":"1"}}')).toThrow(/REPLICA IDENTITY FULL/);
  });

  it('debezium_json with debezium_record_table_filter keeps only the records whose source names the table', () => {
    const env = (db: string, schema: string | undefined, table: string, id: number) =>
      JSON.stringify({ op: 'c', after: { id, name: 'n', weight: '1' }, source: { db, ...(schema ? { schema } : {}), table } });
    const decode = compileChangeDecoder(COLUMNS, 'debezium_json', { database: 'shop', table: 'products' });
    expect(decode(env('shop', undefined, 'products', 1))).toEqual([{ kind: '+I', fields: [1, 'n', '1'] }]);
    expect(decode(env('shop', undefined, 'orders', 2))).toEqual([]);
    expect(decode(env('other', undefined, 'products', 3))).toEqual([]);
    const withSchema = compileChangeDecoder(COLUMNS, 'debezium_json', { database: 'db', schema: 'inventory', table: 'products' });
    expect(withSchema(env('db', 'inventory', 'products', 4))).toHaveLength(1);
    expect(withSchema(env('db', 'public', 'products', 5))).toEqual([]);
    // Without a source block nothing matches a filter.
    expect(decode(JSON.stringify({ op: 'c', after: { id: 6, name: 'n', weight: '1' } }))).toEqual([]);
  });

  it('debezium_json: with and without the Connect schema; c/r, u, d; Debezium temporal, decimal and bits encodings', () => {
    const decode = compileChangeDecoder(COLUMNS, 'debezium_json');
    expect(decode('{"before":{"id":1,"name":"a","weight":"1"},"after":{"id":1,"name":"a","weight":"2"},"op":"u"}')).toEqual([
      { kind: '-U', fields: [1, 'a', '1'] },
      { kind: '+U', fields: [1, 'a', '2'] },
    ]);
    expect(decode('{"schema":{},"payload":{"before":{"id":5,"name":"z","weight":null},"after":null,"op":"d"}}')).toEqual([
      { kind: '-D', fields: [5, 'z', null] },
    ]);
    expect(() => decode('{"before":null,"after":null,"op":"x"}')).toThrow(/op 'x'/);
    const typed = compileChangeDecoder(
      [
        { name: 'd', type: t('date') },
        { name: 'ts', type: t('timestamp') },
        { name: 'us', type: t('timestamp') },
        { name: 'z', type: t('timestamp') },
        { name: 'tm', type: t('time') },
        { name: 'dec', type: { kind: 'decimal', precision: 10, scale: 2 } },
        { name: 'bits', type: t('tinyint') },
      ],
      'debezium_json',
    );
    const schema = {
      type: 'struct',
      fields: [
        {
          field: 'after',
          fields: [
            { field: 'us', name: 'io.debezium.time.MicroTimestamp' },
            { field: 'dec', name: 'org.apache.kafka.connect.data.Decimal', parameters: { scale: '2' } },
            { field: 'bits', name: 'io.debezium.data.Bits' },
          ],
        },
      ],
    };
    const after = {
      d: 19109,
      ts: 1651069800000,
      us: 1651069800123456,
      z: '2023-04-27T03:08:40Z',
      tm: 52200000000,
      dec: Buffer.from([0xff, 0x85]).toString('base64'), // -123 unscaled
      bits: 'VVVVVVVVVVU=',
    };
    expect(typed(JSON.stringify({ schema, payload: { before: null, after, op: 'r' } }))).toEqual([
      {
        kind: '+I',
        fields: ['2022-04-27', '2022-04-27T14:30:00', '2022-04-27T14:30:00.123456', '2023-04-27T03:08:40', '14:30:00', '-1.23', 85],
      },
    ]);
  });

  it('maxwell_json and ogg_json: inserts, updates and deletes; DDL and truncates carry no row', () => {
    const maxwell = compileChangeDecoder(COLUMNS, 'maxwell_json');
    expect(maxwell('{"type":"update","data":{"id":1,"name":"a","weight":"2"},"old":{"weight":"1"}}')).toEqual([
      { kind: '-U', fields: [1, 'a', '1'] },
      { kind: '+U', fields: [1, 'a', '2'] },
    ]);
    expect(maxwell('{"type":"table-create","def":{}}')).toEqual([]);
    expect(() => maxwell('{"type":"upsert","data":{}}')).toThrow(/type 'upsert'/);
    const ogg = compileChangeDecoder(COLUMNS, 'ogg_json');
    expect(ogg('{"op_type":"D","before":{"id":2,"name":"b","weight":3.5}}')).toEqual([{ kind: '-D', fields: [2, 'b', '3.5'] }]);
    expect(ogg('{"op_type":"T"}')).toEqual([]);
  });

  it('compatible_kafka_connect_json: the payload as an insert', () => {
    const decode = compileChangeDecoder(COLUMNS, 'compatible_kafka_connect_json');
    expect(decode('{"schema":{"type":"struct"},"payload":{"id":15,"name":"test","weight":"20"}}')).toEqual([
      { kind: '+I', fields: [15, 'test', '20'] },
    ]);
  });

  it('writes change rows as SeaTunnel does', () => {
    const canal = compileChangeEncoder(COLUMNS, 'canal_json');
    expect(canal('+U', [1, 'a', '2'])).toBe('{"data":{"id":1,"name":"a","weight":"2"},"type":"INSERT"}');
    expect(canal('-U', [1, 'a', '1'])).toBe('{"data":{"id":1,"name":"a","weight":"1"},"type":"DELETE"}');
    const debezium = compileChangeEncoder(COLUMNS, 'debezium_json');
    expect(debezium('+I', [1, 'a', null])).toBe('{"before":null,"after":{"id":1,"name":"a","weight":null},"op":"c"}');
    expect(debezium('-D', [1, 'a', null])).toBe('{"before":{"id":1,"name":"a","weight":null},"after":null,"op":"d"}');
  });
});
