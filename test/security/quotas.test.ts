/**
 * Namespace quotas and the fair queue (issue 36, item 3) on a real cluster of two coordinators
 * over a Redis state store, one worker with 2 slots, job-schedule-strategy WAIT: team-a may run
 * one job at a time (max-running-jobs 1). A second team-a job waits for its quota while a team-b
 * job takes the free slot; GetClusterOverview shows usage against quota per namespace; the
 * waiting jobs keep their place across a SIGKILL of the leader, and start, in order, as slots
 * and quota come back. (The round-robin between namespaces, priorities, REJECT and the refusal
 * of a job no quota could ever take: services/coordinator/src/scheduler.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobServiceClient, jobStatusToJSON } from '@tideway/contracts';
import { bearerInterceptor, call, channelCredentials, clientOptions, hashToken, newToken } from '@tideway/rpc';
import { startRedis, type RedisServer } from '@tideway/testing';
import { TestCluster, fakeJob } from '../cluster/test-cluster.js';

type Who = 'admin' | 'opA' | 'opB';
const LINE: Record<Who, string> = { admin: 'admin', opA: 'operator team-a', opB: 'operator team-b' };
const tokens = {} as Record<Who, string>;
let redis: RedisServer;
let cluster: TestCluster;
const clients: JobServiceClient[] = [];

beforeAll(async () => {
  const lines = (Object.keys(LINE) as Who[]).map((who) => {
    tokens[who] = newToken();
    return `    ${who}: "${hashToken(tokens[who])} ${LINE[who]}"`;
  });
  redis = await startRedis();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    coordinators: 2,
    ha: { state: redis, leaseTtlMs: 2000, retryIntervalMs: 200 },
    tidewayYaml: ['auth:', '  tokens:', ...lines, '  namespaces:', '    team-a:', '      max-running-jobs: 1'],
  });
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.stop();
  await redis?.stop();
});

/** JobService of the leader (found again after a fail-over), calling with `who`'s token. */
async function jobs(who: Who): Promise<JobServiceClient> {
  let leader = '';
  await cluster.until('a leader', async () => (leader = (await cluster.leaderName()) ?? '') !== '');
  const address = cluster.coordinatorAddresses[cluster.coordinatorNames().indexOf(leader as never)];
  const c = new JobServiceClient(address, channelCredentials(), { ...clientOptions, interceptors: [bearerInterceptor(tokens[who])] });
  clients.push(c);
  return c;
}

const streaming = () => fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 1000, splitNum: 1000, readIntervalMs: 200 });

async function submit(who: Who): Promise<string> {
  const req = {
    configText: streaming(),
    configFile: 'job.conf',
    format: '',
    variables: {},
    jobName: '',
    jobId: '',
    restoreJobId: '',
    restoreWithCheckpoint: '',
  };
  return (await call(await jobs(who), 'submitJob', req)).jobId;
}

async function status(jobId: string): Promise<string> {
  return jobStatusToJSON((await call(await jobs('admin'), 'getJob', { jobId })).status);
}

async function untilStatus(jobId: string, want: string): Promise<void> {
  await cluster.until(`job ${jobId} ${want}`, async () => (await status(jobId).catch(() => '')) === want, 60_000);
}

describe('namespace quotas and the queue', () => {
  // SeaTunnel #11653, #12120, #12201: pending jobs scheduled twice or re-ordered after a master fail-over.
  it('a namespace at max-running-jobs waits while another takes the slot; the queue keeps its order across a leader kill, and no job is scheduled twice (SeaTunnel #11653, #12120, #12201)', async () => {
    const a1 = await submit('opA');
    await untilStatus(a1, 'RUNNING');
    const a2 = await submit('opA');
    const b1 = await submit('opB');
    await untilStatus(b1, 'RUNNING');
    expect(await status(a2)).toBe('PENDING');

    const overview = await call(await jobs('admin'), 'getClusterOverview', {});
    expect(overview.namespaces).toEqual([
      { namespace: 'team-a', runningJobs: 1, maxRunningJobs: 1, slots: 1, maxSlots: 0, pendingJobs: 1 },
      { namespace: 'team-b', runningJobs: 1, maxRunningJobs: 0, slots: 1, maxSlots: 0, pendingJobs: 0 },
    ]);
    // An operator sees its own namespace only.
    expect((await call(await jobs('opB'), 'getClusterOverview', {})).namespaces.map((n) => n.namespace)).toEqual(['team-b']);

    // Both slots are taken: two more team-b jobs wait behind a2.
    const b2 = await submit('opB');
    const b3 = await submit('opB');
    expect([await status(b2), await status(b3)]).toEqual(['PENDING', 'PENDING']);

    const leader = (await cluster.leaderName())!;
    await cluster.kill(leader);
    await cluster.until('a new leader', async () => ((await cluster.leaderName()) ?? leader) !== leader, 60_000);
    await untilStatus(a1, 'RUNNING');
    await untilStatus(b1, 'RUNNING');
    expect([await status(a2), await status(b2), await status(b3)]).toEqual(['PENDING', 'PENDING', 'PENDING']);

    // a1 ends: its slot and team-a's quota go to a2 (before the team-b jobs queued after it).
    await call(await jobs('admin'), 'cancelJob', { jobId: a1 });
    await untilStatus(a2, 'RUNNING');
    expect([await status(b2), await status(b3)]).toEqual(['PENDING', 'PENDING']);
    // Scheduled once: team-a holds the one slot of a2, not a second set from a queue rebuilt twice.
    const teamA = (await call(await jobs('admin'), 'getClusterOverview', {})).namespaces.find((n) => n.namespace === 'team-a');
    expect(teamA).toMatchObject({ runningJobs: 1, slots: 1, pendingJobs: 0 });
    // b1 ends: b2, queued before b3, starts.
    await call(await jobs('admin'), 'cancelJob', { jobId: b1 });
    await untilStatus(b2, 'RUNNING');
    expect(await status(b3)).toBe('PENDING');
    for (const id of [a2, b2, b3]) await call(await jobs('admin'), 'cancelJob', { jobId: id });
  }, 240_000);
});
