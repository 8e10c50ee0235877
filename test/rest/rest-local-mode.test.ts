/**
 * Local mode (`tideway run`) serves the REST API too when `seatunnel.engine.http.enable-http` is
 * set (here with --set), on 127.0.0.1, for as long as the job runs; a taken port moves on to the
 * next free one with enable-dynamic-port.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnCli, waitForExit } from '../conformance/cli-process.js';
import { fakeJob } from '../cluster/test-cluster.js';
import { freePort } from '@tideway/testing';

const dir = mkdtempSync(join(tmpdir(), 'tideway-rest-local-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('tideway run with http.enable-http: the job is listed over HTTP while it runs, on the next port when the first is taken', async () => {
  const taken = await freePort();
  const blocker = createServer().listen(taken, '127.0.0.1');
  try {
    const conf = join(dir, 'job.conf');
    writeFileSync(conf, fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 }));
    const child = spawnCli([
      'run',
      '-c',
      conf,
      '--set',
      'http.enable-http=true',
      '--set',
      `http.port=${taken}`,
      '--set',
      'http.port-range=20',
    ]);
    const exited = waitForExit(child);
    let stderr = '';
    child.stderr!.on('data', (s: string) => (stderr += s));
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline) {
      url = /REST API at (http:\/\/\S+)/.exec(stderr)?.[1];
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(url, stderr).toBeDefined();
    expect(url).not.toBe(`http://127.0.0.1:${taken}`);
    let running: Array<{ jobStatus: string }> = [];
    while (running.length === 0 && Date.now() < deadline) {
      running = (await (await fetch(`${url}/running-jobs`)).json()) as Array<{ jobStatus: string }>;
      if (running[0]?.jobStatus !== 'RUNNING') running = [];
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(running).toHaveLength(1);
    child.kill('SIGINT');
    expect((await exited).code).toBe(130);
  } finally {
    blocker.close();
  }
});
