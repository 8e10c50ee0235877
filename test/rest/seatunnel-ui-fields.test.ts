/**
 * The fields SeaTunnel's own web UI (seatunnel-engine-ui) reads, endpoint by endpoint, from a
 * real cluster's REST API: a running job, a finished one and a failed one, as its pages read them
 * (docs/rest-api.md, "What SeaTunnel's web UI reads"). Written from reading the UI's sources; none
 * of its code is here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster } from '../cluster/test-cluster.js';
import { freePort, UI_FAILED_JOB, UI_FINISHED_JOB, UI_RUNNING_JOB } from '@tideway/testing';
import { anyOf, matching } from './rest-shapes.js';
import { expectUiJob, expectUiMonitor, METRIC_TOTALS, TABLE_MAPS, type UiJob } from './ui-fields.js';

let cluster: TestCluster;
let base = '';
let port = 0;

beforeAll(async () => {
  port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: { zone: 'a' } }],
    slotNum: 6,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

async function get<T>(path: string): Promise<{ status: number; json: T }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, json: (await res.json()) as T };
}

async function submit(config: string, jobId: string): Promise<void> {
  const res = await fetch(`${base}/submit-job?format=hocon&jobId=${jobId}`, {
    method: 'POST',
    body: config,
    headers: { 'content-type': 'text/plain' },
  });
  expect(res.status, await res.text()).toBe(200);
}

const until = (what: string, check: () => Promise<boolean>) => cluster.until(what, check, 60_000);

// The jobs of @tideway/testing's seatunnel-ui-jobs: a running one of two tables (one through a Sql
// transform, live metrics on), a finished one and a failed one.
const RUNNING = '810000000000000001';
const FINISHED = '810000000000000002';
const FAILED = '810000000000000003';

describe("the fields SeaTunnel's web UI reads", () => {
  beforeAll(async () => {
    await submit(UI_RUNNING_JOB, RUNNING);
    await submit(UI_FINISHED_JOB, FINISHED);
    await submit(UI_FAILED_JOB, FAILED);
    const status = async (id: string) => (await get<UiJob>(`/job-info/${id}`)).json.jobStatus;
    await until('the finished job', async () => (await status(FINISHED)) === 'FINISHED');
    await until('the failed job', async () => (await status(FAILED)) === 'FAILED');
    // Running, with rows written to both sinks.
    await until('rows through both tables', async () => {
      const { metrics } = (await get<UiJob>(`/job-info/${RUNNING}`)).json;
      return Number(metrics?.TableSinkWriteCount?.['shop.users']) > 0 && Number(metrics?.TableSinkWriteCount?.['shop.orders']) > 0;
    });
  }, 120_000);

  it('the overview page: /overview, every figure as text', async () => {
    const { json } = await get<Record<string, unknown>>('/overview');
    for (const key of [
      'projectVersion',
      'gitCommitAbbrev',
      'totalSlot',
      'unassignedSlot',
      'workers',
      'runningJobs',
      'finishedJobs',
      'failedJobs',
      'cancelledJobs',
    ])
      expect(json[key], key).toEqual(anyOf(String));
    expect(json).toMatchObject({ totalSlot: '6', workers: '1', runningJobs: '1', finishedJobs: '1', failedJobs: '1' });
  });

  it('the job detail page of a running job: DAG, vertex metrics table, configuration', async () => {
    const { json: job } = await get<UiJob>(`/job-info/${RUNNING}`);
    expectUiJob(job, { jobId: RUNNING, status: 'RUNNING' });
    expect(job).not.toHaveProperty('finishTime');
    expect(job).toMatchObject({ isStartWithSavePoint: false });
    // Both tables on both sides: the users table keeps its name through the Sql transform.
    const sources = job.jobDag.vertexInfoMap.filter((v) => v.type === 'source');
    const sinks = job.jobDag.vertexInfoMap.filter((v) => v.type === 'sink');
    expect(sources.flatMap((v) => v.tablePaths).sort()).toEqual(['shop.orders', 'shop.users']);
    expect(sinks.flatMap((v) => v.tablePaths).sort()).toEqual(['shop.orders', 'shop.users']);
    expect(job.jobDag.vertexInfoMap.filter((v) => v.type === 'transform')).toHaveLength(1);
    // Each vertex is numbered by its plugin block's place in its section of the config, as
    // SeaTunnel names its actions: the orders source is the second source block in the second
    // pipeline, Source[1], not the first of its pipeline.
    expect(job.jobDag.vertexInfoMap.map((v) => v.vertexName).sort()).toEqual([
      'pipeline-1 [Sink[0]-Console]',
      'pipeline-1 [Source[0]-FakeSource]',
      'pipeline-1 [Transform[0]-Sql]',
      'pipeline-2 [Sink[1]-Console]',
      'pipeline-2 [Source[1]-FakeSource]',
    ]);
    for (const map of TABLE_MAPS) expect(Object.keys(job.metrics[map]).sort(), map).toEqual(['shop.orders', 'shop.users']);
    expect(Number(job.metrics.TableSourceReceivedCount['shop.users'])).toBeGreaterThan(0);
    // What the configuration tab shows.
    expect(job.envOptions ?? job.jobDag.envOptions).toMatchObject({ 'job.mode': 'STREAMING', parallelism: '1' });
    // /running-job/:jobId is the same answer.
    expect((await get<UiJob>(`/running-job/${RUNNING}`)).json.jobStatus).toBe('RUNNING');
  });

  it('the job detail page of a finished and of a failed job: finishTime, and the exception tab shows the error', async () => {
    const { json: done } = await get<UiJob>(`/job-info/${FINISHED}`);
    expectUiJob(done, { jobId: FINISHED, status: 'FINISHED' });
    expect(done).toMatchObject({ errorMsg: null, finishTime: matching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    expect(done.metrics).toMatchObject({
      SourceReceivedCount: '20',
      SinkWriteCount: '20',
      TableSourceReceivedCount: { 'shop.items': '20' },
      TableSinkWriteCount: { 'shop.items': '20' },
    });
    const { json: failed } = await get<UiJob>(`/job-info/${FAILED}`);
    expectUiJob(failed, { jobId: FAILED, status: 'FAILED' });
    expect(failed.errorMsg).toEqual(matching(/\S/));
  });

  it('the jobs page: /running-jobs/summary and /finished-jobs/<state> paged as {data, total}', async () => {
    const running = (await get<{ data: UiJob[]; total: number }>('/running-jobs/summary?page=1&rows=10')).json;
    expect(running.total).toBe(1);
    expect(running.data.map((j) => j.jobId)).toEqual([RUNNING]);
    expectUiJob(running.data[0], { jobId: RUNNING, status: 'RUNNING' });
    const finished = (await get<{ data: UiJob[]; total: number }>('/finished-jobs/finished?page=1&rows=10')).json;
    expect(finished).toMatchObject({ total: 1, data: [{ jobId: FINISHED, jobStatus: 'FINISHED' }] });
    const all = (await get<{ data: UiJob[]; total: number }>('/finished-jobs?page=1&rows=1')).json;
    expect(all.total).toBe(2);
    // Newest end first, one a page.
    expect(all.data).toHaveLength(1);
    const second = (await get<{ data: UiJob[]; total: number }>('/finished-jobs?page=2&rows=1')).json;
    expect([all.data[0].jobId, second.data[0].jobId].sort()).toEqual([FINISHED, FAILED]);
    // Without page: the whole list, as before.
    expect((await get<UiJob[]>('/running-jobs')).json.map((j) => j.jobId)).toEqual([RUNNING]);
    // A page past the end, or not a page: refused, naming it.
    expect(await get('/finished-jobs?page=3&rows=1')).toEqual({
      status: 400,
      json: { status: 'fail', message: 'page 3 is past the last page: 2 jobs at 1 rows a page' },
    });
    expect((await get('/running-jobs/summary?page=0')).json).toEqual({
      status: 'fail',
      message: "page '0' is not a page number: expected a whole number of at least 1",
    });
    // The first page of an empty list is empty.
    expect((await get('/finished-jobs/SAVEPOINT_DONE?page=1')).json).toEqual({ data: [], total: 0 });
  });

  it('the master and workers pages: /system-monitoring-information, picked by isMaster', async () => {
    const { json } = await get<Array<Record<string, string>>>('/system-monitoring-information');
    const masters = json.filter((m) => m.isMaster === 'true');
    const workers = json.filter((m) => m.isMaster === 'false');
    expect(masters).toHaveLength(1);
    expect(workers).toHaveLength(1);
    expect(json).toHaveLength(2);
    expectUiMonitor(masters[0]);
    expectUiMonitor(workers[0]);
    // A worker's figures, as it reports them with its heartbeats: the later Workers page shows
    // its process CPU, heap used / max, garbage collections and threads, and a dash for a figure
    // that is missing.
    expect(workers[0]).toMatchObject({
      'heap.memory.used': matching(/^\d+(\.\d)?[KMG]?$/),
      'heap.memory.max': matching(/^\d+(\.\d)?[KMG]?$/),
      'heap.memory.used/max': matching(/^\d+\.\d\d%$/),
      'load.process': matching(/^\d+\.\d\d%$/),
      'load.system': matching(/^\d+\.\d\d%$/),
      'minor.gc.count': matching(/^\d+$/),
      'major.gc.count': matching(/^\d+$/),
      'minor.gc.time': matching(/^\d+ms$/),
      'thread.count': matching(/^\d+$/),
      'thread.peakCount': matching(/^\d+$/),
    });
    // The master entry is this coordinator's own process, with SeaTunnel's health figures.
    expect(masters[0]).toMatchObject({
      'heap.memory.used': matching(/^\d+(\.\d)?[KMG]?$/),
      'heap.memory.max': matching(/^\d+(\.\d)?[KMG]?$/),
      'heap.memory.used/total': matching(/^\d+\.\d\d%$/),
      'load.process': matching(/^\d+\.\d\d%$/),
      'minor.gc.count': matching(/^\d+$/),
      'major.gc.time': matching(/^\d+ms$/),
    });
    const [worker] = await cluster.workers();
    expect(workers[0].port).toBe(worker.address.split(':').pop());
  });

  it("the workers' resources: /resource/workers", async () => {
    const { json } = await get<{ available: boolean; collectedAt: number; workers: Array<Record<string, unknown>> }>('/resource/workers');
    expect(json).toMatchObject({ available: true, collectedAt: anyOf(Number) });
    expect(json.workers).toHaveLength(1);
    const [w] = json.workers;
    const [worker] = await cluster.workers();
    expect(w).toMatchObject({
      address: worker.address,
      tags: { zone: 'a' },
      totalSlots: 6,
      dynamicSlot: false,
      totalCpuCores: anyOf(Number),
      totalHeapMemoryBytes: anyOf(Number),
      availableHeapMemoryBytes: anyOf(Number),
      runningJobIds: [RUNNING],
    });
    expect((w.freeSlots as number) + (w.usedSlots as number)).toBe(6);
    expect(w.usedSlots).toBeGreaterThan(0);
  });

  it("a job's checkpoints: /jobs/checkpoints/:jobId carries what the checkpoints tab reads", async () => {
    await until('a completed checkpoint', async () => {
      const o = (await get<{ pipelines: Array<{ counts: { completed: number } }> }>(`/jobs/checkpoints/${RUNNING}`)).json;
      return o.pipelines.some((p) => p.counts.completed > 0);
    });
    const { json } = await get<{ jobId: string; updatedAt: number; pipelines: Array<Record<string, unknown>> }>(
      `/jobs/checkpoints/${RUNNING}`,
    );
    expect(json).toMatchObject({ jobId: RUNNING, updatedAt: anyOf(Number) });
    for (const p of json.pipelines) {
      expect(p).toMatchObject({
        pipelineId: anyOf(Number),
        counts: {
          triggered: anyOf(Number),
          completed: anyOf(Number),
          failed: anyOf(Number),
          inProgress: anyOf(Number),
          restored: anyOf(Number),
        },
        inProgress: anyOf(Array),
        history: anyOf(Array),
      });
    }
  });

  it('the operations page: /http-service/status and /option-rules', async () => {
    expect((await get('/http-service/status')).json).toEqual({
      httpEnabled: true,
      httpsEnabled: false,
      configuredHttpPort: port,
      configuredHttpsPort: 0,
      httpPort: port,
      httpsPort: 0,
      contextPath: '/',
      dynamicPortEnabled: false,
      portRange: 100,
      basicAuthEnabled: false,
      mutualTlsEnabled: false,
    });
    const rules = (
      await get<{ engineType: string; pluginType: string; pluginName: string; optionRule: Record<string, Array<Record<string, unknown>>> }>(
        '/option-rules?type=source&plugin=fakesource',
      )
    ).json;
    expect(rules).toMatchObject({
      engineType: 'seatunnel',
      pluginType: 'source',
      pluginName: 'FakeSource',
      optionRule: { conditionRules: [], valueConstraints: [] },
    });
    const rowNum = rules.optionRule.optionalOptions.find((o) => o.key === 'row.num');
    expect(rowNum).toEqual({
      key: 'row.num',
      type: 'java.lang.Integer',
      defaultValue: 5,
      description: anyOf(String),
      fallbackKeys: [],
      optionValues: null,
    });
    const jdbc = (
      await get<{ optionRule: { requiredOptions: Array<{ ruleType: string; options: Array<{ key: string }> }> } }>(
        '/option-rules?type=sink&plugin=Jdbc',
      )
    ).json;
    expect(jdbc.optionRule.requiredOptions[0].ruleType).toBe('ABSOLUTELY_REQUIRED');
    expect(jdbc.optionRule.requiredOptions[0].options.map((o) => o.key)).toContain('url');
    expect(await get('/option-rules?type=source&plugin=NoSuch')).toEqual({
      status: 404,
      json: { status: 'fail', message: "option-rules: Tideway has no source plugin 'NoSuch'" },
    });
    expect((await get('/option-rules?type=catalog&plugin=Jdbc')).json).toEqual({
      status: 'fail',
      message: "option-rules: type 'catalog' is not source, transform or sink",
    });
  });

  it('the live vertex and edge metrics: /metrics/realtime/jobs/:jobId/vertices and /edges, as the later UI reads them', async () => {
    type Series<K extends string> = { bucketMs: number; fromMs: number; toMs: number } & Record<
      K,
      Array<{ vertexId?: number; queueId?: number; targetVertexId?: number; points: Array<Record<string, number>> }>
    >;
    const { json: job } = await get<UiJob>(`/job-info/${RUNNING}`);
    const ids = (type: string) => job.jobDag.vertexInfoMap.filter((v) => v.type === type).map((v) => Number(v.vertexId));
    // A read folds what changed since the previous one into the current bucket: the first read
    // sets the baselines. Task groups report every 500 ms, each on its own clock, so within a few
    // reads every source has read or idle time and rows have reached both sinks.
    let vertices!: Series<'vertices'>;
    const sum = (id: number, f: (p: Record<string, number>) => number) =>
      vertices.vertices.find((v) => v.vertexId === id)?.points.reduce((n, p) => n + f(p), 0) ?? 0;
    await until('points of every vertex: time at each source, rows into each sink', async () => {
      vertices = (await get<Series<'vertices'>>(`/metrics/realtime/jobs/${RUNNING}/vertices?windowMs=60000`)).json;
      return (
        vertices.vertices.length === job.jobDag.vertexInfoMap.length &&
        ids('source').every((id) => sum(id, (p) => p.sourceReadNs + p.sourceIdleNs) > 0) &&
        ids('sink').every((id) => sum(id, (p) => p.sinkRecordsIn) > 0)
      );
    });
    expect(vertices).toMatchObject({ bucketMs: 2000, fromMs: anyOf(Number), toMs: anyOf(Number) });
    expect(vertices.toMs - vertices.fromMs).toBe(60_000);
    // Every DAG vertex, by its jobDag id, in order.
    expect(vertices.vertices.map((v) => v.vertexId)).toEqual(job.jobDag.vertexInfoMap.map((v) => Number(v.vertexId)).sort((a, b) => a - b));
    const POINT = [
      'ts',
      'subtaskCount',
      'sourceReadNs',
      'sourceIdleNs',
      'sourceReadRatio',
      'sourceIdleRatio',
      'transformProcessNs',
      'transformRecordsIn',
      'transformRecordsOut',
      'transformBusyRatio',
      'transformProcessNsPerRecord',
      'sinkWriteNs',
      'sinkRecordsIn',
      'sinkPrepareCommitNs',
      'sinkCommitNs',
      'sinkAbortNs',
      'sinkBusyRatio',
      'sinkWriteNsPerRecord',
    ];
    for (const v of vertices.vertices)
      for (const p of v.points) {
        expect(Object.keys(p).sort()).toEqual([...POINT].sort());
        for (const key of POINT) expect(p[key], key).toEqual(anyOf(Number));
        expect(p.ts % 2000).toBe(0);
        for (const key of POINT.filter((k) => k.endsWith('Ratio'))) expect(p[key], key).toBeLessThanOrEqual(1);
      }
    const at = (id: number) => vertices.vertices.find((v) => v.vertexId === id)!.points;
    // A source runs in one task group; the sinks' subtasks are their task groups.
    for (const id of ids('source')) expect(at(id).every((p) => p.subtaskCount === 1)).toBe(true);
    const parallelisms = ids('sink').map((id) => Math.max(...at(id).map((p) => p.subtaskCount)));
    expect(parallelisms.sort()).toEqual([1, 2]);
    for (const id of ids('sink'))
      for (const p of at(id)) expect(p.sinkWriteNsPerRecord).toBeCloseTo(p.sinkRecordsIn > 0 ? p.sinkWriteNs / p.sinkRecordsIn : 0, 3);

    // The one shuffle, into the orders sink at parallelism 2: its input queues (16 batches each)
    // and the time its source waited for them.
    const ordersSink = job.jobDag.vertexInfoMap.find((v) => v.type === 'sink' && v.tablePaths.includes('shop.orders'))!;
    let edges!: Series<'edges'>;
    await until('a point of the shuffle', async () => {
      edges = (await get<Series<'edges'>>(`/metrics/realtime/jobs/${RUNNING}/edges`)).json;
      return edges.edges.length > 0 && edges.edges[0].points.length > 0;
    });
    expect(edges).toMatchObject({ bucketMs: 2000, fromMs: anyOf(Number), toMs: anyOf(Number) });
    expect(edges.edges.map((e) => [e.queueId, e.targetVertexId])).toEqual([[Number(ordersSink.vertexId), Number(ordersSink.vertexId)]]);
    for (const p of edges.edges[0].points) {
      expect(p).toEqual({
        ts: anyOf(Number),
        emitBlockedNs: anyOf(Number),
        subtaskCount: 2,
        bpRatio: anyOf(Number),
        queueCapacity: 32,
        queueSize: anyOf(Number),
        queueFillRatio: anyOf(Number),
      });
      expect(p.queueFillRatio).toBeCloseTo(p.queueSize / 32, 5);
      expect(p.bpRatio).toBeLessThanOrEqual(1);
    }

    // The jobs SeaTunnel's collector lists, with its status.
    const { json: listed } = await get<{ jobs: Array<Record<string, unknown>>; collector: Record<string, unknown> }>('/metrics/realtime');
    expect(listed.jobs).toEqual([
      { jobId: RUNNING, enabled: true, bucketMs: 2000, retentionMinutes: 3, latestBucketStartMs: anyOf(Number) },
    ]);
    expect(listed.jobs[0].latestBucketStartMs as number).toBeGreaterThan(0);
    expect(listed.collector).toMatchObject({
      pollIntervalMs: 0,
      fetchTimeoutMs: anyOf(Number),
      lastCollectStartMs: anyOf(Number),
      lastCollectEndMs: anyOf(Number),
      lastRawMetricsFetchCostMs: anyOf(Number),
      lastRawMetricsBlobs: 4,
      collectFailureCount: 0,
    });
    expect((await get('/metrics/realtime/jobs')).json).toMatchObject({ jobs: [{ jobId: RUNNING }] });
    // An ended or unknown job has no series: SeaTunnel answers an empty object.
    expect(await get(`/metrics/realtime/jobs/${FINISHED}/vertices`)).toEqual({ status: 200, json: {} });
    expect(await get('/metrics/realtime/jobs/810000000000000999/edges')).toEqual({ status: 200, json: {} });
    // Bad input is refused, naming it.
    expect(await get(`/metrics/realtime/jobs/${RUNNING}/vertices?windowMs=soon`)).toEqual({
      status: 400,
      json: { status: 'fail', message: "windowMs 'soon' is not a whole number of milliseconds" },
    });
    expect((await get('/metrics/realtime/jobs/x1/edges')).status).toBe(400);
  });

  it('the metric totals are whole numbers and rates as SeaTunnel writes them', async () => {
    const { json: job } = await get<UiJob>(`/job-info/${RUNNING}`);
    for (const key of METRIC_TOTALS) expect(job.metrics[key], key).toMatch(/QPS|PerSeconds/.test(key) ? /^\d+\.\d+(E\d+)?$/ : /^\d+$/);
    await fetch(`${base}/stop-job`, {
      method: 'POST',
      body: JSON.stringify({ jobId: RUNNING }),
      headers: { 'content-type': 'application/json' },
    });
    await until('the running job cancelled', async () => (await get<UiJob>(`/job-info/${RUNNING}`)).json.jobStatus === 'CANCELED');
    const { json: ended } = await get<UiJob>(`/job-info/${RUNNING}`);
    expectUiJob(ended, { jobId: RUNNING, status: 'CANCELED' });
    expect(Number(ended.metrics.TableSinkWriteCount['shop.orders'])).toBeGreaterThan(0);
  });
});
