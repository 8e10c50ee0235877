import { optionsOf, parseSchemaConfig, type CatalogTable, type PluginContext } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { kafkaSinkFactory } from './kafka-sink.js';
import { kafkaSourceFactory } from './kafka-source.js';
import { compileRecordEncoder, NATIVE_COLUMNS, recordColumnsProblem } from './record-formats.js';

function table(fields: Record<string, string>): CatalogTable {
  return parseSchemaConfig({ fields }, { catalogName: 'test', fallbackTable: 't' }).table;
}

function context(
  factory: typeof kafkaSinkFactory | typeof kafkaSourceFactory,
  values: Record<string, unknown>,
  input: CatalogTable[],
): PluginContext {
  return { jobId: '1', jobMode: 'BATCH', parallelism: 1, options: optionsOf(values, factory.spec), inputTables: input };
}

const nativeTable = table(
  Object.fromEntries(NATIVE_COLUMNS.map((c) => [c.name, c.type.kind === 'map' ? 'map<string, string>' : c.type.kind])),
);

describe('Kafka record formats at planning', () => {
  it('refuses each option the record formats cannot honour, by name', () => {
    const sink = (values: Record<string, unknown>, input: CatalogTable[]) => () =>
      kafkaSinkFactory.create(context(kafkaSinkFactory, { 'bootstrap.servers': '127.0.0.1:1', ...values }, input));
    const source = (values: Record<string, unknown>) => () =>
      kafkaSourceFactory.create(context(kafkaSourceFactory, { 'bootstrap.servers': '127.0.0.1:1', topic: 'x', ...values }, []));
    const ids = table({ id: 'int' });
    expect(source({ format: 'compatible_debezium_json' })).toThrow(/'compatible_debezium_json' is a Kafka sink format/);
    expect(source({ format: 'native', schema: { fields: { id: 'int' } } })).toThrow(/format native has a fixed table/);
    expect(sink({ topic: 'x', format: 'native' }, [ids])).toThrow(/column 'headers' \(map<string, string>\) is missing/);
    expect(sink({ topic: 'x', format: 'native', partition: 1 }, [nativeTable])).toThrow(/'partition' cannot be set with format native/);
    expect(
      sink({ format: 'compatible_debezium_json', partition_key_fields: ['key'] }, [
        table({ topic: 'string', key: 'string', value: 'string' }),
      ]),
    ).toThrow(/'partition_key_fields' cannot be set with format compatible_debezium_json/);
    expect(sink({ format: 'compatible_debezium_json' }, [table({ key: 'string', value: 'string' })])).toThrow(/from column 'topic'/);
    expect(sink({ format: 'json' }, [ids])).toThrow(/needs 'topic'/);
    // The source's native table is what the sink takes.
    const native = kafkaSourceFactory.create(
      context(kafkaSourceFactory, { 'bootstrap.servers': '127.0.0.1:1', topic: 'x', format: 'native' }, []),
    );
    const [t] = native.catalogTables();
    expect(t.columns.map((c) => c.name)).toEqual(NATIVE_COLUMNS.map((c) => c.name));
    expect(recordColumnsProblem(t.columns, 'native')).toBeUndefined();
    expect(sink({ topic: 'y', format: 'native' }, [t])).not.toThrow();
  });

  it('turns a native row into its record: headers, key and value bytes, partition, timestamp', () => {
    const encode = compileRecordEncoder(nativeTable.columns, 'native', 't');
    const at = (n: string) => nativeTable.columns.findIndex((c) => c.name === n);
    const fields: unknown[] = [];
    fields[at('headers')] = new Map([['a', 'b']]);
    fields[at('key')] = Buffer.from([1, 2]);
    fields[at('partition')] = 1;
    fields[at('timestamp')] = 42n;
    fields[at('timestampType')] = 'CreateTime';
    fields[at('value')] = null;
    const r = encode(fields);
    expect([...(r.headers ?? [])].map(([k, v]) => [k.toString(), v.toString()])).toEqual([['a', 'b']]);
    expect(r.key).toEqual(Buffer.from([1, 2]));
    expect(r.value).toBeUndefined();
    expect(r.partition).toBe(1);
    expect(r.timestamp).toBe(42n);
    fields[at('partition')] = -1;
    expect(() => encode(fields)).toThrow(/partition -1/);
  });
});
