import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EventDelivery, SIGNATURE_HEADER, signature, type DeliverySettings } from './event-delivery.js';
import { until } from './gateway-fakes.js';

/** What the local receiver got: each POST's headers and body. */
interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A real HTTP receiver on a loopback port, answering `status()` to every POST. */
async function receiver(port: number, got: Received[], status: () => number = () => 200): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await close(probe);
  return port;
}

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));
const settings: DeliverySettings = { bufferSize: 1000, batchSize: 3, flushIntervalMs: 20, requestTimeoutMs: 2000, maxRetryIntervalMs: 100 };
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close));
});

describe('EventDelivery', () => {
  it('batches events in order, with the headers and an HMAC signature of the body', async () => {
    const port = await freePort();
    const got: Received[] = [];
    servers.push(await receiver(port, got));
    const d = new EventDelivery<{ n: number }>(
      { name: 'ops', url: `http://127.0.0.1:${port}/hook`, headers: { 'X-Team': 'data' }, secret: 's3cret' },
      settings,
    );
    for (let n = 1; n <= 7; n++) d.enqueue({ n });
    await until(() => d.idle, 'every event delivered');
    const batches = got.map((r) => JSON.parse(r.body) as Array<{ n: number }>);
    expect(batches.flat().map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Math.max(...batches.map((b) => b.length))).toBe(3);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-team']).toBe('data');
      expect(r.headers[SIGNATURE_HEADER]).toBe(`sha256=${signature('s3cret', r.body)}`);
    }
    expect(d.stats).toMatchObject({ delivered: 7, failedPosts: 0, dropped: 0, buffered: 0 });
    await d.close();
  });

  it('while the receiver is down: retries with backoff, holds a bounded buffer (the oldest dropped and counted), then delivers the rest in order', async () => {
    const port = await freePort(); // nothing listens yet: connections are refused
    const d = new EventDelivery<{ n: number }>(
      { name: 'ops', url: `http://127.0.0.1:${port}/`, headers: {}, secret: '' },
      { ...settings, bufferSize: 5 },
    );
    for (let n = 1; n <= 8; n++) d.enqueue({ n });
    await until(() => d.stats.failedPosts >= 2, 'two failed POSTs');
    expect(d.stats).toMatchObject({ delivered: 0, dropped: 3, buffered: 5 });
    // The receiver comes back, first answering 503 (counted as a failure), then 200.
    const got: Received[] = [];
    let answers = 0;
    servers.push(await receiver(port, got, () => (answers++ === 0 ? 503 : 200)));
    await until(() => d.idle, 'the buffer delivered once the receiver is back', 15_000);
    const delivered = got.slice(1).flatMap((r) => JSON.parse(r.body) as Array<{ n: number }>);
    expect(delivered.map((e) => e.n)).toEqual([4, 5, 6, 7, 8]);
    expect(d.stats.delivered).toBe(5);
    expect(d.stats.failedPosts).toBeGreaterThanOrEqual(3);
    await d.close();
  });

  it('enqueue never waits on the receiver, even one that never answers', async () => {
    const port = await freePort();
    const hanging = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => hanging.listen(port, '127.0.0.1', resolve));
    servers.push(hanging);
    const d = new EventDelivery<{ n: number }>(
      { name: 'slow', url: `http://127.0.0.1:${port}/`, headers: {}, secret: '' },
      { ...settings, requestTimeoutMs: 200, bufferSize: 100 },
    );
    for (let n = 0; n < 1000; n++) d.enqueue({ n });
    expect(d.stats.buffered).toBe(100);
    expect(d.stats.dropped).toBe(900);
    await until(() => d.stats.failedPosts >= 1, 'the POST timed out');
    hanging.closeAllConnections();
    await d.close();
    expect(d.stats.dropped).toBe(1000);
  });

  it('on close, sends what waits before it stops', async () => {
    const port = await freePort();
    const got: Received[] = [];
    servers.push(await receiver(port, got));
    const d = new EventDelivery<{ n: number }>(
      { name: 'ops', url: `http://127.0.0.1:${port}/`, headers: {}, secret: '' },
      { ...settings, flushIntervalMs: 60_000 },
    );
    d.enqueue({ n: 1 });
    d.enqueue({ n: 2 });
    await d.close();
    expect(got.flatMap((r) => JSON.parse(r.body) as Array<{ n: number }>)).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
