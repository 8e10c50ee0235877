/**
 * The cost of TLS on a PostgreSQL -> PostgreSQL Jdbc job run on a cluster (issue 12): the same
 * job (Jdbc source -> Jdbc sink with COPY, shared/bench's `orders`, parallelism 1) on
 * - a plaintext cluster, plaintext PostgreSQL connections (the baseline);
 * - a cluster with mutual TLS on every gRPC port (`tideway.tls`, certificates from
 *   `tideway cluster certs`), plaintext PostgreSQL connections;
 * - the same TLS cluster with `sslmode=require` on both Jdbc URLs (PostgreSQL started with
 *   ssl=on): the rows themselves travel encrypted.
 * Both clusters (coordinator, resource manager, one worker: separate processes) run at once and
 * the three cases run in turn, BENCH_REPEAT times (default 3), so machine noise spreads over
 * all of them. Each run reports the job's own time (start to finish, from JobService) and the
 * CPU seconds it cost: the cluster's three processes (worker task threads included) and the
 * PostgreSQL backends (reaped by the postmaster: its children's CPU in /proc), which a loaded
 * machine moves much less than wall time. The target is counted and emptied after every run,
 * and PostgreSQL's connection log shows which runs used SSL. Prints a Markdown section for
 * bench/RESULTS.md.
 *
 * usage: pnpm build && node --import tsx --conditions=source bench/tls-jdbc.ts   (BENCH_ROWS, default 300,000)
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { GetJobRequest, JobServiceClient, JobStatus, SubmitJobRequest, jobStatusToJSON, type JobInfo } from '@tideway/contracts';
import { ClusterProcesses, startPostgres } from '@tideway/testing';
import { clientOptions } from '@tideway/rpc';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { jobConf, loadOrders, median, pgConnection, pgCount, pgOrdersSink, pgRun, repo } from './orders-servers.js';
import { machineLine } from './machine.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 300_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-tls-jdbc-'));
const tls = join(work, 'tls');
const cli = cliNodeArgs();
execFileSync(process.execPath, [...cli, 'cluster', 'certs', '--out', tls], { cwd: repo });
const files = (name: string) => ({
  caFile: join(tls, 'ca.pem'),
  certFile: join(tls, `${name}.pem`),
  keyFile: join(tls, `${name}-key.pem`),
});

// PostgreSQL serves SSL with the coordinator's certificate; its key must belong to the server's
// user, which must reach the folder (mkdtemp makes it 0700).
const pgTls = join(work, 'pg-tls');
mkdirSync(pgTls);
chmodSync(work, 0o755);
copyFileSync(files('coordinator').certFile, join(pgTls, 'server.pem'));
copyFileSync(files('coordinator').keyFile, join(pgTls, 'server-key.pem'));
if (process.getuid?.() === 0) {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  for (const f of ['server.pem', 'server-key.pem']) chownSync(join(pgTls, f), uid, gid);
}
const pgSrv = await startPostgres({
  settings: {
    shared_buffers: '1GB',
    max_wal_size: '8GB',
    ssl: 'on',
    ssl_cert_file: join(pgTls, 'server.pem'),
    ssl_key_file: join(pgTls, 'server-key.pem'),
    log_connections: 'on',
  },
});
const pgLog = () => readFileSync(join(pgSrv.dir, 'postgres.log'), 'utf8');
const postmaster = Number(readFileSync(join(pgSrv.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString());

/** CPU seconds of a process from /proc: its own (utime, stime) or its reaped children's (cutime, cstime). */
function cpuSeconds(pid: number, of: 'self' | 'children'): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const [u, s] = of === 'self' ? [fields[11], fields[12]] : [fields[13], fields[14]];
  return (Number(u) + Number(s)) / TICK;
}

/** CPU seconds so far of the cluster's processes and of PostgreSQL's ended backends. */
function cpuNow(cluster: ClusterProcesses): number {
  return cluster.names().reduce((sum, n) => sum + cpuSeconds(cluster.pid(n)!, 'self'), 0) + cpuSeconds(postmaster, 'children');
}

function startCluster(withTls: boolean): Promise<ClusterProcesses> {
  const roleOf = (name: string) =>
    name.startsWith('worker-') ? 'worker' : name.startsWith('coordinator') ? 'coordinator' : 'resource-manager';
  return ClusterProcesses.create({
    cli,
    cwd: repo,
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: (name) => {
      if (!withTls) return [];
      const f = files(roleOf(name));
      return [`  tls: ${JSON.stringify({ 'ca-file': f.caFile, 'cert-file': f.certFile, 'key-file': f.keyFile })}`];
    },
  }).then(async (c) => (await c.startAll(), c));
}

/** Waits until the cluster's worker has registered, so that no run waits for slots. */
async function untilWorker(client: JobServiceClient): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const o = await unary<object, { workers: unknown[] }>(client.getClusterOverview.bind(client), {});
    if (o.workers.length > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no worker registered within 30 s');
}

function jobClient(cluster: ClusterProcesses, withTls: boolean): JobServiceClient {
  const f = files('client');
  const creds = withTls
    ? grpc.credentials.createSsl(readFileSync(f.caFile), readFileSync(f.keyFile), readFileSync(f.certFile))
    : grpc.credentials.createInsecure();
  return new JobServiceClient(cluster.address('coordinator'), creds, clientOptions);
}

const unary = <Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));

