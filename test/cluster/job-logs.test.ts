import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@tideway/testing';
import { spawnCli, waitForExit, runCli } from '../conformance/cli-process.js';
import { createToken } from '../security/token-cluster.js';
import { pollUntil } from './poll-until.js';
import { TestCluster, fakeJob, jobFile } from './test-cluster.js';

/**
 * Per-job logs over a real cluster (coordinator, resource manager, two workers of one slot each,
 * tokens on): `tideway logs --follow` shows both workers' lines as they come, REST's /logs
 * shapes, a planted password in no answer, a viewer of another namespace refused, and a worker
 * that is gone named as missing.
 */
const SECRET = 'Tw0-planted-s3cret-key';
let cluster: TestCluster;
let admin: string;
let viewer: string;
let base: string;
let jobId: string;

beforeAll(async () => {
  const a = await createToken('admin');
  const v = await createToken('viewer');
  admin = a.token;
  viewer = v.token;
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 1,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: ['auth:', '  tokens:', a.line, v.line],
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

const worker = (n: 1 | 2) => cluster.processes.address(`worker-${n}`);

async function get(path: string, token = admin): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text() };
}

describe('per-job logs', () => {
  it('tideway logs --follow shows both workers’ lines as they are written, until the job ends', async () => {
    // A streaming job over both workers, with a secret (a Spark S3 key SeaTunnel lets a config carry).
    const text = fakeJob({ mode: 'STREAMING', parallelism: 2, rowNum: 1_000_000, splitNum: 200, name: 'logs_test' }).replace(
      'env {\n',
      `env {\n  spark.hadoop.fs.s3a.secret.key = "${SECRET}"\n`,
    );
    const file = jobFile(cluster, 'logs.conf', text);
    const submitted = await cluster.cli(['-c', file, '--async', '--token', admin]);
    expect(submitted.code, submitted.stderr).toBe(0);
    jobId = submitted.stdout.trim();
    const follow = spawnCli(['logs', jobId, '--follow', '--address', cluster.address, '--token', admin]);
    let out = '';
    follow.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    const ended = waitForExit(follow);
    const deployedOn = (n: 1 | 2) => out.split('\n').some((l) => l.includes(`worker ${worker(n)}`) && l.includes('task group deployed'));
    await pollUntil(
      'both workers’ deploy lines in the followed output',
      () => deployedOn(1) && deployedOn(2),
      60_000,
      () => out,
    );
    expect(out).not.toContain('task group ended');
    const cancelled = await cluster.cli(['-can', jobId, '--token', admin]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const res = await ended;
    expect(res.code, res.stderr).toBe(0);
    for (const n of [1, 2] as const)
      expect(
        out.split('\n').some((l) => l.includes(`worker ${worker(n)}`) && l.includes('task group ended') && l.includes('CANCELED')),
        out,
      ).toBe(true);
    expect(out).toMatch(/coordinator 127\.0\.0\.1:\d+ {2}coordinator: job submitted/);
    // The config is in the job's log, its secret masked.
    expect(out).toContain('"s3a":{"secret":{"key":"******"}}');
    expect(out).not.toContain(SECRET);
    // --level and --json
    const warnOnly = await cluster.cli(['logs', jobId, '--level', 'warn', '--token', admin]);
    expect(warnOnly.code, warnOnly.stderr).toBe(0);
    expect(warnOnly.stdout).not.toContain('task group deployed');
    const json = await cluster.cli(['logs', jobId, '--json', '--lines', '3', '--token', admin]);
    const lines = json.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jobId, node: expect.any(String) as string });
    const bad = await cluster.cli(['logs', jobId, '--since', 'yesterday-ish', '--token', admin]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since yesterday-ish');
  }, 120_000);

  it('REST /logs/:jobId lists each node’s file (SeaTunnel’s shape), each link serves its lines; /logs and /log list files', async () => {
    const list = await get(`/logs/${jobId}?format=json`);
    expect(list.status, list.text).toBe(200);
    const files = JSON.parse(list.text) as Array<{ node: string; logLink: string; logName: string }>;
    const nodes = files.map((f) => f.node).sort();
    expect(nodes).toEqual([cluster.address, worker(1), worker(2)].sort());
    for (const f of files) {
      expect(f.logName).toMatch(new RegExp(`^job-${jobId}-(coordinator|worker)-.+\\.log$`));
      expect(f.logLink).toBe(`${base}/logs/${f.logName}`);
      const body = await get(new URL(f.logLink).pathname);
      expect(body.status, body.text).toBe(200);
      const lines = body.text.trim().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jobId });
      expect(body.text).not.toContain(SECRET);
    }
    // The dashboard's log panel reads the same lines, masked too.
    const panel = await get(`/ui/api/jobs/${jobId}/logs?level=info&since=0`);
    expect(panel.status, panel.text).toBe(200);
    const { lines: shown } = JSON.parse(panel.text) as { lines: Array<{ node: string; msg: string; fields: string }> };
    expect(shown.some((l) => l.msg === 'job submitted' && l.fields.includes('"s3a":{"secret":{"key":"******"}}'))).toBe(true);
    expect(panel.text).not.toContain(SECRET);
    const html = await get(`/logs/${jobId}`);
    expect(html.text).toContain(`<a href="${files[0].logLink}">`);
    const all = JSON.parse((await get('/logs?format=json')).text) as Array<{ logName: string }>;
    expect(all.map((f) => f.logName)).toEqual(expect.arrayContaining(files.map((f) => f.logName)));
    // /log: the files of the process serving the API (the coordinator).
    const here = JSON.parse((await get('/log?format=json')).text) as Array<{ node: string }>;
    expect(here.length).toBeGreaterThan(0);
    expect(here.every((f) => f.node === cluster.address)).toBe(true);
    expect((await get(`/logs/job-${jobId}-worker-127.0.0.1_1.log`)).status).toBe(404);
    expect((await get('/logs/job-1-worker-x.log')).status).toBe(400); // no such job
    expect((await get('/logs/abc')).status).toBe(400);
  }, 60_000);

  it('a viewer of another namespace is refused the job’s logs (CLI and REST) and does not see its files', async () => {
    const cli = await cluster.cli(['logs', jobId, '--token', viewer]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/GetJobLogs of job \d+ is refused: the job belongs to no namespace/);
    expect((await get(`/logs/${jobId}?format=json`, viewer)).status).toBe(403);
    const listed = JSON.parse((await get('/logs?format=json', viewer)).text) as Array<{ logName: string }>;
    expect(listed.some((f) => f.logName.includes(jobId))).toBe(false);
  }, 60_000);

  it('a worker that is gone is named as missing', async () => {
    await cluster.kill('worker-2');
    const res = await runCli(['logs', jobId, '--address', cluster.address, '--token', admin]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`the lines of worker ${worker(2)} are missing`);
    expect(res.stdout).toContain(`worker ${worker(1)}`);
  }, 60_000);
});
