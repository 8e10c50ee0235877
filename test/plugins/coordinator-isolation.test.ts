/**
 * Plugin code that runs on the coordinator cannot stall it (issue 33, item 3;
 * docs/decisions/0086): a plugin package's split enumerator and aggregated committer run in their
 * pipeline's plugin thread, under tideway.plugin-call-timeout. Real processes (`tideway cluster`
 * start: coordinator, resource manager, one worker), plugins in a temporary plugin folder:
 * - a plugin source and a plugin sink with an aggregated committer work through the thread
 *   (splits assigned, checkpoints taken, a restore from one after a task failure, every row
 *   committed once);
 * - while a plugin enumerator spins in handleSplitRequest, the coordinator answers `tideway list`
 *   and runs another job to its end; the spinning job then fails naming the plugin, its place
 *   and the call;
 * - an aggregated commit that never settles fails its job the same way;
 * - a plugin source whose prepare() spins at submit (in the job's planning thread) fails the
 *   submit naming the call, while the coordinator answers `tideway list`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobStatus } from '@tideway/contracts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestCluster, jobFile } from '../cluster/test-cluster.js';
import { testSourceCode, writePluginPackage } from './plugin-job.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-coordinator-isolation-'));
const pluginDir = join(dir, 'plugins');
let cluster: TestCluster | undefined;

const declares = (name: string, kind: 'source' | 'sink') => ({ api: '^0.1.0', plugins: [{ name, kind, factory: 'factory' }] });

/**
 * A sink whose writers hand their row counts to an aggregated committer, which appends each
 * checkpoint's id and sum to the file `path` names (a restore commits its checkpoint again: a
 * line per checkpoint id counts); with `hang`, its commit never settles; with
 * `fail_once`, the first writer past 300 rows, once a checkpoint was committed, fails once.
 */
const sink = (name: string) => `import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
export const factory = {
  type: 'sink', name: '${name}', description: 'test',
  spec: { options: [
    { name: 'path', type: 'string', required: true, description: 'file of committed counts' },
    { name: 'hang', type: 'boolean', default: false, description: 'commit never settles' },
    { name: 'fail_once', type: 'string', default: '', description: 'marker file: the first writer past 300 rows once a checkpoint was committed writes what was committed into it and fails' },
  ] },
  create: (ctx) => ({
    createWriter: () => {
      let rows = 0;
      let seen = 0;
      return {
        write(batch) {
          rows += batch.length;
          seen += batch.length;
          const marker = ctx.options.get('fail_once');
          const path = ctx.options.get('path');
          const committedSome = existsSync(path) && readFileSync(path, 'utf8') !== '';
          if (marker && seen > 300 && committedSome && !existsSync(marker)) {
            // What was committed when it failed: the restore starts from that checkpoint.
            writeFileSync(marker, existsSync(path) ? readFileSync(path, 'utf8') : '');
            throw new Error('TestSink fails once');
          }
        },
        prepareCommit(checkpointId) { const n = rows; rows = 0; return n > 0 ? { rows: n, checkpointId } : undefined; },
        close() {},
      };
    },
    createAggregatedCommitter: () => ({
      combine: (infos) => ({ rows: infos.reduce((a, i) => a + i.rows, 0), checkpointId: infos[0].checkpointId }),
      commit: (aggs) => {
        if (ctx.options.get('hang')) return new Promise(() => {});
        for (const a of aggs) appendFileSync(ctx.options.get('path'), a.checkpointId + ' ' + a.rows + '\\n');
        return [];
      },
      abort() {},
    }),
  }),
};
`;

const job = (name: string, src: string, snk: string, env = '', retries = 0) =>
  jobFile(
    cluster!,
    name,
    `env {\n  job.mode = "BATCH"\n  parallelism = 2\n  job.retry.times = ${retries}\n${env}}\nsource {\n  ${src}\n}\nsink {\n  ${snk}\n}\n`,
  );

