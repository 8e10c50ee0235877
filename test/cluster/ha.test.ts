/**
 * High availability with real processes and real Redis servers (issue 10): two coordinators
 * contend for a Redlock lease, the state lives in Redis, and every job survives the death or
 * pause of its leader. Each case runs a checkpointed Sequence job into the exactly-once
 * LocalFile sink and checks the committed rows: nothing lost, nothing duplicated.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobStatus, jobStatusToJSON } from '@tideway/contracts';
import { call } from '@tideway/rpc';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { jdbcConnection, pgExec } from '../jdbc/databases.js';
import { checkSequenceOutput } from '../e2e/sequence-checker.js';
import { sequenceJob } from '../e2e/sequence-job.js';
import { jobFile, type ProcessName, type TestCluster } from './test-cluster.js';
import { startHaCluster, type HaCluster } from './ha-cluster.js';

let ha: HaCluster;
let cluster: TestCluster;

beforeAll(async () => {
  ha = await startHaCluster();
  cluster = ha.cluster;
}, 120_000);

afterAll(async () => {
  await ha?.stop();
});

const metrics = (jobId: string) => cluster.leader((c) => call(c, 'getJobMetrics', { jobId }, { deadlineMs: 5000 }));
const status = async (jobId: string) => jobStatusToJSON((await cluster.job(jobId)).status);

/** Submits a Sequence job (BATCH, 2 readers) writing to `name`/ under the cluster folder. */
async function submitSequence(
  name: string,
  keys: number,
  rowsPerKey: number,
  rowsPerSecond: number,
  extra: Partial<Parameters<typeof sequenceJob>[0]> = {},
) {
  const out = join(cluster.dir, name);
  const file = jobFile(
    cluster,
    `${name}.conf`,
    sequenceJob({
      mode: 'BATCH',
      keys,
      rowsPerKey,
      rowsPerSecond,
      out,
      env: 'job.retry.times = 10\n  job.retry.interval.seconds = 0',
      ...extra,
    }),
  );
  const res = await cluster.cli(['submit', '--async', '-c', file]);
  expect(res.code, res.stderr).toBe(0);
  return { jobId: res.stdout.trim(), out };
}

/** Waits until the job's rows read grow past `from`; returns the seconds it took. */
async function rowsMoveAgain(jobId: string, from: number, since: number): Promise<number> {
  await cluster.until('rows moving again', async () => Number((await metrics(jobId)).sourceReceivedCount) > from, 60_000);
  return (Date.now() - since) / 1000;
}

async function leader(): Promise<ProcessName> {
  let name: ProcessName | undefined;
  await cluster.until('a leader', async () => (name = await cluster.leaderName()) !== undefined, 30_000);
  return name!;
}

