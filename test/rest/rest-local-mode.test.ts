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

it('tideway run with http.enable-http: the job is listed over HTTP while it runs, on the next port when the first is taken; --metrics-port serves the probes', async () => {
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
      '--metrics-port',
      '0',
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
    // SeaTunnel's Master page: the one coordinator, with this process's health figures.
    const members = (await (await fetch(`${url}/system-monitoring-information`)).json()) as Array<Record<string, string>>;
    expect(members.filter((m) => m.isMaster === 'true')).toEqual([
      expect.objectContaining({ host: '127.0.0.1', 'heap.memory.used': expect.stringMatching(/\d/) as unknown }) as unknown,
    ]);
    // Local mode's probes: alive, and ready with each of its three services' reasons.
    const metrics = /metrics at (http:\/\/\S+)\/metrics/.exec(stderr)?.[1];
    expect(metrics, stderr).toBeDefined();
    expect(await (await fetch(`${metrics}/livez`)).json()).toEqual({ status: 'alive' });
    const ready = await fetch(`${metrics}/readyz`);
    const body = (await ready.json()) as { status: string; checks: Record<string, { ready: boolean }> };
    expect(ready.status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.checks).sort()).toEqual(['coordinator', 'resource-manager', 'worker']);
    expect(Object.values(body.checks).every((c) => c.ready)).toBe(true);
    // Per-table series, the job's one table under its own name (no table is folded into _other).
    let scrape = '';
    while (!scrape.includes('tideway_table_rows_read_total{') && Date.now() < deadline) {
      scrape = await (await fetch(`${metrics}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(scrape).toMatch(/^tideway_table_rows_read_total\{job_id="\d+",job_name="[^"]*",table="[^"_][^"]*"\} \d+$/m);
    expect(scrape).not.toMatch(/^tideway_table_\w+\{[^}]*table="_other"/m);
    expect(scrape).toMatch(/^tideway_job_tables_folded\{job_id="\d+",job_name="[^"]*"\} 0$/m);
    child.kill('SIGINT');
    expect((await exited).code).toBe(130);
  } finally {
    blocker.close();
  }
});
