/**
 * Namespaces (issue 12, items 2 and 3) on a real cluster of two coordinators over a Redis state
 * store (the REST calls go to the follower's REST API): a job keeps its submitter's namespace,
 * across a leader fail-over too; operators and viewers see and stop their namespace's jobs only,
 * through gRPC and the REST API (cross-namespace cancel refused naming both namespaces,
 * same-namespace allowed, admin everything); tideway.auth.namespaces limits plugins and
 * LocalFile folders at submit and plan (one sentence, exit 2 from the CLI); a token added to the
 * state store with `tideway token create --store` works at once, and stops working when revoked.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobServiceClient, JobStatus, TokenServiceClient, type JobInfo } from '@tideway/contracts';
import { bearerInterceptor, call, channelCredentials, clientOptions, hashToken, newToken } from '@tideway/rpc';
import { freePort, startRedis, type RedisServer } from '@tideway/testing';
import { TestCluster, fakeJob, jobFile } from '../cluster/test-cluster.js';

type Who = 'admin' | 'opA' | 'opB' | 'viewerA';
const NAMESPACE: Record<Who, string> = { admin: '', opA: 'team-a', opB: 'team-b', viewerA: 'team-a' };
const ROLE: Record<Who, string> = { admin: 'admin', opA: 'operator', opB: 'operator', viewerA: 'viewer' };

let redis: RedisServer;
let cluster: TestCluster;
let base = '';
let dataRoot = '';
const tokens = {} as Record<Who, string>;
const clients = new Map<string, JobServiceClient>();
const tokenClients: TokenServiceClient[] = [];

function tokenService(token: string): TokenServiceClient {
  const c = new TokenServiceClient(leaderAddress, channelCredentials(), {
    ...clientOptions,
    interceptors: [bearerInterceptor(token)],
  });
  tokenClients.push(c);
  return c;
}

/** The tideway.auth.tokens line of a new token, made as `tideway token create` makes it (test/security/auth.test.ts runs that command). */
function create(who: Who): string {
  tokens[who] = newToken();
  return `    ${who}: "${[hashToken(tokens[who]), ROLE[who], NAMESPACE[who]].join(' ').trim()}"`;
}

beforeAll(async () => {
  const lines: string[] = [];
  for (const who of ['admin', 'opA', 'opB', 'viewerA'] as const) lines.push(create(who));
  redis = await startRedis();
  dataRoot = mkdtempSync(join(tmpdir(), 'tideway-ns-'));
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 4,
    jobScheduleStrategy: 'WAIT',
    coordinators: 2,
    ha: { state: redis, leaseTtlMs: 2000, retryIntervalMs: 200 },
    tidewayYaml: [
      'auth:',
      '  tokens:',
      ...lines,
      '  namespaces:',
      '    team-a:',
      '      allowed-plugins: [FakeSource, Console, LocalFile]',
      `      local-file-path-prefixes: [${dataRoot}/team-a/]`,
    ],
    // Both coordinators serve the REST API, on port and the next free one.
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: true', '  port-range: 10'],
  });
  await findLeader();
  // The REST tests go to the follower's REST API: it calls the leader with each caller's token.
  const follower = cluster.coordinatorNames().find((n) => n !== leaderName)!;
  await cluster.until(
    'the REST API of the follower',
    () => (base = /REST API at (\S+)/.exec(cluster.logs.get(follower) ?? '')?.[1] ?? '') !== '',
  );
}, 120_000);

let leaderName = '';
let leaderAddress = '';

/** Which coordinator leads: the gRPC clients of the tests call it. */
async function findLeader(): Promise<void> {
  await cluster.until('a leader', async () => (leaderName = (await cluster.leaderName()) ?? '') !== '');
  leaderAddress = cluster.coordinatorAddresses[cluster.coordinatorNames().indexOf(leaderName as never)];
}

