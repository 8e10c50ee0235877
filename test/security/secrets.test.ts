/**
 * Secrets never leak (issue 12, item 4), against a real cluster (coordinator, resource manager,
 * one worker, REST API on) and a private PostgreSQL whose password is distinctive: a Jdbc
 * PG->PG job with that password, one with a wrong password (it fails) and one with the password
 * encrypted by `tideway encrypt` (aes256). Neither password appears in the plan (text and JSON),
 * `tideway status`, `tideway list --json`, the REST answers or any process's log; the masked
 * form does where the option is shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestDatabaseServer, freePort } from '@tideway/testing';
import { TestCluster, jobFile } from '../cluster/test-cluster.js';
import { runCli } from '../conformance/cli-process.js';
import { pgExec } from '../jdbc/databases.js';
import type { JobInfo, RestFailure, SubmittedJob } from '../rest/rest-shapes.js';

const PASSWORD = 'Tw-S3cret-Pw-42';
const WRONG = 'Wr0ng-Pw-Never-Shown';
let pg: TestDatabaseServer;
let cluster: TestCluster;
let base = '';
/** Everything the tests read back, to grep at the end. */
const seen: string[] = [];

const jobText = (password: string, target: string, shade = '', envSecret = password) => `
env {
  job.mode = "BATCH"
  parallelism = 1
  custom_parameters { db_password = "${envSecret}", region = "eu" }${shade ? `\n  shade.identifier = "${shade}"` : ''}
}
source {
  Jdbc {
    url = "${pg.jdbcUrl}"
    driver = "org.postgresql.Driver"
    user = "${pg.user}"
    password = "${password}"
    query = "select id, label from src"
  }
}
sink {
  Jdbc {
    url = "${pg.jdbcUrl}"
    driver = "org.postgresql.Driver"
    user = "${pg.user}"
    password = "${password}"
    generate_sink_sql = true
    database = "${pg.database}"
    table = "public.${target}"
    primary_keys = ["id"]
  }
}
`;

/** One REST request; `json` is the answer as the shape T the caller expects. */
async function http<T = unknown>(method: 'GET' | 'POST', path: string, body?: string, query = '') {
  const res = await fetch(`${base}${path}${query}`, { method, headers: body === undefined ? {} : { 'content-type': 'text/plain' }, body });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, text, json: JSON.parse(text) as T };
}

async function cli(args: string[]) {
  const res = await cluster.cli(args);
  seen.push(res.stdout, res.stderr);
  return res;
}

async function until(jobId: string, status: string): Promise<void> {
  await cluster.until(
    `job ${jobId} ${status}`,
    async () => (await http<JobInfo>('GET', `/job-info/${jobId}`)).json.jobStatus === status,
    60_000,
  );
}

beforeAll(async () => {
  pg = await startPostgres({ password: PASSWORD });
  await pgExec(
    pg,
    `CREATE TABLE src (id bigint PRIMARY KEY, label text);
     INSERT INTO src SELECT g, 'row ' || g FROM generate_series(1, 50) g;
     CREATE TABLE dst_plain (id bigint PRIMARY KEY, label text);
     CREATE TABLE dst_aes (id bigint PRIMARY KEY, label text);
     CREATE TABLE dst_wrong (id bigint PRIMARY KEY, label text);`,
  );
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 4,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await pg?.stop();
});

describe('a job with a Jdbc password', () => {
  it('tideway plan, text and JSON', async () => {
    const file = jobFile(cluster, 'plain.conf', jobText(PASSWORD, 'dst_plain'));
    const json = await runCli(['plan', '--json', '-c', file]);
    expect(json.code, json.stderr).toBe(0);
    seen.push(json.stdout, json.stderr);
    expect(json.stdout).toContain('"name": "Jdbc"');
    const text = await runCli(['plan', '-c', file]);
    expect(text.code, text.stderr).toBe(0);
    seen.push(text.stdout, text.stderr);
  });

  it('submitted to the cluster it runs; status, list and every REST answer about it are masked', async () => {
    const sub = await cli(['submit', '--async', '-c', jobFile(cluster, 'plain.conf', jobText(PASSWORD, 'dst_plain'))]);
    expect(sub.code, sub.stderr).toBe(0);
    const jobId = sub.stdout.trim();
    await until(jobId, 'FINISHED');
    expect((await pgExec(pg, 'SELECT count(*)::int AS n FROM dst_plain'))[0].n).toBe(50);
    const status = await cli(['status', jobId]);
    expect(status.code).toBe(0);
    // The env block is shown, the secret in it masked.
    expect((JSON.parse(status.stdout) as { envOptions: Record<string, string> }).envOptions.custom_parameters).toBe(
      '{"db_password":"******","region":"eu"}',
    );
    expect((await cli(['list', '--json'])).code).toBe(0);
    const info = (await http<JobInfo>('GET', `/job-info/${jobId}`)).json;
    // SeaTunnel's REST API lists the env block under dotted keys.
    expect(info.jobDag.envOptions).toMatchObject({ 'custom_parameters.db_password': '******', 'custom_parameters.region': 'eu' });
    await http('GET', '/finished-jobs');
    await http('GET', '/running-jobs');
    await http('GET', '/overview');
  });

  it('a wrong password is refused at submit, over gRPC and REST, with a reason that names neither password', async () => {
    const sub = await cli(['submit', '--async', '-c', jobFile(cluster, 'wrong.conf', jobText(WRONG, 'dst_wrong'))]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/refused the login of user 'postgres' \(wrong user or password\)/);
    const rest = await http<RestFailure>('POST', '/submit-job', jobText(WRONG, 'dst_wrong'), '?format=hocon');
    expect(rest.status).toBe(400);
    expect(rest.json.message).toMatch(/refused the login/);
  }, 90_000);

  it('the aes256 form printed by tideway encrypt runs on the cluster (submitted over REST)', async () => {
    const enc = await runCli(['encrypt', '-c', jobFile(cluster, 'aes.conf', jobText(PASSWORD, 'dst_aes', 'aes256', 'not-the-password'))]);
    expect(enc.code, enc.stderr).toBe(0);
    // Its output carries the encrypted form only (env is not shaded, as in SeaTunnel: the job
    // keeps no password there).
    expect(enc.stdout).not.toContain(PASSWORD);
    const res = await http<SubmittedJob>('POST', '/submit-job', enc.stdout);
    expect(res.status, res.text).toBe(200);
    await until(res.json.jobId, 'FINISHED');
    expect((await pgExec(pg, 'SELECT count(*)::int AS n FROM dst_aes'))[0].n).toBe(50);
    const dec = await runCli(['decrypt', '-c', jobFile(cluster, 'aes.json', enc.stdout)]);
    expect(dec.code, dec.stderr).toBe(0);
    expect((JSON.parse(dec.stdout) as { sink: { password: string }[] }).sink[0].password).toBe(PASSWORD);
  });

  it('no output and no log of any process carries either password', () => {
    const logs = [...cluster.logs.values()].join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const text of [...seen, logs]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(WRONG);
    }
  });
});
