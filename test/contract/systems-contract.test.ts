/**
 * The contract suite (libs/connector-contract) on the RabbitMQ and Http connectors: the RabbitMQ
 * sink against a private broker (read back by consuming the queue with amqplib), the Http sink
 * against a local server that records what it is sent, and the Http source against a local
 * server answering pages of JSON rows.
 */
import { createServer, type Server } from 'node:http';
import { type Channel, type ChannelModel, connect } from 'amqplib';
import { afterAll, beforeAll } from 'vitest';
import type { CatalogTable } from '@tideway/api';
import { sinkContract, sourceContract, type ExpectedRow, type ReadRow } from '@tideway/connector-contract';
import { httpSinkFactory, httpSourceFactory } from '@tideway/connector-http';
import { rabbitmqSinkFactory } from '@tideway/connector-rabbitmq';
import { freePort, startRabbitMq, type RabbitMqServer } from '@tideway/testing';
import { HTTP_NOT_APPLICABLE, HTTP_SOURCE_NOT_APPLICABLE, RABBITMQ_NOT_APPLICABLE } from './contract-table.js';

let broker: RabbitMqServer;
let conn: ChannelModel;
let ch: Channel;
let http: Server;
let httpUrl = '';
/** What the local HTTP server was sent, by path (the Http sink's target). */
const posted = new Map<string, ReadRow[]>();
/** What each queue held so far (consuming removes messages, so they are kept here). */
const consumed = new Map<string, ReadRow[]>();

/** The rows of `table` among JSON objects of several tables: SeaTunnel's JSON carries no table, its keys tell them apart. */
function ofTable(rows: readonly ReadRow[], table: CatalogTable): ReadRow[] {
  const keys = table.columns.map((c) => c.name).join(',');
  return rows.filter((r) => Object.keys(r).join(',') === keys);
}

/** Pages of JSON rows for the Http source: GET /<id>?page=N answers rows 20 at a time. */
const pages = new Map<string, ReadRow[]>();

beforeAll(async () => {
  broker = await startRabbitMq();
  conn = await connect(broker.url);
  ch = await conn.createChannel();
  http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST') {
        const list = posted.get(url.pathname) ?? [];
        list.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReadRow);
        posted.set(url.pathname, list);
        res.writeHead(200).end('{}');
        return;
      }
      const rows = pages.get(url.pathname) ?? [];
      const page = Number(url.searchParams.get('page') ?? '1');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows.slice((page - 1) * 20, page * 20)));
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => http.listen(port, '127.0.0.1', r));
  httpUrl = `http://127.0.0.1:${port}`;
}, 180_000);

afterAll(async () => {
  http?.close();
  await conn?.close().catch(() => undefined);
  await broker?.stop();
});

sinkContract({
  name: 'RabbitMQ',
  factory: rabbitmqSinkFactory,
  delivery: 'at-least-once',
  target: async (id) => {
    await ch.assertQueue(id, { durable: true });
    return {
      options: { host: '127.0.0.1', port: broker.port, virtual_host: '/', username: 'guest', password: 'guest', queue_name: id },
      readBack: async (table) => {
        const list = consumed.get(id) ?? [];
        for (;;) {
          const m = await ch.get(id, { noAck: true });
          if (m === false) break;
          list.push(JSON.parse(m.content.toString('utf8')) as ReadRow);
        }
        consumed.set(id, list);
        return ofTable(list, table);
      },
      drop: async () => {
        await ch.deleteQueue(id);
      },
    };
  },
  notApplicable: RABBITMQ_NOT_APPLICABLE,
  badOptions: [
    { options: { port: 70000 }, option: 'port' },
    { options: { automatic_recovery_enabled: true }, option: 'automatic_recovery_enabled' },
  ],
});

sinkContract({
  name: 'Http',
  factory: httpSinkFactory,
  delivery: 'at-least-once',
  target: (id) => ({
    options: { url: `${httpUrl}/${id}`, retry: 1, retry_backoff_multiplier_ms: 10 },
    readBack: async (table) => ofTable(posted.get(`/${id}`) ?? [], table),
  }),
  notApplicable: HTTP_NOT_APPLICABLE,
  badOptions: [
    { options: { url: 'ftp://127.0.0.1/x' }, option: 'url' },
    { options: { retry: -1 }, option: 'retry' },
  ],
});

sourceContract({
  name: 'Http (json pages)',
  factory: httpSourceFactory,
  parallelism: 1,
  target: (id) => {
    const expected: ExpectedRow[] = [];
    const rows: ReadRow[] = [];
    for (let i = 1; i <= 300; i++) {
      rows.push({ id: i, name: `items-${i}` });
      expected.push(['items', i, `items-${i}`]);
    }
    pages.set(`/${id}`, rows);
    return {
      options: {
        url: `${httpUrl}/${id}`,
        format: 'json',
        pageing: { page_field: 'page', batch_size: 20 },
        schema: { table: 'contract.items', fields: { id: 'int', name: 'string' } },
      },
      expected,
    };
  },
  notApplicable: HTTP_SOURCE_NOT_APPLICABLE,
  badOptions: [{ options: { method: 'PATCH' }, option: 'method' }],
});