/** Submits the job and waits for its end; the job's own milliseconds from start to finish. */
async function runJob(client: JobServiceClient, configText: string): Promise<number> {
  const { jobId } = await unary<SubmitJobRequest, { jobId: string }>(
    client.submitJob.bind(client),
    SubmitJobRequest.fromPartial({ configText, configFile: 'pg-to-pg.conf' }),
  );
  for (;;) {
    const job = await unary<GetJobRequest, JobInfo>(client.getJob.bind(client), GetJobRequest.fromPartial({ jobId }));
    if (job.status === JobStatus.FINISHED) return job.finishTimeMs - job.startTimeMs;
    if ([JobStatus.FAILED, JobStatus.CANCELED].includes(job.status))
      throw new Error(`job ${jobId} ended ${jobStatusToJSON(job.status)}: ${job.error?.message ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const load = loadavg()[0];
const clusters: ClusterProcesses[] = [];
const clients: JobServiceClient[] = [];
try {
  console.error(`loading ${ROWS} rows into PostgreSQL ...`);
  await pgRun(pgSrv, pgSrv.database, 'CREATE DATABASE src');
  await loadOrders(work, pgSrv, undefined, ROWS);
  const sink = (query: string) => pgOrdersSink(pgSrv, query);
  const source = (query: string) =>
    [
      ...pgConnection(pgSrv, 'src').map((l) => (l.includes('url =') ? l.replace(/"$/, `${query}"`) : l)),
      '    table_path = "src.public.orders"',
    ].join('\n');
  const job = (query: string) => readFileSync(jobConf(work, `pg-to-pg${query ? '-ssl' : ''}`, source(query), sink(query)), 'utf8');

  const [plain, mtls] = await Promise.all([startCluster(false), startCluster(true)]);
  clusters.push(plain, mtls);
  const plainClient = jobClient(plain, false);
  const tlsClient = jobClient(mtls, true);
  clients.push(plainClient, tlsClient);
  await Promise.all([untilWorker(plainClient), untilWorker(tlsClient)]);
  const cases = [
    { name: 'plaintext cluster, plaintext PostgreSQL', cluster: plain, client: plainClient, config: job(''), ssl: false },
    { name: 'mutual TLS cluster, plaintext PostgreSQL', cluster: mtls, client: tlsClient, config: job(''), ssl: false },
    {
      name: 'mutual TLS cluster, PostgreSQL sslmode=require',
      cluster: mtls,
      client: tlsClient,
      config: job('?sslmode=require'),
      ssl: true,
    },
  ];
  const times = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  for (let rep = 1; rep <= REPEAT; rep++) {
    for (const [i, c] of cases.entries()) {
      console.error(`run ${rep}/${REPEAT}: ${c.name} ...`);
      const logBefore = pgLog().length;
      const cpuBefore = cpuNow(c.cluster);
      times[i].push(await runJob(c.client, c.config));
      // The backends have exited by the job's end (the sink commits, then closes).
      await new Promise((r) => setTimeout(r, 300));
      cpu[i].push(cpuNow(c.cluster) - cpuBefore);
      // The job's connections (source and sink databases) as PostgreSQL logged them, read
      // before this script's own (plaintext) count and truncate.
      const authorized = pgLog()
        .slice(logBefore)
        .split('\n')
        .filter((l) => /connection authorized: user=\S+ database=(src|tideway)/.test(l));
      const ssl = authorized.filter((l) => l.includes('SSL enabled')).length;
      if (authorized.length === 0 || (c.ssl ? ssl !== authorized.length : ssl !== 0))
        throw new Error(`${c.name}: ${ssl} of ${authorized.length} database connections used SSL`);
      const n = await pgCount(pgSrv, pgSrv.database);
      if (n !== ROWS) throw new Error(`${c.name}: the target has ${n} rows, not ${ROWS}`);
      await pgRun(pgSrv, pgSrv.database, 'TRUNCATE orders; CHECKPOINT');
    }
  }
  const base = median(times[0]);
  const baseCpu = median(cpu[0]);
  const lines = [
    `## TLS on a PG->PG Jdbc job on a cluster (bench/tls-jdbc.ts), ${new Date().toISOString().slice(0, 10)}`,
    '',
    machineLine({ postgres: true }) + ` Load average at the start ${load.toFixed(1)}.`,
    `${ROWS.toLocaleString('en')} rows of shared/bench orders, parallelism 1, job time from JobService (start to finish) and CPU seconds of the cluster's processes and PostgreSQL's backends, median of ${REPEAT} runs taken in turn.`,
    '',
    '| case | job ms (median) | every run | rows/s | vs plaintext | CPU s (median) | every run | CPU vs plaintext |',
    '|---|---|---|---|---|---|---|---|',
    ...cases.map((c, i) => {
      const ms = median(times[i]);
      const s = median(cpu[i]);
      return `| ${c.name} | ${ms} | ${times[i].join(', ')} | ${Math.round(ROWS / (ms / 1000)).toLocaleString('en')} | ${(base / ms).toFixed(2)} | ${s.toFixed(1)} | ${cpu[i].map((x) => x.toFixed(1)).join(', ')} | ${(s / baseCpu).toFixed(2)} |`;
    }),
  ];
  console.log(lines.join('\n'));
} finally {
  for (const c of clients) c.close();
  await Promise.all(clusters.map((c) => c.stop()));
  await pgSrv.stop();
  rmSync(work, { recursive: true, force: true });
}
