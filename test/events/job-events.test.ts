/**
 * Job events pushed out (issue 35, item 5): `tideway run` with SeaTunnel's event-report-http and
 * a signed Tideway webhook in its engine config, each received by a local HTTP server of the
 * test. The webhook's receiver is down when the job starts and comes back while it runs: it gets
 * every event all the same, in order, once.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, startHttpReceiver, type HttpReceiver } from '@tideway/testing';
import { spawnCli, waitForExit } from '../conformance/cli-process.js';
import { fakeJob } from '../cluster/test-cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-events-'));
const receivers: HttpReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  rmSync(dir, { recursive: true, force: true });
});

interface Event {
  eventId: string;
  jobId: string;
  sequence: number;
  epoch: number;
  createdTime: number;
  eventType: string;
  status?: string;
}

async function receiver(port: number): Promise<HttpReceiver> {
  const r = await startHttpReceiver({ port });
  receivers.push(r);
  return r;
}

const events = (r: HttpReceiver) => r.items<Event>();

async function until(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('event-report-http and a signed webhook get every job state change in order; the webhook, down at first, gets them once it is back', {
  timeout: 120_000,
}, async () => {
  const seatunnelPort = await freePort();
  const hookPort = await freePort(); // nothing listens there yet
  const seatunnel = await receiver(seatunnelPort);
  const engine = join(dir, 'engine.yaml');
  writeFileSync(
    engine,
    [
      'seatunnel:',
      '  engine:',
      '    event-report-http:',
      `      url: http://127.0.0.1:${seatunnelPort}/event/report`,
      '      headers:',
      '        Authorization: Bearer abc',
      'tideway:',
      '  events:',
      '    flush-interval: 100',
      '    max-retry-interval: 500',
      '    webhooks:',
      '      ops:',
      `        url: http://127.0.0.1:${hookPort}/hook`,
      '        secret: s3cret',
      '',
    ].join('\n'),
  );
  const conf = join(dir, 'job.conf');
  writeFileSync(conf, fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 }));
  const child = spawnCli(['run', '-c', conf, '--engine-config', engine]);
  const exited = waitForExit(child);

  await until('RUNNING reported to event-report-http', () => events(seatunnel).some((e) => e.status === 'RUNNING'));
  const hook = await receiver(hookPort);
  await until('the webhook, back, got RUNNING', () => events(hook).some((e) => e.status === 'RUNNING'), 30_000);
  child.kill('SIGINT');
  const res = await exited;
  expect(res.code, res.stderr).toBe(130);
  // Events that wait are sent before the coordinator stops.
  expect(events(seatunnel).at(-1)?.status).toBe('CANCELED');

  // SeaTunnel's shape: a JSON array of event objects with createdTime, jobId and eventType.
  const st = events(seatunnel);
  const jobId = st[0].jobId;
  expect(st.map((e) => e.status)).toEqual(['PENDING', 'SCHEDULED', 'RUNNING', 'CANCELING', 'CANCELED']);
  for (const [i, e] of st.entries()) {
    expect(e).toMatchObject({ jobId, eventType: 'JOB_STATUS_CHANGED', sequence: i + 1, createdTime: expect.any(Number) as unknown });
    expect(e.eventId).toBe(`${jobId}-${e.epoch}-${e.sequence}`);
  }
  expect(seatunnel.requests.every((p) => p.headers.authorization === 'Bearer abc' && p.headers['x-tideway-signature'] === undefined)).toBe(
    true,
  );
  // The webhook got the same events, once each, in order, every POST signed.
  expect(events(hook)).toEqual(st);
  for (const p of hook.requests)
    expect(p.headers['x-tideway-signature']).toBe(`sha256=${createHmac('sha256', 's3cret').update(p.body).digest('hex')}`);
  expect(res.stderr).toMatch(/could not deliver job events; retrying with backoff/);
});

it('an event receiver without an http(s) URL is refused by name before anything starts', async () => {
  const engine = join(dir, 'bad.yaml');
  writeFileSync(engine, ['tideway:', '  events:', '    webhooks:', '      ops:', '        url: ftp://example.com/x', ''].join('\n'));
  const conf = join(dir, 'batch.conf');
  writeFileSync(conf, fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 }));
  const res = await waitForExit(spawnCli(['run', '-c', conf, '--engine-config', engine]));
  expect(res.code).toBe(2);
  expect(res.stderr).toContain("tideway.events.webhooks.ops.url 'ftp://example.com/x': expected an http:// or https:// URL");
});