beforeAll(async () => {
  writePluginPackage(pluginDir, 'test-source', declares('TestSource', 'source'), testSourceCode('TestSource'));
  writePluginPackage(pluginDir, 'test-sink', declares('TestSink', 'sink'), sink('TestSink'));
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 6,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: [
      'plugins:',
      `  dirs: [${JSON.stringify(pluginDir)}]`,
      'plugin-call-timeout:',
      '  enumerate: 40000',
      '  commit: 4000',
      '  open: 8000',
    ],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The rows committed, once per checkpoint id. */
const committed = (file: string) => {
  const byCheckpoint = new Map<string, number>();
  for (const l of readFileSync(file, 'utf8')
    .split('\n')
    .filter((x) => x !== '')) {
    const [id, rows] = l.split(' ');
    byCheckpoint.set(id, Number(rows));
  }
  return [...byCheckpoint.values()].reduce((a, n) => a + n, 0);
};

it("a plugin package's enumerator and aggregated committer work from their thread, through a restore: every row committed once", async () => {
  const out = join(dir, 'tally.txt');
  const marker = join(dir, 'failed-once');
  const file = job(
    'tally.conf',
    'TestSource {\n    rows = 700\n    delay = 200\n  }',
    `TestSink {\n    path = "${out}"\n    fail_once = "${marker}"\n  }`,
    '  checkpoint.interval = 500\n  job.retry.interval.seconds = 0\n',
    1,
  );
  const res = await cluster!.cli(['submit', '-c', file], 150_000);
  expect(res.code, res.stdout + res.stderr).toBe(0);
  // The writer failed once, past a completed checkpoint: the pipeline restored its enumerator
  // (in a new thread) and readers from it, and the committer committed each row once.
  expect(committed(marker)).toBeGreaterThan(0);
  expect(committed(out)).toBe(1400);
}, 200_000);

it('an enumerator spinning in handleSplitRequest stalls neither the coordinator nor another job, and fails its job naming the call', async () => {
  const c = cluster!;
  const marker = join(dir, 'spinning');
  const spinning = job('spins.conf', `TestSource { spin = "${marker}" }`, 'Console {}');
  const submitted = await c.cli(['submit', '-c', spinning, '--async'], 60_000);
  expect(submitted.code, submitted.stderr).toBe(0);
  const jobId = submitted.stdout.trim();
  await c.until('the enumerator spins', () => existsSync(marker), 90_000);
  // The coordinator answers while the enumerator spins ...
  const list = await c.cli(['list'], 60_000);
  expect(list.code, list.stderr).toBe(0);
  expect(list.stdout).toContain(jobId);
  // ... and runs another job to its end.
  const other = await c.cli(
    ['submit', '-c', job('other.conf', 'FakeSource {\n    row.num = 50\n    schema = { fields { id = "bigint" } }\n  }', 'Console {}')],
    120_000,
  );
  expect(other.code, other.stderr).toBe(0);
  // It was still spinning then (the limit is 40 s): the coordinator did not wait for it.
  expect((await c.job(jobId)).status).toBe(JobStatus.RUNNING);
  await c.until('the spinning job failed', async () => (await c.job(jobId)).status === JobStatus.FAILED, 120_000);
  expect((await c.job(jobId)).error?.message).toMatch(
    /^source TestSource \(\S*spins\.conf:7\): its SplitEnumerator\.handleSplitRequest call did not return within 40 s \(tideway\.plugin-call-timeout\.enumerate\)/,
  );
}, 300_000);

it('a plugin source whose prepare() spins at submit fails the submit naming the call, and the coordinator keeps answering', async () => {
  const c = cluster!;
  const marker = join(dir, 'spinning-prepare');
  const submit = c.cli(['submit', '-c', job('prepare-spins.conf', `TestSource { spin_prepare = "${marker}" }`, 'Console {}')], 150_000);
  await c.until('prepare() spins', () => existsSync(marker), 90_000);
  // The coordinator answers while the planning thread spins.
  const list = await c.cli(['list'], 60_000);
  expect(list.code, list.stderr).toBe(0);
  const res = await submit;
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(
    /source TestSource \(\S*prepare-spins\.conf:7\): its Source\.prepare call did not return within 8 s \(tideway\.plugin-call-timeout\.open\); the job's planning thread on the coordinator was stopped/,
  );
}, 200_000);

it('an aggregated commit that never settles fails its job naming the call', async () => {
  const c = cluster!;
  const hangs = job('hangs.conf', 'TestSource { rows = 20 }', `TestSink { path = "${join(dir, 'hangs.txt')}", hang = true }`);
  const res = await c.cli(['submit', '-c', hangs], 150_000);
  expect(res.code, res.stdout + res.stderr).toBe(1);
  expect(res.stderr).toMatch(
    /sink TestSink \(\S+hangs\.conf:10\): its SinkAggregatedCommitter\.commit call did not return within 4 s \(tideway\.plugin-call-timeout\.commit\)/,
  );
}, 200_000);
