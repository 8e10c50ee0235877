/**
 * The sink contract (libs/connector-contract) on the Redis sink: a hash per row, keyed by the
 * table and the row's id, so a row written again after a restore overwrites itself
 * (idempotent). Read back with ioredis.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { redisSinkFactory, redisSourceFactory } from '@tideway/connector-redis';
import { sinkContract, sourceContract, type ExpectedRow, type SinkSubject } from '@tideway/connector-contract';
import { startRedis, type RedisServer } from '@tideway/testing';
import { REDIS_NOT_APPLICABLE, REDIS_SOURCE_NOT_APPLICABLE } from './contract-table.js';

let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedis({ password: 'pw' });
  client = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw' });
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const redis: SinkSubject = {
  name: 'Redis (hash per row)',
  factory: redisSinkFactory,
  delivery: 'idempotent',
  target: (id) => ({
    options: {
      host: '127.0.0.1',
      port: server.port,
      auth: 'pw',
      data_type: 'hash',
      key: `${id}:\${table_name}:{id}`,
      support_custom_key: true,
      batch_size: 3,
    },
    readBack: async (table) => {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${id}:${table.path.table}:*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      return Promise.all(keys.map((k) => client.hgetall(k)));
    },
  }),
  notApplicable: REDIS_NOT_APPLICABLE,
  badOptions: [
    { options: { data_type: 'stream' }, option: 'data_type' },
    { options: { port: 70000 }, option: 'port' },
    { options: { hash_value_field: 'name' }, option: 'hash_value_field' },
  ],
};

sinkContract(redis);

// The source: keys holding JSON rows, read by SCAN in batches (its state is the scan cursor).
sourceContract({
  name: 'Redis (json strings)',
  factory: redisSourceFactory,
  target: async (id) => {
    const expected: ExpectedRow[] = [];
    const pipeline = client.pipeline();
    for (let i = 1; i <= 300; i++) {
      pipeline.set(`${id}:${i}`, JSON.stringify({ id: i, name: `items-${i}` }));
      expected.push(['items', i, `items-${i}`]);
    }
    await pipeline.exec();
    return {
      options: {
        host: '127.0.0.1',
        port: server.port,
        auth: 'pw',
        keys: `${id}:*`,
        data_type: 'string',
        batch_size: 20,
        format: 'json',
        schema: { table: 'contract.items', fields: { id: 'int', name: 'string' } },
      },
      expected,
    };
  },
  notApplicable: REDIS_SOURCE_NOT_APPLICABLE,
  badOptions: [{ options: { format: 'avro' }, option: 'format' }],
});
