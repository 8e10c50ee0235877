/**
 * The soak of issue 36: a cluster with HA (a Redis state store, two coordinators, the resource
 * manager, three workers, each a real `tideway cluster start` process) under a continuous load
 * of jobs for a while: short batch jobs submitted several a second, a few long streaming jobs
 * (exactly-once LocalFile sinks) that are cancelled and replaced, or stopped with a savepoint
 * and restored, at random, and one SIGKILL of the leader coordinator half-way. It reports what a
 * platform team fears after days of uptime (SeaTunnel #10997, #9885, #11437, #11458, #7768):
 * jobs stuck in a state past the time they should take, slots not given back, memory of the
 * processes over time, and the state store's size (bounded by the history expiry).
 *
 * Used by bench/soak.ts (an hour, figures in bench/RESULTS.md) and test/cluster/soak.test.ts
 * (two minutes in the suite).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { JobClient } from '@tideway/client';
import { executionStateToJSON, jobStatusToJSON, type JobInfo } from '@tideway/contracts';
import { ClusterProcesses, sequenceJobConfig, startRedis, type ClusterProcessName } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';

export interface SoakOptions {
  minutes: number;
  /** Batch jobs submitted per second (default 2). */
  batchPerSecond?: number;
  /** Streaming jobs kept running (default 3). */
  streams?: number;
  /** Seconds between two random actions on the streaming jobs (cancel, or savepoint and restore; default 20). */
  streamActionEverySec?: number;
  /** When the leader is SIGKILLed, as a share of the run (default 0.5; none when 0). */
  failoverAt?: number;
  /** seatunnel.engine.history-job-expire-minutes of the cluster (default 2). */
  historyExpireMinutes?: number;
  /** Seconds between two samples of memory and state-store size (default 10). */
  sampleEverySec?: number;
  /** Where the cluster's configs, logs and job outputs go. */
  dir: string;
  /** Progress lines (stderr in the bench). */
  progress?: (line: string) => void;
  /** Random number source (default Math.random), for a repeatable run. */
  random?: () => number;
}

export interface SoakSample {
  /** Seconds since the start. */
  t: number;
  /** Resident memory of each process, MB. */
  rssMb: Partial<Record<ClusterProcessName, number>>;
  /** The state Redis: bytes used and keys. */
  stateBytes: number;
  stateKeys: number;
  running: number;
  pending: number;
}

export interface SoakReport {
  seconds: number;
  batchSubmitted: number;
  batchFinished: number;
  streamsStarted: number;
  cancels: number;
  savepointRestores: number;
  failovers: number;
  /** Jobs that stayed in a state past the time it should take, each in one sentence. */
  stuck: string[];
  /** Slots not free once every job ended. */
  leakedSlots: number;
  totalSlots: number;
  /** Ended jobs still listed later than the history expiry (plus 30 s) after their end. */
  keptPastExpiry: number;
  /** Rows of batch and streaming outputs lost or doubled (exactly-once sinks). */
  lost: number;
  duplicated: number;
  problems: string[];
  samples: SoakSample[];
}

/**
 * How long a state may last before a job counts as stuck in it: a batch job (200 rows) running,
 * a job pending while the cluster has the free slots it needs, a cancel, a savepoint. Waiting in
 * the queue for slots other jobs hold is not being stuck.
 */
const BATCH_RUN_DEADLINE_S = 90;
const PENDING_WITH_FREE_SLOTS_S = 60;
const CANCEL_DEADLINE_S = 45;
const SAVEPOINT_DEADLINE_S = 60;
const ENDED = new Set(['FINISHED', 'CANCELED', 'FAILED', 'SAVEPOINT_DONE']);