afterAll(async () => {
  for (const c of [...clients.values(), ...tokenClients]) c.close();
  await cluster?.stop();
  await redis?.stop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

/** JobService of the leader, calling with `token`. */
function jobs(token: string): JobServiceClient {
  const key = `${leaderAddress} ${token}`;
  let c = clients.get(key);
  if (!c) {
    c = new JobServiceClient(leaderAddress, channelCredentials(), { ...clientOptions, interceptors: [bearerInterceptor(token)] });
    clients.set(key, c);
  }
  return c;
}

const streaming = () => fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 });

/** A SubmitJob / PlanJob request of a config text. */
const request = (text: string) => ({
  configText: text,
  configFile: 'job.conf',
  format: '',
  variables: {},
  jobName: '',
  jobId: '',
  restoreJobId: '',
  restoreWithCheckpoint: '',
});

async function submit(who: Who, text = streaming()): Promise<string> {
  const c = jobs(tokens[who]);
  return (await call(c, 'submitJob', request(text))).jobId;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the call was not refused');
}

const list = async (who: Who): Promise<JobInfo[]> => {
  const c = jobs(tokens[who]);
  return (await call(c, 'listJobs', {})).jobs;
};

async function rest(method: 'GET' | 'POST', path: string, token: string, body?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  // SeaTunnel's shapes: an error `{status, message}`, a job list `[{jobId, ...}]`.
  return { status: res.status, json: (await res.json()) as { message?: string } & Array<{ jobId: string }> };
}

describe('jobs belong to the namespace of the token that submitted them', () => {
  it('gRPC: operators cancel their namespace only, viewers and operators list their namespace only, admin all', async () => {
    const a = await submit('opA');
    const b = await submit('opB');
    const c = jobs(tokens.opB);
    const info = await call(jobs(tokens.viewerA), 'getJob', { jobId: a });
    expect(info.namespace).toBe('team-a');
    expect(await refusal(call(c, 'cancelJob', { jobId: a }))).toBe(
      `CancelJob of job ${a} is refused: the job belongs to namespace team-a, and token 'opB' is of namespace team-b`,
    );
    expect(await refusal(call(c, 'savepointJob', { jobId: a }))).toContain(`SavepointJob of job ${a} is refused`);
    expect(await refusal(call(c, 'getJob', { jobId: a }))).toContain(`GetJob of job ${a} is refused`);
    expect((await list('opB')).map((j) => j.jobId)).toEqual([b]);
    expect((await list('viewerA')).map((j) => j.jobId)).toEqual([a]);
    expect((await list('admin')).map((j) => j.jobId).sort()).toEqual([a, b].sort());
    // A viewer of the same namespace still cannot cancel (its role), an operator of it can.
    const v = jobs(tokens.viewerA);
    expect(await refusal(call(v, 'cancelJob', { jobId: a }))).toContain('CancelJob needs the role operator or above');
    const oa = jobs(tokens.opA);
    await call(oa, 'cancelJob', { jobId: a });
    const admin = jobs(tokens.admin);
    await call(admin, 'cancelJob', { jobId: b });
    // A restore acts on the restored job: refused for another namespace before anything is planned.
    expect(await refusal(call(c, 'submitJob', { ...request(streaming()), restoreJobId: a }))).toBe(
      `SubmitJob (restore) of job ${a} is refused: the job belongs to namespace team-a, and token 'opB' is of namespace team-b`,
    );
    await cluster.until('both jobs cancelled', async () =>
      (await list('admin')).filter((j) => [a, b].includes(j.jobId)).every((j) => j.status === JobStatus.CANCELED),
    );
  });

  it('REST: stop-job of another namespace is 403, of the own namespace 200; the job lists follow the namespace', async () => {
    const a = await submit('opA');
    const refused = await rest('POST', '/stop-job', tokens.opB, JSON.stringify({ jobId: a }));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      `CancelJob of job ${a} is refused: the job belongs to namespace team-a, and token 'opB' is of namespace team-b`,
    );
    expect((await rest('GET', `/job-info/${a}`, tokens.opB)).status).toBe(403);
    const runningB = await rest('GET', '/running-jobs', tokens.opB);
    expect(runningB.json.map((j) => j.jobId)).not.toContain(a);
    const runningA = await rest('GET', '/running-jobs', tokens.viewerA);
    expect(runningA.json.map((j) => j.jobId)).toContain(a);
    expect((await rest('POST', '/stop-job', tokens.opA, JSON.stringify({ jobId: a }))).status).toBe(200);
  });
});

