/**
 * The Http sink classifies its errors (issue 33, item 6), against a local HTTP server: with
 * handleRowErrors, a row whose own request is answered 400, 409, 413 or 422 is rejected with the
 * status and the answer named while the other rows are sent; a 401, 403, 404 or 429, a 5xx after
 * its retries and a refused connection are the endpoint's and fail the write.
 */
import { createServer, type Server } from 'node:http';
import { newCatalogTable, type Row, Types } from '@tideway/api';
import { validatePluginOptions } from '@tideway/config/options';
import { httpSinkFactory } from '@tideway/connector-http';
import { freePort } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const table = newCatalogTable({ database: 'db', table: 't' }, [
  { name: 'id', type: Types.INT, nullable: false },
  { name: 'status', type: Types.INT, nullable: false },
]);

/** The server answers each POST with the status its body's `status` field names; it records the bodies. */
const bodies: string[] = [];
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const { status } = JSON.parse(body) as { status: number };
      res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{}' : `{"error":"refused with ${status}"}`);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  url = `http://127.0.0.1:${port}/in`;
});
afterAll(() => server.close());

/** Sends `statuses` (one row each, the status the server answers it with) through a writer with handleRowErrors; returns the rows rejected. */
async function send(statuses: number[], target = url): Promise<Array<[Row, Error]>> {
  const options = validatePluginOptions(httpSinkFactory.spec, {
    type: 'sink',
    name: 'Http',
    index: 0,
    file: 'test.conf',
    line: 1,
    options: { url: target, retry: 1, retry_backoff_multiplier_ms: 10, connect_timeout_ms: 2000 },
    optionLines: {},
  });
  const sink = httpSinkFactory.create({ jobId: 'http-rows', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  const rejected: Array<[Row, Error]> = [];
  writer.handleRowErrors!((r, err) => rejected.push([r, err]));
  try {
    await writer.write(statuses.map((status, i) => ({ kind: '+I', tableId: table.tableId, fields: [i + 1, status] })));
  } finally {
    await writer.close();
  }
  return rejected;
}

describe('the Http sink hands on the rows their endpoint refuses for themselves', () => {
  it('400, 409, 413 and 422 reject their row, naming the status and answer; the rows after them are sent', async () => {
    bodies.length = 0;
    const rejected = await send([200, 400, 201, 409, 413, 422, 204]);
    expect(rejected.map(([r]) => r.fields[0])).toEqual([2, 4, 5, 6]);
    expect(rejected[0][1].message).toBe(`Http POST ${url} answered 400: {"error":"refused with 400"}`);
    expect(bodies).toHaveLength(7); // each sent once: a 4xx is not retried
  });

  it.each([401, 403, 404, 429, 503])('%i is the endpoint state: it fails the write and rejects nothing', async (status) => {
    bodies.length = 0;
    await expect(send([200, status, 200])).rejects.toThrow(`answered ${status}`);
    expect(bodies).toHaveLength(status === 429 || status === 503 ? 3 : 2); // 429 and 5xx retried once, the last row never sent
  });

  it('a refused connection fails the write', async () => {
    const port = await freePort();
    await expect(send([200], `http://127.0.0.1:${port}/in`)).rejects.toThrow(/Http POST .* failed after 2 tries/);
  });
});
