/**
 * Client certificates instead of bearer tokens (issue 12, item 2) on a real cluster with
 * tideway.tls and tideway.auth.certificates: certificates written by `tideway cluster certs
 * --client`, mapped by subject CN to operator (alice) and viewer (bob) of team-a and operator
 * (dave) of team-b; carol's is signed by the cluster CA but not mapped, and another CA signed a
 * second alice. gRPC JobService (the CLI and a raw client) and the REST API over HTTPS
 * (node:https with cert and key, as curl --cert does) authenticate the mapped ones with no
 * token, refuse the others, still take tokens, and keep each certificate to its namespace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobServiceClient, ListJobsRequest, SubmitJobRequest } from '@tideway/contracts';
import { clientOptions, configureTls } from '@tideway/rpc';
import { runCli } from '../conformance/cli-process.js';
import { TestCluster, fakeJob, jobFile } from '../cluster/test-cluster.js';
import { freePort } from '@tideway/testing';
import { certRoleOf, tlsFiles } from './tls-files.js';
import { createToken } from './token-cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-certauth-'));
const ours = join(dir, 'cluster');
const theirs = join(dir, 'other');
let cluster: TestCluster;
let restPort = 0;
let operatorToken = '';

beforeAll(async () => {
  for (const [out, clients] of [
    [ours, ['alice', 'bob', 'carol', 'dave']],
    [theirs, ['alice']],
  ] as const) {
    const res = await runCli(['cluster', 'certs', '--out', out, ...clients.flatMap((c) => ['--client', c])]);
    expect(res.code, res.stderr).toBe(0);
  }
  const token = await createToken('operator', 'ci');
  operatorToken = token.token;
  restPort = await freePort();
  // The test process (and the CLI it runs) holds the `client` certificate, which is not mapped.
  configureTls(tlsFiles(ours, 'client'));
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    tls: (name) => tlsFiles(ours, certRoleOf(name)),
    tidewayYaml: [
      'auth:',
      '  tokens:',
      token.line,
      '  certificates:',
      '    alice: "operator team-a"',
      '    "CN:bob": "viewer team-a"',
      '    dave: "operator team-b"',
    ],
    engineYaml: ['http:', '  enable-http: true', `  port: ${restPort}`, '  enable-dynamic-port: false'],
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  configureTls(undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI presenting `name`'s certificate (TIDEWAY_TLS_*), with no token. */
function cliAs(base: string, name: string, args: string[]) {
  const f = tlsFiles(base, name);
  return runCli([...args, '--address', cluster.address], 60_000, {
    TIDEWAY_TLS_CA: f.caFile,
    TIDEWAY_TLS_CERT: f.certFile,
    TIDEWAY_TLS_KEY: f.keyFile,
    TIDEWAY_TOKEN: '',
  });
}

function credentialsOf(base: string, name: string): grpc.ChannelCredentials {
  const f = tlsFiles(base, name);
  return grpc.credentials.createSsl(readFileSync(tlsFiles(ours, 'client').caFile), readFileSync(f.keyFile), readFileSync(f.certFile));
}

/** A raw JobService call with `name`'s certificate (and `metadata`): the status code and details it ended with. */
function rawCall(
  name: string,
  method: 'listJobs' | 'submitJob',
  metadata = new grpc.Metadata(),
): Promise<{ code: grpc.status; details: string }> {
  const client = new JobServiceClient(cluster.address, credentialsOf(ours, name), clientOptions);
  const done = (resolve: (r: { code: grpc.status; details: string }) => void) => (err: grpc.ServiceError | null) => {
    client.close();
    resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' });
  };
  return new Promise((resolve) => {
    if (method === 'listJobs') client.listJobs(ListJobsRequest.fromPartial({}), metadata, done(resolve));
    // A config that does not parse: an allowed caller gets INVALID_ARGUMENT, not a job.
    else client.submitJob(SubmitJobRequest.fromPartial({ configText: '{', configFile: 'broken.conf' }), metadata, done(resolve));
  });
}

/** The fields of REST answers these tests read. */
interface RestAnswer {
  message?: string;
  jobId?: string;
}

