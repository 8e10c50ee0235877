/**
 * SeaTunnel's REST API v2 over real HTTP against a real cluster (coordinator, resource manager,
 * one worker with 2 slots), started by `tideway cluster start` with `seatunnel.engine.http` set:
 * the requests of SeaTunnel's rest-api-v2.md answer in SeaTunnel's shapes, and bad requests get
 * SeaTunnel's error shape and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, fakeJob } from '../cluster/test-cluster.js';
import { freePort } from '@tideway/testing';
import { anyOf, containing, matching, type JobInfo, type Overview, type SubmittedJob } from './rest-shapes.js';

/** SeaTunnel's checkpoint overview (GET /jobs/checkpoints/:jobId), the fields this test reads. */
interface CheckpointOverview {
  jobId: string;
  pipelines: Array<{
    pipelineId: number;
    counts: { triggered: number; completed: number; failed: number; inProgress: number; restored: number };
    latestCompleted: Record<string, unknown> | null;
    latestSavepoint: { checkpointId: number; stateSize: number } | null;
    history: Array<{ pipelineId: number; checkpoint: Record<string, unknown> }>;
  }>;
}

/** /encrypt-config's answer: the job config with its secrets encoded. */
interface EncryptedConfig {
  source: Record<string, unknown>[];
  sink: Record<string, unknown>[];
}

let cluster: TestCluster;
let base = '';

beforeAll(async () => {
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: { group: 'platform' } }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  context-path: /seatunnel', '  enable-dynamic-port: false'],
  });
  expect(cluster.logs.get('coordinator')).toContain(`REST API at http://127.0.0.1:${port}/seatunnel`);
  base = `http://127.0.0.1:${port}/seatunnel`;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** One request; `json` is the answer parsed, as the shape T the caller expects (undefined when it is not JSON). */
async function http<T = unknown>(method: 'GET' | 'POST', path: string, body?: string | object, contentType = 'application/json') {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: json as T };
}

async function jobStatus(jobId: string): Promise<string> {
  return (await http<JobInfo>('GET', `/job-info/${jobId}`)).json.jobStatus;
}

async function untilStatus(jobId: string, status: string): Promise<void> {
  await cluster.until(`job ${jobId} ${status}`, async () => (await jobStatus(jobId)) === status, 60_000);
}

/** The batch job of SeaTunnel's submit-job example (JSON). */
const docJob = {
  env: { 'job.mode': 'batch' },
  source: [
    { plugin_name: 'FakeSource', plugin_output: 'fake', 'row.num': 100, schema: { fields: { name: 'string', age: 'int', card: 'int' } } },
  ],
  transform: [],
  sink: [{ plugin_name: 'Console', plugin_input: ['fake'], 'log.print.data': false }],
};

const streaming = () => fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 });

