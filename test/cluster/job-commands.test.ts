import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatusToJSON, type JobInfo } from '@tideway/contracts';
import { call } from '@tideway/rpc';
import { startPostgres } from '@tideway/testing';
import pg from 'pg';
import { HeldProxy } from './held-proxy.js';
import { casesDir } from './conformance-cases.js';
import { TestCluster, fakeJob, jobFile } from './test-cluster.js';

/**
 * The job API over a real cluster (coordinator, resource manager, 2 workers with 2 slots each,
 * WAIT strategy), driven through the CLI as a user would, with SeaTunnel's flags.
 */
let cluster: TestCluster;
const status = (j: JobInfo) => jobStatusToJSON(j.status);

beforeAll(async () => {
  cluster = await TestCluster.start({
    workers: [{ attributes: { group: 'platform', team: 'team1' } }, { attributes: { group: 'platform', team: 'team2' } }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
  });
});

afterAll(async () => {
  await cluster?.stop();
});

async function submitAsync(file: string, extra: string[] = []): Promise<string> {
  const res = await cluster.cli(['-c', file, '--async', ...extra]);
  expect(res.code, res.stderr).toBe(0);
  const id = res.stdout.trim();
  expect(id).toMatch(/^\d+$/);
  return id;
}

async function untilStatus(jobId: string, want: string, timeoutMs = 60_000): Promise<void> {
  await cluster.until(`job ${jobId} ${want}`, async () => status(await cluster.job(jobId)) === want, timeoutMs);
}

/** Slots the resource manager has granted, per worker, never more than the worker has. */
async function usedSlots(): Promise<number> {
  const workers = await cluster.workers();
  for (const w of workers) expect(w.assignedSlots.length, `worker ${w.address}`).toBeLessThanOrEqual(w.slotNum);
  return workers.reduce((n, w) => n + w.assignedSlots.length, 0);
}

async function untilAllSlotsFree(): Promise<void> {
  await cluster.until(
    'every slot free',
    async () => (await usedSlots()) === 0 && (await cluster.metric('resource-manager', 'tideway_slots_used')) === 0,
  );
  for (const w of ['worker-1', 'worker-2'] as const) {
    await cluster.until(`${w} runs nothing`, async () => (await cluster.metric(w, 'tideway_worker_task_groups_running')) === 0);
  }
}

describe('cluster job commands', () => {
  it.skipIf(!casesDir)(
    'a streaming job: submit --async, RUNNING in list (-l) and status (-j), growing metrics (--metrics), cancel (-can) ends it CANCELED and frees its slots',
    async () => {
      const id = await submitAsync(`${casesDir}/seatunnel-starter-e2e__batch_cancel_task_1.conf`);
      await untilStatus(id, 'RUNNING');
      const list = await cluster.cli(['-l']);
      expect(list.stdout).toMatch(new RegExp(`${id}\\s+SeaTunnel_Job\\s+RUNNING`));
      const st = await cluster.cli(['-j', id]);
      expect(JSON.parse(st.stdout)).toMatchObject({ jobId: id, status: 'RUNNING', jobMode: 'STREAMING' });

      const read = async () => JSON.parse((await cluster.cli(['--metrics', id])).stdout) as Record<string, unknown>;
      let first: Record<string, unknown> = {};
      await cluster.until('rows read', async () => ((first = await read()).SourceReceivedCount as number) > 0);
      // Bytes as SeaTunnel counts them by declared type: id int (4) + name string (5 chars) + age int (4).
      expect(first).toMatchObject({
        TableSourceReceivedCount: { fake: first.SourceReceivedCount },
        SourceReceivedBytes: (first.SourceReceivedCount as number) * 13,
        TableSourceReceivedBytes: { fake: (first.SourceReceivedCount as number) * 13 },
      });
      await cluster.until(
        'metrics grow',
        async () => ((await read()).SourceReceivedCount as number) > (first.SourceReceivedCount as number),
      );
      expect(await cluster.metric('coordinator', `tideway_job_rows_read_total{job_id="${id}",job_name="SeaTunnel_Job"}`)).toBeGreaterThan(
        0,
      );
      expect(await usedSlots()).toBe(1);

      const cancel = await cluster.cli(['-can', id]);
      expect(cancel.code, cancel.stderr).toBe(0);
      await untilStatus(id, 'CANCELED');
      expect((await cluster.cli(['list'])).stdout).toMatch(new RegExp(`${id}\\s+SeaTunnel_Job\\s+CANCELED`));
      await untilAllSlotsFree();
    },
  );

  it.skipIf(!casesDir)('a finished job stays listed with the job name from env job.name, and -n overrides it', async () => {
    const res = await cluster.cli(['submit', '-c', `${casesDir}/connector-seatunnel-e2e-base__valid_job_name.conf`]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Job Statistic Information');
    const named = await submitAsync(jobFile(cluster, 'named.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 })), [
      '-n',
      'renamed_job',
    ]);
    await untilStatus(named, 'FINISHED');
    const list = (await cluster.cli(['list'])).stdout;
    expect(list).toMatch(/\d+\s+valid_job_name\s+FINISHED/);
    expect(list).toMatch(new RegExp(`${named}\\s+renamed_job\\s+FINISHED`));
    await untilAllSlotsFree();
  });

  it('WAIT keeps a job PENDING while slots are short, cancel works on it, and a waiting job starts when slots free up', async () => {
    const big = await submitAsync(
      jobFile(cluster, 'big.conf', fakeJob({ mode: 'STREAMING', parallelism: 4, rowNum: 10, readIntervalMs: 500 })),
    );
    await untilStatus(big, 'RUNNING');
    expect(await usedSlots()).toBe(4);

    const pending = await submitAsync(jobFile(cluster, 'small.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 })));
    const waiting = await submitAsync(jobFile(cluster, 'small2.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 })));
    // Still pending after the scheduler looked again (it retries every 2 s and on releases).
    await cluster.until('scheduler retried', async () => (await cluster.metric('coordinator', 'tideway_jobs{status="PENDING"}')) === 2);
    await new Promise((r) => setTimeout(r, 2500));
    expect(status(await cluster.job(pending))).toBe('PENDING');

    // Cancel before the job finished initialising: it never ran, it ends CANCELED.
    const cancel = await cluster.cli(['cancel', pending]);
    expect(cancel.stdout.trim()).toBe(`${pending} CANCELED`);
    expect((await cluster.job(pending)).startTimeMs).toBe(0);

    await cluster.cli(['cancel', big]);
    await untilStatus(big, 'CANCELED');
    await untilStatus(waiting, 'FINISHED');
    await untilAllSlotsFree();
  });

  it('tag_filter: a matching job runs only on the matching worker; a filter no worker matches waits', async () => {
    const id = await submitAsync(
      jobFile(
        cluster,
        'tagged.conf',
        fakeJob({ mode: 'STREAMING', parallelism: 2, rowNum: 10, tagFilter: { group: 'platform', team: 'team2' } }),
      ),
    );
    await untilStatus(id, 'RUNNING');
    const worker2 = `127.0.0.1:${cluster.grpcPorts.get('worker-2')}`;
    const placed = (await cluster.job(id)).pipelines.flatMap((p) => p.taskGroups.map((t) => t.workerAddress));
    expect(placed).toEqual([worker2, worker2]);

    const nowhere = await submitAsync(
      jobFile(cluster, 'nowhere.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10, tagFilter: { team: 'team3' } })),
    );
    await new Promise((r) => setTimeout(r, 2500));
    expect(status(await cluster.job(nowhere))).toBe('PENDING');
    await cluster.cli(['-can', id, nowhere]);
    await untilStatus(id, 'CANCELED');
    await untilStatus(nowhere, 'CANCELED');
    await untilAllSlotsFree();
  });

  it('20 concurrent submissions never get one slot twice, all finish, and every slot is free at the end', async () => {
    const text = fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 20, readIntervalMs: 50 });
    let watching = true;
    let maxUsed = 0;
    const watcher = (async () => {
      while (watching) {
        // usedSlots() asserts no worker is ever granted more slots than it has.
        maxUsed = Math.max(maxUsed, await usedSlots());
        const ids = (await cluster.workers()).flatMap((w) => w.assignedSlots.map((s) => s.slotId));
        expect(new Set(ids).size).toBe(ids.length);
        for (const w of ['worker-1', 'worker-2'] as const)
          expect(await cluster.metric(w, 'tideway_worker_task_groups_running')).toBeLessThanOrEqual(2);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(cluster.jobs, 'submitJob', {
          configText: text,
          configFile: `concurrent-${i}.conf`,
          format: 'hocon',
          variables: {},
          jobName: `concurrent_${i}`,
          jobId: '',
          restoreJobId: '',
          restoreWithCheckpoint: '',
        }).then((r) => r.jobId),
      ),
    );
    expect(new Set(ids).size).toBe(20);
    try {
      for (const id of ids) await untilStatus(id, 'FINISHED', 150_000);
    } finally {
      watching = false;
      await watcher;
    }
    expect(maxUsed).toBeGreaterThan(0);
    await untilAllSlotsFree();
  });

  it('cancel right after submit, whatever stage the job reached (scheduling, deploying, running), always ends CANCELED with nothing left running', async () => {
    const text = fakeJob({ mode: 'STREAMING', parallelism: 2, rowNum: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { jobId } = await call(cluster.jobs, 'submitJob', {
        configText: text,
        configFile: 'race.conf',
        format: 'hocon',
        variables: {},
        jobName: '',
        jobId: '',
        restoreJobId: '',
        restoreWithCheckpoint: '',
      });
      // Later rounds wait a little longer, so the cancel lands in different stages.
      if (i > 0) await new Promise((r) => setTimeout(r, i * 60));
      await call(cluster.jobs, 'cancelJob', { jobId });
      ids.push(jobId);
    }
    for (const id of ids) await untilStatus(id, 'CANCELED');
    await untilAllSlotsFree();
  });

  it('cancel while the job is still being planned (its Jdbc source reads the schema): listed CREATED, ends CANCELED, never asks for a slot', async () => {
    const pgs = await startPostgres();
    const proxy = await HeldProxy.start({ host: pgs.host, port: pgs.port });
    try {
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      await db.query('CREATE TABLE planned (id int PRIMARY KEY, name text); INSERT INTO planned VALUES (1, $$a$$), (2, $$b$$)');
      await db.end();
      // The schema read goes through the proxy, which holds it: planning cannot finish.
      const url = pgs.jdbcUrl.replace(`:${pgs.port}/`, `:${proxy.port}/`);
      const text = `env { job.mode = "BATCH" }
source { Jdbc { url = "${url}", driver = "org.postgresql.Driver", user = "${pgs.user}", password = "${pgs.password}", table_path = "${pgs.database}.public.planned", plugin_output = "src" } }
sink { Console { plugin_input = "src", log.print.data = false } }`;
      const jobId = String(Date.now());
      const submitted = call(cluster.jobs, 'submitJob', {
        configText: text,
        configFile: 'planned.conf',
        format: 'hocon',
        variables: {},
        jobName: '',
        jobId,
        restoreJobId: '',
        restoreWithCheckpoint: '',
      });
      await cluster.until('planning holds on the schema read', () => proxy.held > 0);
      expect(status(await cluster.job(jobId))).toBe('CREATED');
      expect((await cluster.cli(['-l'])).stdout).toMatch(new RegExp(`${jobId}\\s+CREATED`));

      const cancel = await cluster.cli(['-can', jobId]);
      expect(cancel.stdout.trim()).toBe(`${jobId} CANCELING`);
      proxy.release();
      const res = await submitted;
      expect(status(res.job!)).toBe('CANCELED');
      const job = await cluster.job(jobId);
      expect(status(job)).toBe('CANCELED');
      expect(job.startTimeMs).toBe(0);
      expect(job.pipelines.flatMap((p) => p.taskGroups.map((t) => t.workerAddress)).filter(Boolean)).toEqual([]);
      await untilAllSlotsFree();
    } finally {
      await proxy.stop();
      await pgs.stop();
    }
  });

  it('serves Prometheus metrics on every process', async () => {
    const c = await cluster.metrics('coordinator');
    for (const name of [
      'tideway_jobs{status="RUNNING"}',
      'tideway_jobs{status="FINISHED"}',
      'tideway_task_groups_running',
      'tideway_job_rows_written_total',
      'tideway_job_checkpoints_completed_total',
      'tideway_job_checkpoints_failed_total',
    ]) {
      expect(c).toContain(name);
    }
    expect(await cluster.metric('coordinator', 'tideway_jobs{status="CANCELED"}')).toBeGreaterThan(0);
    expect(await cluster.metric('resource-manager', 'tideway_workers')).toBe(2);
    expect(await cluster.metric('resource-manager', 'tideway_slots')).toBe(4);
    expect(await cluster.metric('resource-manager', 'tideway_slots_free')).toBe(4);
    expect(await cluster.metric('worker-1', 'tideway_worker_slots')).toBe(2);
    expect(await cluster.metrics('worker-2')).toContain('tideway_process_cpu_seconds_total');
  });

  it('overview counts workers, slots and jobs', async () => {
    const res = await cluster.cli(['overview']);
    const o = JSON.parse(res.stdout) as { workers: unknown[]; totalSlots: number; freeSlots: number; finishedJobs: number };
    expect(o.workers).toHaveLength(2);
    expect(o).toMatchObject({ totalSlots: 4, freeSlots: 4 });
    expect(o.finishedJobs).toBeGreaterThanOrEqual(22);
  });
});
