/**
 * A client in another language, knowing nothing of Tideway's protos, drives a real cluster
 * through server reflection alone: Python's grpcio with protobuf's C++ descriptor pool
 * (reflect_client.py), which refuses descriptors that protoc would not write (the map fields
 * proto-loader's rebuilt descriptors got wrong). It lists and describes every service of every
 * process, then calls every JobService method: submit (with a map field), plan, get, list,
 * watch (server streaming), metrics, overview, savepoint and cancel.
 * Needs Debian's python3-grpcio, grpc-proto and protoc (scripts/ensure-client-tools.sh).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, fakeJob, type ProcessName } from '../cluster/test-cluster.js';

const CLIENT = join(import.meta.dirname, 'reflect_client.py');
let cluster: TestCluster;

interface PyResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the Python client against one process of the cluster. */
function py(process: ProcessName, args: string[]): Promise<PyResult> {
  const child = spawn('/usr/bin/python3', [CLIENT, `127.0.0.1:${cluster.grpcPorts.get(process)}`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Runs the client and parses its JSON answer; fails with the client's stderr otherwise. */
async function pyJson<T = Record<string, unknown>>(process: ProcessName, args: string[]): Promise<T> {
  const res = await py(process, args);
  expect(res.code, `${args.join(' ')}\n${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout) as T;
}

const coordinator = (args: string[]) => pyJson('coordinator', args);
const callJob = <T = Record<string, unknown>>(method: string, body: object) =>
  pyJson<T>('coordinator', ['call', `tideway.v1.JobService/${method}`, JSON.stringify(body)]);

beforeAll(async () => {
  cluster = await TestCluster.start({ workers: [{ attributes: {} }], slotNum: 2, jobScheduleStrategy: 'WAIT' });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a reflection-only Python client (grpcio, C++ descriptor pool)', () => {
  const served: Record<string, string[]> = {
    coordinator: ['tideway.v1.JobService', 'tideway.v1.CoordinatorService', 'tideway.v1.TokenService'],
    'resource-manager': ['tideway.v1.ResourceManagerService'],
    'worker-1': ['tideway.v1.WorkerService', 'tideway.v1.DataExchange'],
  };

  for (const [name, services] of Object.entries(served)) {
    it(`${name}: lists its services over reflection v1 and v1alpha, and describes each`, async () => {
      for (const version of ['v1', 'v1alpha']) {
        const res = await py(name as ProcessName, ['--reflection', version, 'list']);
        expect(res.code, res.stderr).toBe(0);
        expect(res.stdout.trim().split('\n').sort()).toEqual(
          [...services, 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'].sort(),
        );
      }
      for (const s of [...services, 'grpc.health.v1.Health']) {
        const d = await pyJson<{ service: string; file: string; methods: unknown[] }>(name as ProcessName, ['describe', s]);
        expect(d.service).toBe(s);
        expect(d.methods.length).toBeGreaterThan(0);
      }
    });
  }

  it('describes JobService from its real file, and its map fields as maps', async () => {
    const svc = await coordinator(['describe', 'tideway.v1.JobService']);
    expect(svc.file).toBe('tideway/v1/job_service.proto');
    const methods = svc.methods as { name: string; serverStreaming: boolean }[];
    expect(methods.map((m) => m.name).sort()).toEqual(
      [
        'CancelJob',
        'CheckpointJob',
        'DrainWorker',
        'GetClusterOverview',
        'GetJob',
        'GetJobMetrics',
        'GetJobLogs',
        'InstallPluginPackage',
        'ListPluginPackages',
        'DescribePluginPackage',
        'RemovePluginPackage',
        'ListJobs',
        'PlanJob',
        'SavepointJob',
        'StepDown',
        'SubmitJob',
        'UndrainWorker',
        'WatchJob',
      ].sort(),
    );
    expect(methods.find((m) => m.name === 'WatchJob')!.serverStreaming).toBe(true);
    const req = await coordinator(['describe', 'tideway.v1.SubmitJobRequest']);
    expect((req.fields as { name: string; map: boolean }[]).find((f) => f.name === 'variables')).toMatchObject({ map: true });
    const worker = await coordinator(['describe', 'tideway.v1.WorkerInfo']);
    expect(worker.file).toBe('tideway/v1/job_service.proto');
    expect((worker.fields as { name: string; map: boolean }[]).find((f) => f.name === 'attributes')).toMatchObject({ map: true });
  });

  it('calls the health service it learned through reflection', async () => {
    const health = await pyJson('coordinator', [
      'call',
      'grpc.health.v1.Health/Check',
      JSON.stringify({ service: 'tideway.v1.JobService' }),
    ]);
    expect(health).toEqual({ status: 'SERVING' });
  });

  it('plans, submits (with -i variables in the map field), watches, reads metrics, lists, savepoints and cancels a job', async () => {
    // ${rows_per_split} comes from the variables map: a map the client built from the descriptor.
    const config = fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 100 }).replace(
      'row.num = 1000',
      'row.num = ${rows}',
    );
    const submit = { configText: config, configFile: 'python.conf', variables: { rows: '1000' }, jobName: 'from_python' };

    const plan = await callJob<{ text: string }>('PlanJob', submit);
    expect(plan.text).toContain('FakeSource');

    const { jobId } = await callJob<{ jobId: string }>('SubmitJob', submit);
    expect(jobId).toMatch(/^\d+$/);

    // WatchJob streams events; read until one says RUNNING with rows read.
    const watch = await py('coordinator', [
      'stream',
      'tideway.v1.JobService/WatchJob',
      JSON.stringify({ jobId, intervalMs: 200 }),
      '--max',
      '40',
    ]);
    expect(watch.code, watch.stderr).toBe(0);
    const events = watch.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { job?: { status?: string }; metrics?: { sourceReceivedCount?: string } });
    expect(
      events.some((e) => e.job?.status === 'RUNNING' && Number(e.metrics?.sourceReceivedCount ?? 0) > 0),
      watch.stdout.slice(0, 2000),
    ).toBe(true);

    const metrics = await callJob<{ jobId: string; sourceReceivedCount: string }>('GetJobMetrics', { jobId });
    expect(Number(metrics.sourceReceivedCount)).toBeGreaterThan(0);

    const job = await callJob<{ jobName: string; status: string; jobMode: string }>('GetJob', { jobId });
    expect(job).toMatchObject({ jobName: 'from_python', status: 'RUNNING', jobMode: 'STREAMING' });
    const list = await callJob<{ jobs: { jobId: string }[] }>('ListJobs', {});
    expect(list.jobs.map((j) => j.jobId)).toContain(jobId);
    const overview = await callJob<{ workers: { attributes?: unknown }[]; totalSlots: number }>('GetClusterOverview', {});
    expect(overview.totalSlots).toBe(2);

    const cancel = await callJob<{ job: { status: string } }>('CancelJob', { jobId });
    expect(['CANCELING', 'CANCELED']).toContain(cancel.job.status);
    await cluster.until('job CANCELED', async () => (await callJob<{ status: string }>('GetJob', { jobId })).status === 'CANCELED');

    // A savepoint on a second job: stop-with-savepoint ends it SAVEPOINT_DONE.
    const second = await callJob<{ jobId: string }>('SubmitJob', { ...submit, jobName: 'savepointed' });
    await cluster.until(
      'second job RUNNING',
      async () => (await callJob<{ status: string }>('GetJob', { jobId: second.jobId })).status === 'RUNNING',
    );
    const sp = await callJob<{ job: { jobId: string } }>('SavepointJob', { jobId: second.jobId });
    expect(sp.job.jobId).toBe(second.jobId);
    await cluster.until(
      'second job SAVEPOINT_DONE',
      async () => (await callJob<{ status: string }>('GetJob', { jobId: second.jobId })).status === 'SAVEPOINT_DONE',
    );
  }, 180_000);

  it("a client generated from proto/ with Debian's protoc, as docs/clients.md shows, submits and follows a job", async () => {
    const gen = mkdtempSync(join(tmpdir(), 'tideway-pygen-'));
    try {
      const proto = join(import.meta.dirname, '..', '..', 'proto');
      const protoc = spawnSync(
        'protoc',
        [
          '-I',
          proto,
          `--python_out=${gen}`,
          `--grpc_python_out=${gen}`,
          '--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin',
          ...readdirSync(join(proto, 'tideway/v1')).map((f) => join(proto, 'tideway/v1', f)),
        ],
        { encoding: 'utf8' },
      );
      expect(protoc.status, protoc.stderr).toBe(0);
      const script = `
import sys; sys.path.insert(0, ${JSON.stringify(gen)})
import grpc
from tideway.v1 import common_pb2, job_service_pb2 as js, job_service_pb2_grpc as js_grpc
stub = js_grpc.JobServiceStub(grpc.insecure_channel(sys.argv[1]))
job = stub.SubmitJob(js.SubmitJobRequest(config_text=sys.stdin.read(), variables={"rows": "7"}, job_name="generated"))
last = None
for event in stub.WatchJob(js.WatchJobRequest(job_id=job.job_id, interval_ms=200)):
    last = event
print(common_pb2.JobStatus.Name(last.job.status), last.metrics.sink_write_count)
`;
      const config = fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 7 }).replace('row.num = 7', 'row.num = ${rows}');
      const res = spawnSync('/usr/bin/python3', ['-c', script, cluster.address], { input: config, encoding: 'utf8', timeout: 60_000 });
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout.trim()).toBe('FINISHED 7');
    } finally {
      rmSync(gen, { recursive: true, force: true });
    }
  }, 90_000);

  it('a bad call answers with the gRPC status, not a client crash', async () => {
    const res = await py('coordinator', ['call', 'tideway.v1.JobService/GetJob', JSON.stringify({ jobId: '424242' })]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^rpc error: NOT_FOUND: .*424242/m);
  });
});
