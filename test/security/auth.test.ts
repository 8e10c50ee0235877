/**
 * Bearer tokens and roles (issue 12, items 2 and 3) on a real cluster with tideway.auth tokens
 * made by `tideway token create`: each role's allowed and refused calls through gRPC (the CLI)
 * and the REST API; without a token, or with an unknown one, every call is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, fakeJob, jobFile } from '../cluster/test-cluster.js';
import { runCli } from '../conformance/cli-process.js';
import { startTokenCluster } from './token-cluster.js';
import type { RestFailure, SubmittedJob } from '../rest/rest-shapes.js';

let cluster: TestCluster;
let base = '';
let tokens: Record<'viewer' | 'operator' | 'admin', string>;

beforeAll(async () => {
  ({ cluster, tokens, base } = await startTokenCluster(['viewer', 'operator', 'admin'] as const));
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

const job = () =>
  jobFile(cluster, 'job.conf', fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 }));
const cli = (args: string[], token?: string) => cluster.cli(token === undefined ? args : [...args, '--token', token]);

/** One REST request; `json` is the answer as the shape T the caller expects. */
async function rest<T = unknown>(method: 'GET' | 'POST', path: string, token?: string, body?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  return { status: res.status, json: (await res.json()) as T };
}

const restJob = JSON.stringify({
  env: { 'job.mode': 'BATCH' },
  source: [{ plugin_name: 'FakeSource', plugin_output: 'fake', 'row.num': 10, schema: { fields: { id: 'int' } } }],
  sink: [{ plugin_name: 'Console', plugin_input: ['fake'], 'log.print.data': false }],
});

describe('gRPC JobService (the CLI)', () => {
  it('without a token, or with an unknown one, every call is refused', async () => {
    const none = await cli(['list']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('ListJobs needs a bearer token (pass --token');
    const unknown = await cli(['list'], 'tw_' + 'x'.repeat(43));
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("ListJobs: the bearer token is not one of this cluster's tokens");
    // The refusal never echoes the token.
    expect(unknown.stderr).not.toContain('x'.repeat(43));
  });

  it('a viewer lists and reads, and is refused submit and cancel', async () => {
    expect((await cli(['list'], tokens.viewer)).code).toBe(0);
    expect((await cli(['overview'], tokens.viewer)).code).toBe(0);
    const submit = await cli(['submit', '--async', '-c', job()], tokens.viewer);
    expect(submit.code).not.toBe(0);
    expect(submit.stderr).toContain("SubmitJob needs the role operator or above: token 'viewer' has the role viewer");
    const cancel = await cli(['cancel', '1234'], tokens.viewer);
    expect(cancel.stderr).toContain('CancelJob needs the role operator or above');
  });

  it('drain, undrain and step-down need the operator role (CLI and REST); a sole coordinator refuses to step down in one sentence', async () => {
    const worker = (await cluster.workers())[0].address;
    const refused = await cli(['cluster', 'drain', worker, '--no-wait'], tokens.viewer);
    expect(refused.stderr).toContain("DrainWorker needs the role operator or above: token 'viewer' has the role viewer");
    expect((await cli(['cluster', 'step-down'], tokens.viewer)).stderr).toContain('StepDown needs the role operator or above');
    expect((await rest('POST', '/drain-worker', tokens.viewer, JSON.stringify({ worker }))).status).toBe(403);
    const drained = await rest<{ draining: boolean }>('POST', '/drain-worker', tokens.operator, JSON.stringify({ worker }));
    expect(drained).toMatchObject({ status: 200, json: { draining: true } });
    const undrain = await cli(['cluster', 'undrain', worker], tokens.operator);
    expect(undrain.code, undrain.stderr).toBe(0);
    expect((await cluster.workers())[0].draining).toBe(false);
    const down = await cli(['cluster', 'step-down'], tokens.admin);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /cannot hand over: it runs as a sole coordinator, and a step-down needs coordinators sharing a Redis state store/,
    );
  });

  it('an operator and an admin submit, read and cancel; TIDEWAY_TOKEN works as --token', async () => {
    for (const role of ['operator', 'admin'] as const) {
      const submit = await cli(['submit', '--async', '-c', job()], tokens[role]);
      expect(submit.code, submit.stderr).toBe(0);
      const jobId = submit.stdout.trim();
      // The viewer (namespace team-a) reads the operator's job (team-a), not the admin's (no namespace).
      const status = await cli(['status', jobId], tokens.viewer);
      if (role === 'operator') expect(status.code, status.stderr).toBe(0);
      else expect(status.stderr).toContain(`GetJob of job ${jobId} is refused: the job belongs to no namespace`);
      const cancel = await cli(['cancel', jobId], tokens[role]);
      expect(cancel.code, cancel.stderr).toBe(0);
    }
    const env = await runCli(['list', '--address', cluster.address], 60_000, { TIDEWAY_TOKEN: tokens.viewer });
    expect(env.code, env.stderr).toBe(0);
  });
});

describe('REST API', () => {
  it('refuses without a token (401) and a viewer submit (403); a viewer reads, an operator submits', async () => {
    expect((await rest('GET', '/overview')).status).toBe(401);
    expect((await rest('GET', '/overview', 'tw_' + 'y'.repeat(43))).status).toBe(401);
    expect((await rest('GET', '/overview', tokens.viewer)).status).toBe(200);
    const refused = await rest<RestFailure>('POST', '/submit-job', tokens.viewer, restJob);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain('needs the role operator or above');
    const ok = await rest<SubmittedJob>('POST', '/submit-job', tokens.operator, restJob);
    expect(ok.status).toBe(200);
    expect((await rest('GET', `/job-info/${ok.json.jobId}`, tokens.viewer)).status).toBe(200);
    expect((await rest('POST', '/update-tags', tokens.operator, '{}')).status).toBe(403);
  });
});