interface Tracked {
  jobId: string;
  kind: 'batch' | 'stream';
  out: string;
  /** What the job must reach, and by when (ms since the epoch); none while it may run on. */
  expect?: { states: string[]; by: number; what: string };
  /** Slots it needs (its parallelism). */
  slots: number;
  /** When it was first seen past PENDING; when it was first seen PENDING with enough free slots since. */
  runningSince?: number;
  pendingWithFreeSince?: number;
  keys: number;
  rowsPerKey: number;
  ended?: string;
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const random = o.random ?? Math.random;
  const progress = o.progress ?? (() => undefined);
  const streams = o.streams ?? 3;
  const batchEveryMs = 1000 / (o.batchPerSecond ?? 2);
  const actionEveryMs = (o.streamActionEverySec ?? 20) * 1000;
  const sampleEveryMs = (o.sampleEverySec ?? 10) * 1000;
  const failoverAt = o.failoverAt ?? 0.5;
  mkdirSync(o.dir, { recursive: true });
  const outputs = join(o.dir, 'outputs');
  mkdirSync(outputs, { recursive: true });

  const state = await startRedis({ appendOnly: true });
  const cluster = await ClusterProcesses.create({
    cli: cliNodeArgs(),
    dir: join(o.dir, 'cluster'),
    workers: [{ attributes: {} }, { attributes: {} }, { attributes: {} }],
    slotNum: 6,
    jobScheduleStrategy: 'WAIT',
    // The engine's lease (5 s) and a heartbeat timeout a busy machine does not trip: the HA
    // suites' 2 s lease flaps under a load of 20+ on 2 cores, and every take-over restarts jobs.
    heartbeatMs: 1000,
    heartbeatTimeoutMs: 10_000,
    coordinators: 2,
    ha: { stateAddress: `${state.host}:${state.port}` },
    engineYaml: [`    history-job-expire-minutes: ${o.historyExpireMinutes ?? 2}`],
    env: { TIDEWAY_LOG_LEVEL: 'info' },
  });
  const redis = new Redis({ host: state.host, port: state.port, lazyConnect: true, maxRetriesPerRequest: 2 });
  const client = new JobClient(cluster.coordinatorAddresses);
  const report: SoakReport = {
    seconds: 0,
    batchSubmitted: 0,
    batchFinished: 0,
    streamsStarted: 0,
    cancels: 0,
    savepointRestores: 0,
    failovers: 0,
    stuck: [],
    leakedSlots: 0,
    totalSlots: 0,
    keptPastExpiry: 0,
    lost: 0,
    duplicated: 0,
    problems: [],
    samples: [],
  };
  const jobs = new Map<string, Tracked>();
  const stuckOnce = new Set<string>();
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  let seq = 0;

  const submit = async (kind: 'batch' | 'stream', restoreOf?: Tracked): Promise<Tracked | undefined> => {
    const keys = kind === 'batch' ? 2 : 4;
    const rowsPerKey = kind === 'batch' ? 100 : 1_000_000_000;
    const out = restoreOf?.out ?? join(outputs, `${kind}-${++seq}`);
    const configText = sequenceJobConfig({
      mode: kind === 'batch' ? 'BATCH' : 'STREAMING',
      keys,
      rowsPerKey,
      rowsPerSecond: kind === 'batch' ? 0 : 25,
      parallelism: kind === 'batch' ? 1 : 2,
      checkpointIntervalMs: kind === 'batch' ? 1000 : 2000,
      sink: { kind: 'localfile', path: out },
      env: 'job.retry.times = 10\n  job.retry.interval.seconds = 1',
    });
    try {
      const res = await client.submit({ configText, configFile: `${kind}-${seq}.conf`, restoreJobId: restoreOf?.jobId ?? '' });
      const t: Tracked = { jobId: res.jobId, kind, out, keys, rowsPerKey, slots: kind === 'batch' ? 1 : 2 };
      jobs.set(t.jobId, t);
      return t;
    } catch (err) {
      // A submit during the fail-over is refused or times out: the client tries again later.
      progress(`submit refused (${(err as Error).message.split('\n')[0]}); going on`);
      return undefined;
    }
  };

