/**
 * Fuzzing a real cluster (issue 12, items 5 and 6): thousands of malformed requests to every
 * RPC of every service (raw bytes, invalid protobuf, valid protobuf with nonsense values,
 * unknown job ids, wrong tokens and epochs, hand-made truncated HTTP/2 frames) and every REST
 * route (bad methods, paths, query parameters and bodies, bodies past the limit), plus
 * slow-loris clients on the REST port. Every request must be answered within its deadline,
 * no process may die, and the running streaming job and the job list must not change.
 * The seed is printed; TIDEWAY_FUZZ_SEED=<seed> repeats a run. TIDEWAY_SLOW_TESTS=1 runs the
 * long version.
 */
import { request as httpRequest } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobServiceClient, JobStatus, SubmitJobRequest, type JobInfo } from '@tideway/contracts';
import { bearerInterceptor, call, clientOptions, hashToken, insecure, newToken } from '@tideway/rpc';
import { freePort } from '@tideway/testing';
import { TestCluster, fakeJob } from '../cluster/test-cluster.js';
import { SeededRandom, fuzzSeed } from './fuzz/seeded-random.js';
import { FUZZED_SERVICES, MUTATING_JOB_METHODS, fuzzCall, sendCall, type FuzzCall, type FuzzAnswer } from './fuzz/grpc-fuzzer.js';
import { rawFrameCase, sendRawFrame } from './fuzz/raw-frames.js';
import { restCase, type RestCase } from './fuzz/rest-fuzzer.js';
import { idleClient, slowClient } from './fuzz/slow-clients.js';
import { jobList, jobState } from './fuzz/job-snapshot.js';

const SLOW = process.env.TIDEWAY_SLOW_TESTS === '1';
const GRPC_CALLS = SLOW ? 20_000 : 600;
const RAW_FRAMES = SLOW ? 1000 : 40;
const REST_REQUESTS = SLOW ? 5000 : 250;
const DEADLINE_MS = 3000;
const MAX_BODY = 65_536;
const HEADERS_TIMEOUT = 2000;
const REQUEST_TIMEOUT = 3000;
const MAX_CONNECTIONS = 64;

const seed = fuzzSeed();
let cluster: TestCluster;
let restPort = 0;
let jobId = '';
const tokens = { viewer: newToken(), operator: newToken() };
let jobs: JobServiceClient;

/** Runs `tasks` with at most `width` at a time. */
async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

const jobOf = () => call(jobs, 'getJob', { jobId });
const listOf = async () => jobList(await call(jobs, 'listJobs', {}));

beforeAll(async () => {
  process.stderr.write(`fuzz seed ${seed} (repeat with TIDEWAY_FUZZ_SEED=${seed})\n`);
  restPort = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'REJECT',
    tidewayYaml: [
      'auth:',
      '  tokens:',
      `    viewer: "${hashToken(tokens.viewer)} viewer team-a"`,
      `    operator: "${hashToken(tokens.operator)} operator team-a"`,
      'limits: { max-message-bytes: 1048576, max-config-bytes: 65536, max-config-depth: 32 }',
    ],
    engineYaml: [
      'http:',
      '  enable-http: true',
      `  port: ${restPort}`,
      '  enable-dynamic-port: false',
      `  max-body-bytes: ${MAX_BODY}`,
      `  headers-timeout: ${HEADERS_TIMEOUT}`,
      `  request-timeout: ${REQUEST_TIMEOUT}`,
      `  max-connections: ${MAX_CONNECTIONS}`,
    ],
  });
  jobs = new JobServiceClient(cluster.address, insecure, { ...clientOptions, interceptors: [bearerInterceptor(tokens.operator)] });
  const configText = fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 6000, splitNum: 6000, readIntervalMs: 100 });
  jobId = (await call(jobs, 'submitJob', SubmitJobRequest.fromPartial({ configText, configFile: 'stream.conf', format: 'hocon' }))).jobId;
  await cluster.until('the streaming job runs', async () => (await jobOf()).status === JobStatus.RUNNING);
  await cluster.until('its pipeline runs and reads', async () => {
    const [job, metrics] = [await jobOf(), await call(jobs, 'getJobMetrics', { jobId })];
    return job.pipelines.every((p) => p.status === 'RUNNING') && metrics.sourceReceivedCount > 0;
  });
}, 120_000);