/** An HTTPS request to the REST API presenting `cert` (as curl --cert does), optionally with a token. */
function rest(
  method: 'GET' | 'POST',
  path: string,
  cert?: { base: string; name: string },
  token?: string,
  body?: string,
): Promise<{ status: number; json: RestAnswer }> {
  const f = cert && tlsFiles(cert.base, cert.name);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `https://127.0.0.1:${restPort}${path}`,
      {
        method,
        // The certificate is valid for localhost too: no IP address as TLS server name (RFC 6066).
        servername: 'localhost',
        ca: readFileSync(tlsFiles(ours, 'client').caFile),
        ...(f ? { cert: readFileSync(f.certFile), key: readFileSync(f.keyFile) } : {}),
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as RestAnswer }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const restJob = JSON.stringify({
  env: { 'job.mode': 'BATCH' },
  source: [{ plugin_name: 'FakeSource', plugin_output: 'fake', 'row.num': 10, schema: { fields: { id: 'int' } } }],
  sink: [{ plugin_name: 'Console', plugin_input: ['fake'], 'log.print.data': false }],
});

describe('gRPC JobService with client certificates', () => {
  it('an operator-mapped certificate submits and cancels with no token (the CLI)', async () => {
    const job = jobFile(
      cluster,
      'job.conf',
      fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 }),
    );
    const submit = await cliAs(ours, 'alice', ['submit', '--async', '-c', job]);
    expect(submit.code, submit.stderr).toBe(0);
    const jobId = submit.stdout.trim();
    const cancel = await cliAs(ours, 'alice', ['cancel', jobId]);
    expect(cancel.code, cancel.stderr).toBe(0);
  });

  it('a viewer-mapped certificate reads and cannot submit; an unmapped one is UNAUTHENTICATED', async () => {
    expect(await rawCall('bob', 'listJobs')).toMatchObject({ code: grpc.status.OK });
    expect(await rawCall('bob', 'submitJob')).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      details: "SubmitJob needs the role operator or above: client certificate 'CN:bob' has the role viewer",
    });
    expect(await rawCall('alice', 'submitJob')).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect(await rawCall('carol', 'listJobs')).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      details: 'ListJobs: the client certificate CN=carol is not in tideway.auth.certificates, and no bearer token was sent',
    });
    // The CLI's own `client` certificate is not mapped either: it needs its token.
    const cli = await cluster.cli(['list']);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('ListJobs: the client certificate CN=tideway-client is not in tideway.auth.certificates');
    const withToken = await cluster.cli(['list', '--token', operatorToken]);
    expect(withToken.code, withToken.stderr).toBe(0);
  });

  it('a certificate of another CA with a mapped CN fails the handshake', async () => {
    const client = new JobServiceClient(cluster.address, credentialsOf(theirs, 'alice'), clientOptions);
    const ready = await new Promise<boolean>((resolve) => client.waitForReady(Date.now() + 3000, (err) => resolve(!err)));
    client.close();
    expect(ready).toBe(false);
  });
});