  /** Counts the committed `key,seq` lines of an output: each key must be 0..n-1 exactly once. */
  const checkOutput = (t: Tracked, complete: boolean): void => {
    const perKey = new Map<number, Map<number, number>>();
    let files: string[];
    try {
      files = readdirSync(t.out).filter((f) => statSync(join(t.out, f)).isFile());
    } catch {
      files = [];
    }
    for (const f of files) {
      for (const line of readFileSync(join(t.out, f), 'utf8').split('\n')) {
        if (line === '') continue;
        const [k, s] = line.split(',').map(Number);
        const m = perKey.get(k) ?? new Map<number, number>();
        m.set(s, (m.get(s) ?? 0) + 1);
        perKey.set(k, m);
      }
    }
    for (let k = 0; k < t.keys; k++) {
      const m = perKey.get(k) ?? new Map<number, number>();
      const top = complete ? t.rowsPerKey : m.size === 0 ? 0 : Math.max(...m.keys()) + 1;
      let lost = 0;
      let dup = 0;
      for (let s = 0; s < top; s++) {
        const n = m.get(s) ?? 0;
        if (n === 0) lost++;
        else dup += n - 1;
      }
      if (lost + dup > 0) report.problems.push(`job ${t.jobId} (${t.kind}) key ${k}: ${lost} row(s) lost, ${dup} duplicated`);
      report.lost += lost;
      report.duplicated += dup;
    }
  };

  const poll = async (): Promise<void> => {
    let list: JobInfo[];
    let freeSlots: number;
    try {
      list = (await client.list()).jobs;
      freeSlots = (await client.overview()).freeSlots;
    } catch {
      return; // no leader for a moment
    }
    // A job the list leaves out (it ended and expired between two polls, or the cluster lost it)
    // is asked for by id.
    const listed = new Set(list.map((j) => j.jobId));
    for (const t of jobs.values()) {
      if (t.ended || listed.has(t.jobId)) continue;
      const info = await client.get(t.jobId).catch((err: unknown) => err as Error);
      if (!(info instanceof Error)) list.push(info);
      else if (/not found|NOT_FOUND|unknown job/i.test(info.message)) {
        t.ended = 'LOST';
        report.problems.push(`job ${t.jobId} (${t.kind}) is not known to the cluster any more: ${info.message}`);
      }
    }
    const now = Date.now();
    for (const info of list) {
      const t = jobs.get(info.jobId);
      if (!t || t.ended) continue;
      const status = jobStatusToJSON(info.status);
      if (ENDED.has(status)) {
        t.ended = status;
        if (t.kind === 'batch') {
          if (status === 'FINISHED') {
            report.batchFinished++;
            checkOutput(t, true);
          } else report.problems.push(`batch job ${t.jobId} ended ${status}: ${info.error?.message ?? ''}`);
          rmSync(t.out, { recursive: true, force: true });
        } else if (status === 'FAILED') report.problems.push(`streaming job ${t.jobId} FAILED: ${info.error?.message ?? ''}`);
        if (t.expect ? !t.expect.states.includes(status) : t.kind === 'batch' && status !== 'FINISHED')
          report.problems.push(`job ${t.jobId} ended ${status}, expected ${t.expect?.states.join(' or ') ?? 'FINISHED'}`);
        continue;
      }
      const stuck = (why: string) => {
        if (stuckOnce.has(t.jobId)) return;
        stuckOnce.add(t.jobId);
        const groups = info.pipelines.flatMap((p) => [
          `pipeline ${p.pipelineId} ${p.status} attempt ${p.attempt}${p.checkpointInFlight ? `, checkpoint ${p.checkpointInFlight.checkpointId} acknowledged by ${p.checkpointInFlight.acknowledged} of ${p.checkpointInFlight.total}` : ''}:`,
          ...p.taskGroups.map((g) => `${g.index} ${executionStateToJSON(g.state)} on ${g.workerAddress}`),
        ]);
        report.stuck.push(`job ${t.jobId} (${t.kind}) ${why} (task groups: ${groups.join(', ') || 'none'})`);
      };
      if (status === 'PENDING' || status === 'CREATED') {
        if (freeSlots < t.slots) t.pendingWithFreeSince = undefined;
        else t.pendingWithFreeSince ??= now;
        if (t.pendingWithFreeSince !== undefined && now - t.pendingWithFreeSince > PENDING_WITH_FREE_SLOTS_S * 1000)
          stuck(`PENDING for more than ${PENDING_WITH_FREE_SLOTS_S} s while ${freeSlots} slots were free`);
      } else t.runningSince ??= now;
      if (t.kind === 'batch' && t.runningSince !== undefined && now - t.runningSince > BATCH_RUN_DEADLINE_S * 1000)
        stuck(`still ${status} ${BATCH_RUN_DEADLINE_S} s after it started`);
      if (t.expect && now > t.expect.by) stuck(`still ${status} past the time to ${t.expect.what}`);
    }
  };