afterAll(async () => {
  jobs?.close();
  await cluster?.stop();
});

/** Every process still runs, and the job and the job list are as they were. */
async function expectUnchanged(before: { job: JobInfo; list: unknown; rows: number }): Promise<void> {
  for (const name of cluster.processes.names()) expect(cluster.processes.isRunning(name), `${name} died (seed ${seed})`).toBe(true);
  const after = await jobOf();
  expect(jobState(after), `the job changed (seed ${seed})`).toEqual(jobState(before.job));
  expect(await listOf(), `the job list changed (seed ${seed})`).toEqual(before.list);
  await cluster.until(
    'the job makes progress',
    async () => (await call(jobs, 'getJobMetrics', { jobId })).sourceReceivedCount > before.rows,
    20_000,
  );
}

async function snapshot() {
  return { job: await jobOf(), list: await listOf(), rows: (await call(jobs, 'getJobMetrics', { jobId })).sourceReceivedCount };
}

/** Why an answer to a fuzzed gRPC call is wrong, or undefined when it is fine. */
function wrongGrpcAnswer(c: FuzzCall, a: FuzzAnswer): string | undefined {
  if (a.code === -1) return 'no status within the deadline (a hang)';
  if (
    a.code === (grpc.status.OK as number) &&
    c.method.service === 'JobService' &&
    (MUTATING_JOB_METHODS.has(c.method.name) || c.method.name === 'planJob')
  )
    return 'accepted';
  // A handler that threw something other than a Tideway error: a crash turned into a status.
  if (/Maximum call stack|Cannot read properties|is not a function|is not iterable|Invalid string length|\bundefined\b/.test(a.details))
    return `an internal failure: ${a.details}`;
  return undefined;
}