describe('master fail-over', () => {
  // SeaTunnel #6886 and #9621 (jobs lost or not restored when the master dies), #8859 and #9807
  // (RUNNING but writing nothing after a master switch), #7286 and #10834 (stuck after a
  // switch), #12385 (a restored job does not load its latest checkpoint).
  it('SIGKILL of the leader mid-job: the follower takes over from the latest checkpoint, the job finishes with every row once, history and metrics go on', {
    timeout: 180_000,
  }, async () => {
    const first = await leader();
    const { jobId, out } = await submitSequence('kill-leader', 4, 3000, 400);
    await cluster.until('a checkpoint completed', async () => (await cluster.job(jobId)).completedCheckpoints >= 2);
    const before = await metrics(jobId);
    const checkpointsBefore = (await cluster.job(jobId)).completedCheckpoints;
    // The checkpoint history lives in the state store: the oldest record of the leader's is there.
    const recordedBefore = (await cluster.job(jobId)).pipelines[0].checkpointHistory.at(-1)!;
    expect(recordedBefore.state).toBe('COMPLETED');
    const killedAt = Date.now();
    await cluster.kill(first, 'SIGKILL');
    const seconds = await rowsMoveAgain(jobId, Number(before.sourceReceivedCount), killedAt);
    console.log(`leader killed: rows moving again after ${seconds.toFixed(1)} s`);
    const second = await leader();
    expect(second).not.toBe(first);
    // It restored from the latest completed checkpoint (#12385), not an older one or none.
    const takenOver = (cluster.logs.get(second) ?? '').split('\n').find((l) => l.includes('"pipeline taken over"') && l.includes(jobId));
    expect(Number((JSON.parse(takenOver!) as { checkpoint: unknown }).checkpoint)).toBeGreaterThanOrEqual(checkpointsBefore);
    // Metrics and checkpoint counts continue instead of starting from 0.
    expect(Number((await metrics(jobId)).sourceReceivedCount)).toBeGreaterThan(0);
    await cluster.until('job finished', async () => (await status(jobId)) === 'FINISHED', 120_000);
    const job = await cluster.job(jobId);
    expect(job.completedCheckpoints).toBeGreaterThan(checkpointsBefore);
    expect(job.failovers.some((f) => /taken over by a new leader/.test(f.reason))).toBe(true);
    const history = job.pipelines[0].checkpointHistory;
    expect(history).toContainEqual(recordedBefore);
    expect(history[0].checkpointId).toBeGreaterThan(recordedBefore.checkpointId);
    const report = checkSequenceOutput(out, 4, 3000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 12000 });
    // The CLI, given both addresses, finds the new leader; the ended job is listed.
    const list = await cluster.cli(['list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${jobId}\\s.*FINISHED`));
    await cluster.startProcess(first);
  });

  it('a CLI following a job (submit without --async, both addresses) keeps following it across a fail-over and exits 0; overview names both coordinators, the leader and its epoch', {
    timeout: 180_000,
  }, async () => {
    const first = await leader();
    const out = join(cluster.dir, 'follow');
    const file = jobFile(
      cluster,
      'follow.conf',
      sequenceJob({
        mode: 'BATCH',
        keys: 4,
        rowsPerKey: 2000,
        rowsPerSecond: 400,
        out,
        env: 'job.retry.times = 10\n  job.retry.interval.seconds = 0',
      }),
    );
    const following = cluster.cli(['submit', '-c', file], 150_000);
    await cluster.until('rows committed', () => checkSequenceOutput(out, 4, 2000).seen > 0, 60_000);
    const before = JSON.parse((await cluster.cli(['overview'])).stdout) as {
      epoch: number;
      coordinators: Array<{ address: string; leader: boolean }>;
    };
    expect(before.coordinators.map((c) => c.address).sort()).toEqual([...cluster.coordinatorAddresses].sort());
    expect(before.coordinators.filter((c) => c.leader)).toHaveLength(1);
    await cluster.kill(first, 'SIGKILL');
    const res = await following;
    expect(res.code, res.stderr).toBe(0);
    // Rows replayed from the restored checkpoint count again, as in Flink: at least every row.
    expect(Number(/Total Read Count\s*:\s*(\d+)/.exec(res.stdout)?.[1])).toBeGreaterThanOrEqual(8000);
    const report = checkSequenceOutput(out, 4, 2000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 8000 });
    const after = JSON.parse((await cluster.cli(['overview'])).stdout) as { epoch: number };
    expect(after.epoch).toBeGreaterThan(before.epoch);
    await cluster.startProcess(first);
  });

  it('SIGSTOP of the leader past its lease: another takes over; resumed, the old leader changes nothing, steps down, and leads again when the new leader dies', {
    timeout: 180_000,
  }, async () => {
    const paused = await leader();
    const { jobId, out } = await submitSequence('pause-leader', 4, 3000, 400);
    await cluster.until('a checkpoint completed', async () => (await cluster.job(jobId)).completedCheckpoints >= 2);
    cluster.signal(paused, 'SIGSTOP');
    const other = cluster.coordinatorNames().find((n) => n !== paused)!;
    await cluster.until(
      'the other coordinator leads',
      async () => (await cluster.metric(other, 'tideway_coordinator_leader')) === 1,
      30_000,
    );
    await cluster.until(
      'the job runs under the new leader',
      async () => (await cluster.job(jobId)).failovers.some((f) => /taken over/.test(f.reason)),
      30_000,
    );
    cluster.signal(paused, 'SIGCONT');
    await cluster.until(
      'the old leader steps down',
      async () => (await cluster.metric(paused, 'tideway_coordinator_leader')) === 0,
      30_000,
    );
    // Found by tideway chaos: the coordinator that stepped down contends again, and takes the
    // lease when the one that replaced it dies.
    await cluster.kill(other, 'SIGKILL');
    await cluster.until(
      'the resumed coordinator leads again',
      async () => (await cluster.metric(paused, 'tideway_coordinator_leader')) === 1,
      20_000,
    );
    await cluster.until('job finished', async () => (await status(jobId)) === 'FINISHED', 120_000);
    await cluster.startProcess(other);
    const report = checkSequenceOutput(out, 4, 3000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 12000 });
  });

  it('every coordinator killed: workers stop nothing before the timeout, and a coordinator started again resumes the job', {
    timeout: 180_000,
  }, async () => {
    const { jobId, out } = await submitSequence('kill-all', 4, 3000, 400);
    await cluster.until('a checkpoint completed', async () => (await cluster.job(jobId)).completedCheckpoints >= 2);
    for (const n of cluster.coordinatorNames()) await cluster.kill(n, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 2000));
    await cluster.startProcess('coordinator');
    await cluster.until('job finished', async () => (await status(jobId)) === 'FINISHED', 120_000);
    const report = checkSequenceOutput(out, 4, 3000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 12000 });
    await cluster.startProcess('coordinator-2');
    const st = await cluster.job(jobId);
    expect(st.status).toBe(JobStatus.FINISHED);
  });

  // SeaTunnel #4042: a job the new master cannot initialise is neither taken over nor left
  // running: it fails with the reason, and its tasks stop.
  it('a job the new leader cannot plan again (its database is gone) fails with the reason; its task groups stop and its slots are freed', {
    timeout: 180_000,
  }, async () => {
    const pg: TestDatabaseServer = await startPostgres();
    try {
      await pgExec(
        pg,
        `CREATE TABLE src (id bigint PRIMARY KEY, name text); INSERT INTO src SELECT g, 'n' || g FROM generate_series(1, 10) g;`,
      );
      const out = join(cluster.dir, 'replan');
      // Two pipelines: Jdbc reads its schema when planned; Sequence keeps the job running.
      const jdbc = `Jdbc {\n    ${jdbcConnection('pg', pg)}\n    table_path = "tideway.public.src"\n    plugin_output = "pg"\n  }`;
      const config = sequenceJob({ mode: 'BATCH', keys: 4, rowsPerKey: 100_000, rowsPerSecond: 200, out })
        .replace('source {', `source {\n  ${jdbc}`)
        .replace('sink {', 'sink {\n  Console { plugin_input = "pg", log.print.data = false }');
      const res = await cluster.cli(['submit', '--async', '-c', jobFile(cluster, 'replan.conf', config)]);
      expect(res.code, res.stderr).toBe(0);
      const jobId = res.stdout.trim();
      await cluster.until('job running', async () => (await status(jobId)) === 'RUNNING');
      await pg.stop();
      await cluster.kill(await leader(), 'SIGKILL');
      await cluster.until('job failed', async () => (await status(jobId)) === 'FAILED', 60_000);
      expect((await cluster.job(jobId)).error?.message).toMatch(/could not be planned again/);
      const workers = [...cluster.grpcPorts.keys()].filter((n) => n.startsWith('worker-'));
      await cluster.until('no task group runs', async () =>
        (await Promise.all(workers.map((w) => cluster.metric(w, 'tideway_worker_task_groups_running')))).every((n) => n === 0),
      );
      await cluster.until('every slot free', async () => (await cluster.workers()).every((w) => w.assignedSlots.length === 0));
    } finally {
      await pg.stop();
      for (const n of cluster.coordinatorNames()) if (!cluster.processes.isRunning(n)) await cluster.startProcess(n);
    }
  });
});