  const sample = async (): Promise<void> => {
    const rssMb: SoakSample['rssMb'] = {};
    for (const name of cluster.names()) {
      const rss = await cluster.metric(name, 'tideway_process_resident_memory_bytes').catch(() => undefined);
      if (rss !== undefined) rssMb[name] = Math.round(rss / 2 ** 20);
    }
    const info = await redis.info('memory').catch(() => '');
    const stateBytes = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    const stateKeys = await redis.dbsize().catch(() => 0);
    const overview = await client.overview().catch(() => undefined);
    report.samples.push({
      t: Math.round(elapsed()),
      rssMb,
      stateBytes,
      stateKeys,
      running: overview?.runningJobs ?? -1,
      pending: overview?.pendingJobs ?? -1,
    });
    const last = report.samples.at(-1)!;
    progress(
      `${last.t} s: ${report.batchSubmitted} batch jobs (${report.batchFinished} finished), ${last.running} running, ${last.pending} pending, state ${(stateBytes / 2 ** 20).toFixed(1)} MB in ${stateKeys} keys, stuck ${report.stuck.length}`,
    );
  };

  const streamAction = async (): Promise<void> => {
    const live = [...jobs.values()].filter((t) => t.kind === 'stream' && !t.ended && !t.expect);
    if (live.length === 0) return;
    const t = live[Math.floor(random() * live.length)];
    if (random() < 0.5) {
      await client.cancel(t.jobId).catch((err: unknown) => progress(`cancel ${t.jobId}: ${(err as Error).message}`));
      t.expect = { states: ['CANCELED'], by: Date.now() + CANCEL_DEADLINE_S * 1000, what: 'be cancelled' };
      report.cancels++;
      if (await submit('stream')) report.streamsStarted++;
      return;
    }
    // Stop with a savepoint, then restore the same job from it: its output goes on exactly once.
    // A savepoint refused (the job is not RUNNING yet) or failed (a checkpoint timed out) leaves
    // the job running, as it should: nothing is expected of it then.
    const taken = await client.savepoint(t.jobId).then(
      () => true,
      (err: unknown) => {
        progress(`savepoint ${t.jobId}: ${(err as Error).message}`);
        return false;
      },
    );
    if (!taken) return;
    t.expect = { states: ['SAVEPOINT_DONE', 'FINISHED'], by: Date.now() + SAVEPOINT_DEADLINE_S * 1000, what: 'stop with a savepoint' };
    const deadline = Date.now() + SAVEPOINT_DEADLINE_S * 1000;
    while (!t.ended && Date.now() < deadline) {
      await poll();
      await new Promise((r) => setTimeout(r, 500));
    }
    if (!t.ended) return; // counted as stuck by poll
    jobs.delete(t.jobId);
    const restored = await submit('stream', t);
    if (restored) report.savepointRestores++;
  };