/** FakeSource -> (transform) -> LocalFile sink at `path` (tmp_path beside it unless given). */
function localFileJob(path: string, opts: { tmpPath?: string; transform?: string } = {}): string {
  const tmp = opts.tmpPath === undefined ? '' : `tmp_path = "${opts.tmpPath}"`;
  return `env { job.mode = "BATCH" }
source { FakeSource { plugin_output = "fake", row.num = 5, schema = { fields { id = "int" } } } }
${opts.transform ? `transform { ${opts.transform} }` : ''}
sink { LocalFile { path = "${path}"
  ${tmp}
  file_format_type = "json" } }
`;
}

describe('tideway.auth.namespaces limits, checked at submit and plan', () => {
  it('CLI submit: a path outside the prefixes exits 2 naming block and option; gRPC SubmitJob refuses a .. escape, the default tmp_path and a relative path; inside runs', async () => {
    const prefix = `${dataRoot}/team-a/`;
    const res = await cluster.cli([
      'submit',
      '--async',
      '-c',
      jobFile(cluster, 'limited.conf', localFileJob('/etc', { tmpPath: `${prefix}tmp` })),
      '--token',
      tokens.opA,
    ]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      `sink LocalFile option path '/etc' is outside namespace team-a's allowed prefixes ${prefix} [TW-CONFIG-011]`,
    );
    const cases: Array<[string, string]> = [
      [
        localFileJob(`${prefix}../team-b/out`, { tmpPath: `${prefix}tmp` }),
        `sink LocalFile option path '${prefix}../team-b/out' is outside namespace team-a's allowed prefixes ${prefix}`,
      ],
      [
        localFileJob(`${prefix}out`),
        `sink LocalFile option tmp_path '/tmp/seatunnel' (the default) is outside namespace team-a's allowed prefixes`,
      ],
      [localFileJob('out', { tmpPath: `${prefix}tmp` }), `sink LocalFile option path 'out' is a relative path`],
    ];
    const before = (await list('admin')).length;
    for (const [text, sentence] of cases) expect(await refusal(submit('opA', text))).toContain(sentence);
    // Nothing of the refused jobs was recorded.
    expect((await list('admin')).length).toBe(before);
    // Inside the prefixes the job runs and writes there.
    const ok = await cluster.cli([
      'submit',
      '-c',
      jobFile(cluster, 'ok.conf', localFileJob(`${prefix}out`, { tmpPath: `${prefix}tmp` })),
      '--token',
      tokens.opA,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(`${prefix}out`).length).toBeGreaterThan(0);
  }, 120_000);

  it('gRPC PlanJob and REST submit refuse a plugin the namespace does not allow', async () => {
    const text = localFileJob(`${dataRoot}/team-a/out2`, {
      tmpPath: `${dataRoot}/team-a/tmp`,
      transform: 'Filter { plugin_input = "fake", plugin_output = "f", include_fields = [id] }',
    }).replace('LocalFile { path', 'LocalFile { plugin_input = "f", path');
    const c = jobs(tokens.opA);
    const planned = call(c, 'planJob', request(text));
    expect(await refusal(planned)).toMatch(
      /^job\.conf:\d+: transform Filter is not allowed in namespace team-a \(allowed-plugins: FakeSource, Console, LocalFile\)$/,
    );
    // team-b has no limits: the same job plans.
    const b = jobs(tokens.opB);
    await call(b, 'planJob', request(text));
    const json = JSON.stringify({
      env: { 'job.mode': 'BATCH' },
      source: [{ plugin_name: 'FakeSource', plugin_output: 'fake', 'row.num': 5, schema: { fields: { id: 'int' } } }],
      sink: [
        { plugin_name: 'LocalFile', plugin_input: ['fake'], path: '/etc/x', tmp_path: `${dataRoot}/team-a/tmp`, file_format_type: 'json' },
      ],
    });
    const res = await rest('POST', '/submit-job', tokens.opA, json);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(
      `sink LocalFile option path '/etc/x' is outside namespace team-a's allowed prefixes ${dataRoot}/team-a/`,
    );
  });
});

describe('tokens in the state store', () => {
  it('an admin adds a token with --store: it works at once (gRPC and REST), without a restart; revoked, it stops working', async () => {
    const made = await cluster.cli([
      'token',
      'create',
      '--store',
      '--role',
      'operator',
      '--namespace',
      'team-b',
      '--name',
      'late',
      '--token',
      tokens.admin,
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("added to the cluster's state store as 'late' (role operator, namespace team-b)");
    const late = /^token: (\S+)$/m.exec(made.stdout)![1];
    const id = await submit('opB');
    const c = jobs(late);
    expect((await call(c, 'listJobs', {})).jobs.map((j) => j.jobId)).toContain(id);
    expect((await rest('GET', `/job-info/${id}`, late)).status).toBe(200);
    // Only admins manage tokens; a name is taken once.
    const request = { name: 'late', hash: `sha256:${'0'.repeat(64)}`, role: 'viewer', namespace: 'team-b' };
    const ops = tokenService(tokens.opA);
    expect(await refusal(call(ops, 'createToken', request))).toContain(
      "CreateToken needs the role admin or above: token 'opA' has the role operator",
    );
    const admin = tokenService(tokens.admin);
    expect(await refusal(call(admin, 'createToken', request))).toContain(
      "a token named 'late' is in the state store already: revoke it first",
    );
    expect(await refusal(call(admin, 'revokeToken', { name: 'opA' }))).toContain("token 'opA' is in the engine config");
    const listed = (await call(admin, 'listTokens', {})).tokens.map((t) => `${t.name} ${t.role} ${t.namespace} ${t.source}`);
    expect(listed).toContain('late operator team-b state-store');
    expect(listed).toContain('opA operator team-a engine-config');
    const revoked = await cluster.cli(['token', 'revoke', 'late', '--token', tokens.admin]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain("revoked 'late' (role operator, namespace team-b)");
    // The coordinator that revoked it forgets it at once, the other within 5 seconds (its cache).
    await cluster.until('the leader refuses the revoked token', async () =>
      (await refusal(call(c, 'listJobs', {})).catch(() => '')).includes("ListJobs: the bearer token is not one of this cluster's tokens"),
    );
    await cluster.until('the REST API refuses the revoked token', async () => (await rest('GET', '/overview', late)).status === 401);
    await call(jobs(tokens.admin), 'cancelJob', { jobId: id });
  }, 120_000);
});

describe('a leader fail-over', () => {
  it("keeps each job's namespace: the other coordinator takes the job over from Redis, and the rules still hold", async () => {
    const a = await submit('opA');
    await cluster.until('the job runs', async () => (await call(jobs(tokens.admin), 'getJob', { jobId: a })).status === JobStatus.RUNNING);
    await cluster.kill(leaderName as never, 'SIGKILL');
    await findLeader();
    const admin = jobs(tokens.admin);
    await cluster.until('the new leader runs the job', async () => {
      const info = await call(admin, 'getJob', { jobId: a }).catch(() => undefined);
      return info?.status === JobStatus.RUNNING && info.namespace === 'team-a';
    });
    const b = jobs(tokens.opB);
    expect(await refusal(call(b, 'cancelJob', { jobId: a }))).toContain('the job belongs to namespace team-a');
    expect((await rest('POST', '/stop-job', tokens.opB, JSON.stringify({ jobId: a }))).status).toBe(403);
    const oa = jobs(tokens.opA);
    await call(oa, 'cancelJob', { jobId: a });
  }, 90_000);
});
