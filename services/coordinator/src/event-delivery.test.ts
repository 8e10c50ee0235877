import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startHttpReceiver, type HttpReceiver } from '@tideway/testing';
import { EventDelivery, SIGNATURE_HEADER, signature, type DeliverySettings } from './event-delivery.js';
import { until } from './gateway-fakes.js';

const settings: DeliverySettings = { bufferSize: 1000, batchSize: 3, flushIntervalMs: 20, requestTimeoutMs: 2000, maxRetryIntervalMs: 100 };
const receivers: HttpReceiver[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A real HTTP receiver on a loopback port (closed after each test). */
async function receiver(opts: { port?: number; status?: () => number } = {}): Promise<HttpReceiver> {
  const r = await startHttpReceiver(opts);
  receivers.push(r);
  return r;
}

const numbers = (bodies: string[]) => bodies.flatMap((b) => JSON.parse(b) as Array<{ n: number }>).map((e) => e.n);

describe('EventDelivery', () => {
  it('batches events in order, with the headers and an HMAC signature of the body', async () => {
    const r = await receiver();
    const d = new EventDelivery<{ n: number }>(
      { name: 'ops', url: `${r.url}hook`, headers: { 'X-Team': 'data' }, secret: 's3cret' },
      settings,
    );
    for (let n = 1; n <= 7; n++) d.enqueue({ n });
    await until(() => d.idle, 'every event delivered');
    expect(numbers(r.requests.map((q) => q.body))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Math.max(...r.requests.map((q) => (JSON.parse(q.body) as unknown[]).length))).toBe(3);
    for (const q of r.requests) {
      expect(q.headers['content-type']).toBe('application/json');
      expect(q.headers['x-team']).toBe('data');
      expect(q.headers[SIGNATURE_HEADER]).toBe(`sha256=${signature('s3cret', q.body)}`);
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
    let answers = 0;
    const r = await receiver({ port, status: () => (answers++ === 0 ? 503 : 200) });
    await until(() => d.idle, 'the buffer delivered once the receiver is back', 15_000);
    expect(numbers(r.requests.slice(1).map((q) => q.body))).toEqual([4, 5, 6, 7, 8]);
    expect(d.stats.delivered).toBe(5);
    expect(d.stats.failedPosts).toBeGreaterThanOrEqual(3);
    await d.close();
  });

  it('enqueue never waits on the receiver, even one that never answers', async () => {
    const hanging = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    servers.push(hanging);
    const { port } = hanging.address() as { port: number };
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
    const r = await receiver();
    const d = new EventDelivery<{ n: number }>(
      { name: 'ops', url: r.url, headers: {}, secret: '' },
      { ...settings, flushIntervalMs: 60_000 },
    );
    d.enqueue({ n: 1 });
    d.enqueue({ n: 2 });
    await d.close();
    expect(r.items<{ n: number }>()).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