  try {
    await cluster.startAll();
    await redis.connect();
    for (let i = 0; i < streams; i++) if (await submit('stream')) report.streamsStarted++;
    const endAt = started + o.minutes * 60_000;
    let failoverTime = failoverAt > 0 ? started + o.minutes * 60_000 * failoverAt : Number.POSITIVE_INFINITY;
    let nextBatch = Date.now();
    let nextAction = Date.now() + actionEveryMs;
    let nextSample = Date.now();
    let nextPoll = Date.now();
    while (Date.now() < endAt) {
      const now = Date.now();
      if (now >= nextBatch) {
        // Steady load: after a stall (a savepoint waited for) no burst makes up for lost time.
        nextBatch = Math.max(nextBatch + batchEveryMs, now - batchEveryMs);
        if (await submit('batch')) report.batchSubmitted++;
      }
      if (now >= nextAction) {
        nextAction = now + actionEveryMs;
        await streamAction();
      }
      if (now >= failoverTime) {
        const leader = await cluster.leaderName();
        if (leader) {
          progress(`${Math.round(elapsed())} s: SIGKILL of the leader ${leader}`);
          await cluster.kill(leader, 'SIGKILL');
          report.failovers++;
          setTimeout(() => void cluster.startProcess(leader).catch(() => undefined), 5000).unref();
        }
        // Jobs may take a fail-over longer to do what they were asked.
        for (const t of jobs.values()) if (t.expect) t.expect.by += 30_000;
        failoverTime = Number.POSITIVE_INFINITY;
      }
      if (now >= nextPoll) {
        nextPoll = now + 2000;
        await poll();
      }
      if (now >= nextSample) {
        nextSample = now + sampleEveryMs;
        await sample();
      }
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(nextBatch, nextPoll) - Date.now())));
    }
    // The end: streams cancelled, every job must end and give its slots back.
    progress(`${Math.round(elapsed())} s: load stopped; cancelling the streaming jobs`);
    for (const t of jobs.values()) {
      if (t.kind !== 'stream' || t.ended || t.expect) continue;
      await client.cancel(t.jobId).catch(() => undefined);
      t.expect = { states: ['CANCELED'], by: Date.now() + CANCEL_DEADLINE_S * 1000, what: 'be cancelled' };
    }
    // The queue drains: wait while jobs still end (a stuck one is reported by poll meanwhile).
    let ended = 0;
    let lastProgress = Date.now();
    while (Date.now() - lastProgress < (BATCH_RUN_DEADLINE_S + 30) * 1000 && [...jobs.values()].some((t) => !t.ended)) {
      await poll();
      const n = [...jobs.values()].filter((t) => t.ended).length;
      if (n > ended) {
        ended = n;
        lastProgress = Date.now();
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await poll();
    for (const t of jobs.values()) {
      if (!t.ended && !stuckOnce.has(t.jobId)) report.stuck.push(`job ${t.jobId} (${t.kind}) never ended after the load stopped`);
      if (t.kind === 'stream' && t.ended) checkOutput(t, false);
    }
    // Slots come back within a few heartbeats of the last job's end.
    const slotsBack = Date.now() + 20_000;
    for (;;) {
      const overview = await client.overview().catch(() => undefined);
      if (overview) {
        report.totalSlots = overview.totalSlots;
        report.leakedSlots = overview.totalSlots - overview.freeSlots;
      }
      if (report.leakedSlots === 0 || Date.now() > slotsBack) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const expiredBefore = Date.now() - ((o.historyExpireMinutes ?? 2) * 60 + 30) * 1000;
    const listed = await client.list().catch(() => undefined);
    report.keptPastExpiry = (listed?.jobs ?? []).filter((j) => j.finishTimeMs > 0 && j.finishTimeMs < expiredBefore).length;
    await sample();
    report.seconds = Math.round(elapsed());
    return report;
  } finally {
    client.close();
    redis.disconnect();
    await cluster.stop();
    await state.stop();
  }
}