describe('REST API over HTTPS with client certificates', () => {
  it('an operator-mapped certificate submits, a viewer-mapped one reads and is refused 403, with no token', async () => {
    const ok = await rest('POST', '/submit-job', { base: ours, name: 'alice' }, undefined, restJob);
    expect(ok.status, ok.json.message).toBe(200);
    expect((await rest('GET', `/job-info/${ok.json.jobId}`, { base: ours, name: 'bob' })).status).toBe(200);
    const refused = await rest('POST', '/submit-job', { base: ours, name: 'bob' }, undefined, restJob);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe("POST /submit-job needs the role operator or above: client certificate 'CN:bob' has the role viewer");
  });

  it('refuses an unmapped certificate and one of another CA (401), and takes a token without a certificate', async () => {
    const unmapped = await rest('GET', '/overview', { base: ours, name: 'carol' });
    expect(unmapped.status).toBe(401);
    expect(unmapped.json.message).toContain('the client certificate CN=carol is not in tideway.auth.certificates');
    const foreign = await rest('GET', '/overview', { base: theirs, name: 'alice' }, operatorToken);
    expect(foreign.status).toBe(401);
    expect(foreign.json.message).toMatch(/^GET \/overview: the client certificate \(CN=alice\) is not signed by this cluster's CA/);
    const none = await rest('GET', '/overview');
    expect(none.status).toBe(401);
    expect(none.json.message).toContain('or present a client certificate named in tideway.auth.certificates');
    expect((await rest('GET', '/overview', undefined, operatorToken)).status).toBe(200);
    // A token decides when one is sent, whatever certificate comes with it.
    expect((await rest('POST', '/submit-job', { base: ours, name: 'bob' }, operatorToken, restJob)).status).toBe(200);
  });
});

describe('certificate callers and namespaces', () => {
  it("a certificate acts in its entry's namespace over gRPC and through the REST API, as a token would", async () => {
    const streaming = fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 });
    const submit = await cliAs(ours, 'dave', ['submit', '--async', '-c', jobFile(cluster, 'team-b.conf', streaming)]);
    expect(submit.code, submit.stderr).toBe(0);
    const teamB = submit.stdout.trim();
    try {
      const cancel = await cliAs(ours, 'alice', ['cancel', teamB]);
      expect(cancel.code).not.toBe(0);
      expect(cancel.stderr).toContain(
        `CancelJob of job ${teamB} is refused: the job belongs to namespace team-b, and client certificate 'alice' is of namespace team-a`,
      );
      // The REST API names alice's entry to the leader, which applies alice's namespace.
      const read = await rest('GET', `/job-info/${teamB}`, { base: ours, name: 'alice' });
      expect(read.status).toBe(403);
      expect(read.json.message).toContain(
        `GetJob of job ${teamB} is refused: the job belongs to namespace team-b, and client certificate 'alice' is of namespace team-a`,
      );
      const ok = await rest('POST', '/submit-job', { base: ours, name: 'alice' }, undefined, restJob);
      expect(ok.status, ok.json.message).toBe(200);
      const other = await rest('GET', `/job-info/${ok.json.jobId}`, { base: ours, name: 'dave' });
      expect(other.status).toBe(403);
      expect(other.json.message).toContain("the job belongs to namespace team-a, and client certificate 'dave' is of namespace team-b");
      // The team-a token sees alice's REST job: it went into team-a.
      expect((await rest('GET', `/job-info/${ok.json.jobId}`, undefined, operatorToken)).status).toBe(200);
    } finally {
      expect((await cliAs(ours, 'dave', ['cancel', teamB])).code).toBe(0);
    }
  });

  it("takes a forwarded certificate caller only from the coordinator's own certificate, and only an entry of its table", async () => {
    const forged = new grpc.Metadata();
    forged.set('x-tideway-certificate-caller', 'alice');
    const refused = await rawCall('carol', 'listJobs', forged);
    expect(refused.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(refused.details).toBe(
      "ListJobs: a forwarded certificate caller (x-tideway-certificate-caller) is accepted only from a process with this coordinator's own certificate (its REST API), not from CN=carol",
    );
    // bob (a viewer) cannot make himself alice either.
    expect((await rawCall('bob', 'submitJob', forged)).code).toBe(grpc.status.UNAUTHENTICATED);
    // The coordinator's own certificate (its REST API's) may name an entry, and only one of the
    // leader's own table.
    expect(await rawCall('coordinator', 'submitJob', forged)).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    const nobody = new grpc.Metadata();
    nobody.set('x-tideway-certificate-caller', 'mallory');
    expect(await rawCall('coordinator', 'listJobs', nobody)).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      details: "ListJobs: the forwarded certificate caller 'mallory' is not an entry of this coordinator's tideway.auth.certificates",
    });
  });
});

describe('configuration errors (exit 2, nothing started)', () => {
  const start = (name: string, auth: string[]) => {
    const file = join(dir, `${name}.yaml`);
    const t = tlsFiles(ours, 'coordinator');
    const lines = [
      'tideway:',
      '  coordinator: { host: 127.0.0.1, port: 0 }',
      `  tls: ${JSON.stringify({ 'ca-file': t.caFile, 'cert-file': t.certFile, 'key-file': t.keyFile })}`,
      '  auth:',
      '    certificates:',
      ...auth.map((l) => `      ${l}`),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    return runCli(['cluster', 'start', '--role', 'coordinator', '--engine-config', file], 30_000);
  };

  it('refuses a malformed certificates entry naming its key', async () => {
    // Each form of bad entry is a unit test (libs/rpc/src/cert-auth.test.ts); this is the CLI's exit.
    const role = await start('bad-role', ['alice: "root team-a"']);
    expect(role.code).toBe(2);
    expect(role.stderr).toContain(
      'tideway.auth.certificates.alice: expected "<role> [<namespace>]" with a role of viewer, operator, admin',
    );
  });

  it('tideway cluster certs refuses a --client name that is no file name', async () => {
    const res = await runCli(['cluster', 'certs', '--out', join(dir, 'refused'), '--client', '../x']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain("--client ../x: expected letters, digits, '.', '_' or '-'");
  });

  it('tideway cluster certs --ca signs a new client certificate with an existing CA, which then authenticates', async () => {
    const res = await runCli(['cluster', 'certs', '--out', join(dir, 'later'), '--ca', ours, '--client', 'alice']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toEqual([join(dir, 'later', 'alice.pem'), join(dir, 'later', 'alice-key.pem')]);
    const f = tlsFiles(join(dir, 'later'), 'alice');
    const client = new JobServiceClient(
      cluster.address,
      grpc.credentials.createSsl(readFileSync(tlsFiles(ours, 'client').caFile), readFileSync(f.keyFile), readFileSync(f.certFile)),
      clientOptions,
    );
    const err = await new Promise<grpc.ServiceError | null>((resolve) => client.listJobs(ListJobsRequest.fromPartial({}), resolve));
    client.close();
    expect(err).toBeNull();
  });
});