describe("SeaTunnel's REST API v2", () => {
  it('GET /overview: slots, workers and job counts as strings; a tag filter narrows the workers', async () => {
    const all = await http<Overview>('GET', '/overview');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({
      totalSlot: '2',
      unassignedSlot: '2',
      works: '1',
      runningJobs: '0',
      finishedJobs: '0',
      failedJobs: '0',
      cancelledJobs: '0',
    });
    expect(Object.keys(all.json).sort()).toEqual([
      'cancelledJobs',
      'failedJobs',
      'finishedJobs',
      'gitCommitAbbrev',
      'projectVersion',
      'runningJobs',
      'totalSlot',
      'unassignedSlot',
      'workers',
      'works',
    ]);
    expect((await http<Overview>('GET', '/overview?group=platform')).json.works).toBe('1');
    expect((await http('GET', '/overview?group=other')).json).toMatchObject({ works: '0', totalSlot: '0' });
  });

  it('POST /submit-job (JSON, the documented example): jobId and jobName; /job-info and /finished-jobs show it with its DAG and metrics', async () => {
    const res = await http<SubmittedJob>('POST', '/submit-job?jobName=rest_api_test', docJob);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ jobId: matching(/^\d+$/), jobName: 'rest_api_test' });
    const { jobId } = res.json;
    await untilStatus(jobId, 'FINISHED');
    const info = (await http<JobInfo>('GET', `/job-info/${jobId}`)).json;
    expect(info).toMatchObject({
      jobId,
      jobName: 'rest_api_test',
      jobStatus: 'FINISHED',
      createTime: matching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      finishTime: matching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      errorMsg: null,
      metrics: {
        SourceReceivedCount: '100',
        SinkWriteCount: '100',
        TableSourceReceivedCount: { fake: '100' },
        TableSinkWriteCount: { fake: '100' },
      },
    });
    expect(info.jobDag.vertexInfoMap).toEqual([
      { vertexId: anyOf(Number), type: 'source', vertexName: 'pipeline-1 [Source[0]-FakeSource]', tablePaths: ['fake'] },
      { vertexId: anyOf(Number), type: 'sink', vertexName: 'pipeline-1 [Sink[0]-Console]', tablePaths: ['fake'] },
    ]);
    expect(Object.values(info.jobDag.pipelineEdges)).toHaveLength(1);
    expect(info.jobDag.envOptions).toMatchObject({ 'job.mode': 'batch' });
    expect((await http<JobInfo>('GET', `/running-job/${jobId}`)).json.jobStatus).toBe('FINISHED');
    const finished = (await http<Array<{ jobId: string }>>('GET', '/finished-jobs/FINISHED')).json;
    expect(finished.map((j) => j.jobId)).toContain(jobId);
    expect(finished.find((j) => j.jobId === jobId)).toMatchObject({
      jobName: 'rest_api_test',
      jobStatus: 'FINISHED',
      errorMsg: null,
      metrics: { SinkWriteCount: '100' },
    });
    expect((await http<Array<{ jobId: string }>>('GET', '/finished-jobs/CANCELED')).json.map((j) => j.jobId)).not.toContain(jobId);
    expect((await http<Overview>('GET', '/overview')).json.finishedJobs).toBe('1');
  });

  it('POST /submit-job?format=hocon with a jobId: /running-jobs lists it; /stop-job with the id as a JSON number cancels it', async () => {
    const jobId = '733584788375666689';
    const res = await http('POST', `/submit-job?format=hocon&jobId=${jobId}&jobName=hocon_job`, streaming(), 'text/plain');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ jobId, jobName: 'hocon_job' });
    await untilStatus(jobId, 'RUNNING');
    const running = (await http<Array<Record<string, unknown>>>('GET', '/running-jobs')).json;
    expect(running.find((j) => j.jobId === jobId)).toMatchObject({
      jobName: 'hocon_job',
      jobStatus: 'RUNNING',
      pluginJarsUrls: [],
      metrics: { SourceReceivedCount: anyOf(String), TableSourceReceivedCount: { fake: anyOf(String) } },
    });
    const live = (await http('GET', `/job-info/${jobId}`)).json;
    expect(live).toHaveProperty('envOptions');
    expect(live).not.toHaveProperty('finishTime');
    // SeaTunnel's own example sends the id as a number beyond a double's precision.
    const stop = await http('POST', '/stop-job', `{"jobId": ${jobId}, "isStopWithSavePoint": false}`);
    expect(stop.status, stop.text).toBe(200);
    expect(stop.json).toEqual({ jobId });
    await untilStatus(jobId, 'CANCELED');
    expect((await http<Array<{ jobId: string }>>('GET', '/finished-jobs/CANCELED')).json.map((j) => j.jobId)).toContain(jobId);
  });

  it('stop with a savepoint, then /submit-job?isStartWithSavePoint=true resumes the same job', async () => {
    const jobId = '700000000000000001';
    expect((await http('POST', `/submit-job?format=hocon&jobId=${jobId}`, streaming(), 'text/plain')).status).toBe(200);
    await untilStatus(jobId, 'RUNNING');
    await cluster.until(
      'rows read',
      async () => Number((await http<JobInfo>('GET', `/job-info/${jobId}`)).json.metrics.SourceReceivedCount) > 0,
    );
    expect((await http('POST', '/stop-job', { jobId, isStopWithSavePoint: true })).json).toEqual({ jobId });
    await untilStatus(jobId, 'SAVEPOINT_DONE');
    // SeaTunnel's checkpoint overview and history: the savepoint is the pipeline's latest.
    const overview = (await http<CheckpointOverview>('GET', `/jobs/checkpoints/${jobId}`)).json;
    expect(overview.jobId).toBe(jobId);
    const [pipeline] = overview.pipelines;
    expect(pipeline.counts).toMatchObject({ completed: anyOf(Number), failed: anyOf(Number), inProgress: 0 });
    expect(pipeline.counts.completed).toBeGreaterThanOrEqual(1);
    expect(pipeline.latestSavepoint).toMatchObject({
      checkpointType: 'SAVEPOINT_TYPE',
      status: 'COMPLETED',
      triggerTimestamp: anyOf(Number),
      completedTimestamp: anyOf(Number),
      durationMillis: anyOf(Number),
      failureReason: null,
    });
    expect(pipeline.latestSavepoint!.stateSize).toBeGreaterThan(0);
    expect(pipeline.latestCompleted).toEqual(pipeline.latestSavepoint);
    expect(pipeline.history[0]).toEqual({ pipelineId: pipeline.pipelineId, checkpoint: pipeline.latestSavepoint });
    const history = await http<Array<{ pipelineId: number; checkpoint: { checkpointType: string } }>>(
      'GET',
      `/jobs/checkpoints/history/${jobId}?status=completed&limit=1`,
    );
    expect(history.json).toEqual([pipeline.history[0]]);
    const bad = await http('GET', `/jobs/checkpoints/history/${jobId}?status=DONE`);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ status: 'fail', message: "status 'DONE' is not one of COMPLETED, FAILED, CANCELED" });
    const cli = await cluster.cli(['checkpoints', jobId]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(
      new RegExp(`^${pipeline.pipelineId}\\s+${pipeline.latestSavepoint!.checkpointId}\\s+SAVEPOINT\\s+COMPLETED\\s`, 'm'),
    );
    const resumed = await http<SubmittedJob>(
      'POST',
      `/submit-job?format=hocon&jobId=${jobId}&isStartWithSavePoint=true`,
      streaming(),
      'text/plain',
    );
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json.jobId).toBe(jobId);
    await untilStatus(jobId, 'RUNNING');
    expect((await http('GET', `/job-info/${jobId}`)).json).toMatchObject({ isStartWithSavePoint: true });
    expect((await http('POST', '/stop-jobs', [{ jobId, isStopWithSavePoint: false }])).json).toEqual([{ jobId }]);
    await untilStatus(jobId, 'CANCELED');
  });

  it('POST /checkpoint-job takes a checkpoint now; a cancelled job keeps its last one, and /submit-job?restoreWithCheckpoint starts a new job from it', async () => {
    const [jobId, next] = ['700000000000000011', '700000000000000012'];
    expect((await http('POST', `/submit-job?format=hocon&jobId=${jobId}`, streaming(), 'text/plain')).status).toBe(200);
    await untilStatus(jobId, 'RUNNING');
    await cluster.until(
      'rows read',
      async () => Number((await http<JobInfo>('GET', `/job-info/${jobId}`)).json.metrics.SourceReceivedCount) > 0,
    );
    const cp = await http<{ jobId: string; checkpoints: Array<{ pipelineId: number; checkpointId: number; error: string }> }>(
      'POST',
      '/checkpoint-job',
      { jobId },
    );
    expect(cp.status, cp.text).toBe(200);
    expect(cp.json).toEqual({ jobId, checkpoints: [{ pipelineId: 1, checkpointId: anyOf(Number), error: '' }] });
    expect(cp.json.checkpoints[0].checkpointId).toBeGreaterThan(0);
    // From a job still running: refused.
    const early = await http('POST', `/submit-job?format=hocon&jobId=${next}&restoreWithCheckpoint=${jobId}`, streaming(), 'text/plain');
    expect(early.json).toEqual({
      status: 'fail',
      message: containing(`job ${jobId} is RUNNING; a new job starts only from an ended job's checkpoint`),
    });
    expect((await http('POST', '/stop-job', { jobId })).json).toEqual({ jobId });
    await untilStatus(jobId, 'CANCELED');
    const restored = await http<SubmittedJob>(
      'POST',
      `/submit-job?format=hocon&jobId=${next}&restoreWithCheckpoint=${jobId}`,
      streaming(),
      'text/plain',
    );
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json.jobId).toBe(next);
    await untilStatus(next, 'RUNNING');
    expect((await http('POST', '/stop-job', { jobId: next })).json).toEqual({ jobId: next });
    await untilStatus(next, 'CANCELED');
  });

  it('POST /submit-jobs submits each with its params; a bad one refuses the whole batch and submits nothing', async () => {
    const before =
      ((await http('GET', '/finished-jobs')).json as unknown[]).length + ((await http('GET', '/running-jobs')).json as unknown[]).length;
    const bad = await http('POST', '/submit-jobs', [
      { params: { jobId: '123456', jobName: 'SeaTunnel-01' }, ...docJob },
      { params: { jobId: '1234567', jobName: 'SeaTunnel-02' }, ...docJob, source: [{ plugin_name: 'FakeSorce', plugin_output: 'fake' }] },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ status: 'fail', message: containing("unknown source plugin 'FakeSorce'") });
    const after =
      ((await http('GET', '/finished-jobs')).json as unknown[]).length + ((await http('GET', '/running-jobs')).json as unknown[]).length;
    expect(after).toBe(before);

    const ok = await http('POST', '/submit-jobs', [
      { params: { jobId: '123456', jobName: 'SeaTunnel-01' }, ...docJob },
      { params: { jobId: '1234567', jobName: 'SeaTunnel-02' }, ...docJob },
    ]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toEqual([
      { jobId: '123456', jobName: 'SeaTunnel-01' },
      { jobId: '1234567', jobName: 'SeaTunnel-02' },
    ]);
    await untilStatus('123456', 'FINISHED');
    await untilStatus('1234567', 'FINISHED');
  });

  it("bad requests answer SeaTunnel's error shape with what was wrong", async () => {
    const cases: Array<[ReturnType<typeof http>, number, RegExp]> = [
      [http('POST', '/submit-job', '{"env": '), 400, /the job config is not valid JSON/],
      [http('POST', '/submit-job', ''), 400, /the request body is empty/],
      [http('POST', '/submit-job?format=yaml', docJob), 400, /format 'yaml' is not supported/],
      [http('POST', '/submit-job?isStartWithSavePoint=true', docJob), 400, /needs the jobId/],
      [http('POST', '/submit-job?jobId=5&isStartWithSavePoint=true&restoreWithCheckpoint=4', docJob), 400, /cannot be given together/],
      [http('POST', '/submit-job?restoreWithCheckpoint=abc', docJob), 400, /restoreWithCheckpoint 'abc' is not a job id/],
      [http('POST', '/checkpoint-job', {}), 400, /jobId is missing/],
      [
        http(
          'POST',
          '/submit-job?format=hocon',
          'env { job.mode = "BATCH" }\nsource { FakeSource { row.nun = 5 } }\nsink { Console {} }\n',
          'text/plain',
        ),
        400,
        /submit-job\.conf:2.*no option 'row\.nun'/,
      ],
      [http('GET', '/job-info/abc'), 400, /job id 'abc' is not a job id/],
      [http('GET', '/finished-jobs/DONE'), 400, /state 'DONE' is not one of FINISHED, CANCELED, FAILED, SAVEPOINT_DONE, UNKNOWABLE/],
      [http('POST', '/stop-job', { isStopWithSavePoint: false }), 400, /jobId is missing/],
      [http('POST', '/stop-job', { jobId: '424242' }), 400, /424242/],
      [http('POST', '/update-tags', { tag1: 'dev_1' }), 400, /update-tags is not supported/],
      [http('GET', '/nothing-here'), 404, /no route GET \/seatunnel\/nothing-here/],
    ];
    for (const [pending, status, says] of cases) {
      const res = await pending;
      expect(res.status, res.text).toBe(status);
      expect(res.json).toEqual({ status: 'fail', message: matching(says) });
    }
    // An unknown job: SeaTunnel answers with the id alone.
    expect((await http('GET', '/job-info/424242')).json).toEqual({ jobId: '424242' });
  });

  it('POST /encrypt-config encodes username and password with base64 or aes256, as shade.identifier says', async () => {
    const config = {
      env: { parallelism: 1, 'shade.identifier': 'base64' },
      source: [
        {
          plugin_name: 'MySQL-CDC',
          plugin_output: 'fake',
          username: 'seatunnel',
          password: 'seatunnel_password',
          'table-name': 'inventory',
        },
      ],
      transform: [],
      sink: [{ plugin_name: 'Jdbc', table: 'fake_all', username: 'seatunnel', password: 'seatunnel_password' }],
    };
    const res = await http<EncryptedConfig>('POST', '/encrypt-config', config);
    expect(res.status, res.text).toBe(200);
    expect(res.json.source[0]).toMatchObject({ username: 'c2VhdHVubmVs', password: 'c2VhdHVubmVsX3Bhc3N3b3Jk', 'table-name': 'inventory' });
    expect(res.json.sink[0]).toMatchObject({ username: 'c2VhdHVubmVs', password: 'c2VhdHVubmVsX3Bhc3N3b3Jk' });
    const aes = await http<EncryptedConfig>('POST', '/encrypt-config', { ...config, env: { 'shade.identifier': 'aes256' } });
    expect(aes.status, aes.text).toBe(200);
    // SeaTunnel's AES256ConfigShade output for 'seatunnel' (checked with openssl enc -aes-256-cbc).
    expect(aes.json.sink[0].username).toBe('qIjluvTD29IQlFnjZTGFEQ==');
    const other = await http('POST', '/encrypt-config', { ...config, env: { 'shade.identifier': 'aes' } });
    expect(other.status).toBe(400);
    expect(other.json).toEqual({
      status: 'fail',
      message: "the request body: env shade.identifier 'aes' is not supported: Tideway knows default, base64, aes256",
    });
  });

  it('every process answers the probes beside its metrics: /livez alive, /readyz ready with its reason', async () => {
    const roles = { coordinator: 'coordinator', 'resource-manager': 'resource-manager', 'worker-1': 'worker' } as const;
    for (const [name, role] of Object.entries(roles)) {
      const port = cluster.metricsPorts.get(name as keyof typeof roles)!;
      const live = await fetch(`http://127.0.0.1:${port}/livez`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'alive' });
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await ready.json()) as { status: string; checks: Record<string, { ready: boolean; reason: string }> };
      expect(ready.status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual({ status: 'ready', checks: { [role]: { ready: true, reason: expect.any(String) as unknown } } });
    }
  });

  it('GET /system-monitoring-information, /metrics, /openmetrics and /logs', async () => {
    const sys = (await http<Array<Record<string, string>>>('GET', '/system-monitoring-information')).json;
    expect(sys[0]).toMatchObject({
      isMaster: 'true',
      host: '127.0.0.1',
      processors: matching(/^\d+$/),
      'physical.memory.total': matching(/G$/),
      'heap.memory.used': matching(/M$/),
    });
    expect(sys).toHaveLength(2); // the coordinator and the worker
    const prom = await http('GET', '/metrics');
    expect(prom.type).toMatch(/^text\/plain/);
    expect(prom.text).toMatch(/^tideway_jobs\{status="FINISHED"\} \d+$/m);
    const open = await http('GET', '/openmetrics');
    expect(open.type).toMatch(/^application\/openmetrics-text/);
    expect(open.text.trimEnd()).toMatch(/# EOF$/);
    // The per-job log files of the jobs run above, one per job and process (docs/logs.md).
    const logs = (await http<Array<{ node: string; logLink: string; logName: string }>>('GET', '/logs?format=json')).json;
    expect(logs.length).toBeGreaterThan(0);
    for (const f of logs) expect(f.logLink).toBe(`${base}/logs/${f.logName}`);
  });
});