describe(`fuzzing a cluster (seed ${seed})`, () => {
  it(`answers ${GRPC_CALLS} malformed calls to every RPC and ${RAW_FRAMES} hand-made frames, and changes nothing`, async () => {
    const before = await snapshot();
    const rng = new SeededRandom(seed);
    const methods = FUZZED_SERVICES.flatMap((s) => s.methods.map((m) => ({ role: s.role, m })));
    const address = {
      coordinator: cluster.address,
      'resource-manager': `127.0.0.1:${cluster.rmPort}`,
      worker: cluster.processes.address('worker-1'),
    };
    const clients = Object.fromEntries(Object.entries(address).map(([role, a]) => [role, new grpc.Client(a, insecure, clientOptions)]));
    const calls = Array.from({ length: GRPC_CALLS }, (_, i) => {
      const { role, m } = methods[i % methods.length];
      return { role, call: fuzzCall(rng, m, tokens, jobId) };
    });
    const codes = new Map<string, number>();
    const samples = new Map<string, string>();
    const wrong: string[] = [];
    await pool(calls.length, 16, async (i) => {
      const { role, call: c } = calls[i];
      const a = await sendCall(clients[role], c, DEADLINE_MS);
      const key = `${c.method.service}.${c.method.name} ${grpc.status[a.code] ?? a.code}`;
      codes.set(key, (codes.get(key) ?? 0) + 1);
      if (!samples.has(key)) samples.set(key, a.details.slice(0, 160));
      const why = wrongGrpcAnswer(c, a);
      if (why) wrong.push(`#${i} ${c.method.path} (${c.kind}, ${JSON.stringify(c.metadata)}): ${why}`);
    });
    const frames = await pool(RAW_FRAMES, 8, async () => {
      const m = rng.pick(methods);
      const c = rawFrameCase(rng, m.m.path);
      return { path: m.m.path, a: await sendRawFrame(address[m.role], c, DEADLINE_MS) };
    });
    for (const { path, a } of frames) {
      // An unreadable grpc-timeout is ignored (the call runs without a deadline): OK may follow.
      // grpc-js drops an incomplete message at the end of a client stream and ends the call as
      // the handler does (DataExchange: OK); nothing of it reaches the handler.
      const droppedTail = path.endsWith('/Exchange') && /cut short/.test(a.what);
      // grpc-js reads a message flagged compressed under the identity encoding as it is: it may decode.
      const mayDecode = a.what === 'a bad grpc-timeout' || a.what === 'a compressed flag without grpc-encoding';
      if (a.grpcStatus <= 0 && a.http === 200 && !mayDecode && !droppedTail)
        wrong.push(`${path} with ${a.what}: no error status (${a.grpcStatus}, ${a.message})`);
      if (a.grpcStatus === -1 && a.http === 0) wrong.push(`${path} with ${a.what}: no answer within ${DEADLINE_MS} ms`);
    }
    for (const c of Object.values(clients)) c.close();
    if (process.env.TIDEWAY_FUZZ_VERBOSE)
      process.stderr.write(
        `${[...codes]
          .sort()
          .map(([k, n]) => `${k}: ${n} (${samples.get(k)})`)
          .join('\n')}\n`,
      );
    expect(wrong.slice(0, 20), `seed ${seed}`).toEqual([]);
    await expectUnchanged(before);
  }, 300_000);

  it(`answers ${REST_REQUESTS} malformed REST requests with an error, and changes nothing`, async () => {
    const before = await snapshot();
    const rng = new SeededRandom(seed ^ 0x5eed);
    const cases = Array.from({ length: REST_REQUESTS }, () => restCase(rng, '', tokens, jobId, MAX_BODY));
    const wrong: string[] = [];
    await pool(cases.length, 8, async (i) => {
      const c = cases[i];
      const a = await send(c);
      const shown = `#${i} ${c.method} ${c.path.slice(0, 120)} (${String(c.body ?? '').length} bytes)`;
      if (a.status === 0) wrong.push(`${shown}: ${a.text}`);
      else if (a.status >= 500) wrong.push(`${shown}: ${a.status} ${a.text.slice(0, 200)}`);
      // A stop of no jobs (`[]`) is answered `[]`; anything else a POST got through is wrong.
      else if (c.mutating && a.status < 300 && !c.path.startsWith('/encrypt-config') && a.text !== '[]')
        wrong.push(`${shown}: accepted (${a.status} ${a.text.slice(0, 200)})`);
      else if (a.status >= 400 && c.method !== 'HEAD' && !/"status":"fail"|<html|not found/i.test(a.text))
        wrong.push(`${shown}: ${a.status} without a message: ${a.text.slice(0, 200)}`);
    });
    expect(wrong.slice(0, 20), `seed ${seed}`).toEqual([]);
    await expectUnchanged(before);
  }, 300_000);

  it('cuts off slow-loris clients and connections past max-connections, and keeps answering others', async () => {
    const before = await snapshot();
    const slow = Array.from({ length: 20 }, (_, i) => slowClient('127.0.0.1', restPort, 300, 15_000, i % 2 === 1, tokens.operator));
    const idle = Array.from({ length: MAX_CONNECTIONS + 10 }, () => idleClient('127.0.0.1', restPort, 15_000));
    // While they hold their connections, the REST API still answers (some of ours may be the
    // ones past max-connections: retry until the slow ones are gone).
    await cluster.until('the REST API answers beside the slow clients', async () => (await send(get('/overview'))).status === 200, 15_000);
    const ends = await Promise.all([...slow, ...idle]);
    const limit = REQUEST_TIMEOUT + 1000 + 2000;
    // Each connection the server did not close in time, with its kind and what it was answered.
    const late = ends
      .map((e, i) => ({ i, ...e }))
      .filter((e) => e.closedAfterMs < 0 || e.closedAfterMs >= limit)
      .map(
        (e) => `#${e.i} ${e.kind}: ${e.closedAfterMs < 0 ? 'never closed' : `closed after ${e.closedAfterMs} ms`}, answer '${e.answer}'`,
      );
    expect(late, `connections not cut off within ${limit} ms`).toEqual([]);
    // Those that got as far as a request were answered 408.
    const answered = ends.filter((e) => e.answer !== '');
    for (const end of answered) expect(end.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answered.length).toBeGreaterThan(0);
    expect((await send(get('/overview'))).status).toBe(200);
    await expectUnchanged(before);
  }, 120_000);
});

function get(path: string): RestCase {
  return { method: 'GET', path, headers: { authorization: `Bearer ${tokens.viewer}` }, mutating: false };
}

/** Sends a REST request with node:http (any method, any body), answered within 15 s or status 0. */
function send(c: RestCase): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: restPort,
        method: c.method,
        path: c.path,
        headers: { ...c.headers, ...(body ? { 'content-length': body.length } : {}) },
        timeout: 15_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (text.length < 4096) text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', (err) => resolve({ status: res.statusCode ?? 0, text: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(body);
  });
}
