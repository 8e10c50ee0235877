/**
 * Mutual TLS between every process (issue 12, item 1), with certificates written by
 * `tideway cluster certs`: a cluster whose coordinator, resource manager and two workers each
 * present their role's certificate runs a checkpointed job with a shuffle between workers, every
 * row once; a process whose certificate another CA signed (or that has none) cannot call
 * JobService, register as a worker or open a DataExchange stream; certificate files replaced on
 * disk are served without a restart.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as https from 'node:https';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataExchangeClient, JobServiceClient, jobStatusToJSON } from '@tideway/contracts';
import { channelCredentials, clientOptions, configureTls } from '@tideway/rpc';
import { runCli, spawnCli } from '../conformance/cli-process.js';
import { checkSequenceOutput } from '../e2e/sequence-checker.js';
import { sequenceJob } from '../e2e/sequence-job.js';
import { TestCluster, jobFile } from '../cluster/test-cluster.js';
import { freePort } from '@tideway/testing';
import { certRoleOf, tlsFiles } from './tls-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-tls-'));
const ours = join(dir, 'cluster');
const theirs = join(dir, 'other');
const files = tlsFiles;
// worker-2's own copies of the worker files, for the reload test.
const worker2Dir = join(dir, 'worker-2');
const roleOf = certRoleOf;
let cluster: TestCluster;
let restPort = 0;

/** GET over HTTPS trusting only `caFile`; the status, or the error's message. */
function httpsGet(url: string, caFile: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca: readFileSync(caFile) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e) => resolve(e.message));
  });
}

beforeAll(async () => {
  for (const out of [ours, theirs]) {
    const res = await runCli(['cluster', 'certs', '--out', out]);
    expect(res.code, res.stderr).toBe(0);
  }
  mkdirSync(worker2Dir);
  for (const f of ['ca.pem', 'worker.pem', 'worker-key.pem']) copyFileSync(join(ours, f), join(worker2Dir, f));
  restPort = await freePort();
  // This process (and the CLI it runs) is the cluster's client.
  configureTls(files(ours, 'client'));
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 3,
    jobScheduleStrategy: 'WAIT',
    tls: (name) => files(name === 'worker-2' ? worker2Dir : ours, roleOf(name)),
    engineYaml: ['http:', '  enable-http: true', `  port: ${restPort}`, '  enable-dynamic-port: false'],
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  configureTls(undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** Whether a channel with these credentials gets ready against the address within 3 s. */
function connects(
  Client: typeof JobServiceClient | typeof DataExchangeClient,
  address: string,
  creds: grpc.ChannelCredentials,
): Promise<boolean> {
  const client = new Client(address, creds, clientOptions);
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + 3000, (err) => {
      client.close();
      resolve(!err);
    });
  });
}

const otherCaCreds = () => {
  const f = files(theirs, 'client');
  return grpc.credentials.createSsl(readFileSync(f.caFile), readFileSync(f.keyFile), readFileSync(f.certFile));
};
const noCertCreds = () => grpc.credentials.createSsl(readFileSync(files(ours, 'client').caFile));

describe('mutual TLS', () => {
  it('a checkpointed job with a shuffle between workers finishes, every row once', { timeout: 150_000 }, async () => {
    const out = join(cluster.dir, 'shuffled');
    const job = { mode: 'BATCH' as const, keys: 4, rowsPerKey: 1000, rowsPerSecond: 1000, out, chainParallelism: 3 };
    const res = await cluster.cli(['submit', '--async', '-c', jobFile(cluster, 'shuffled.conf', sequenceJob(job))]);
    expect(res.code, res.stderr).toBe(0);
    const jobId = res.stdout.trim();
    await cluster.until('job finished', async () => jobStatusToJSON((await cluster.job(jobId)).status) === 'FINISHED', 120_000);
    const info = await cluster.job(jobId);
    expect(info.completedCheckpoints).toBeGreaterThanOrEqual(1);
    // The job's task groups ran on both workers: rows crossed between processes.
    expect(new Set(info.pipelines.flatMap((p) => p.taskGroups.map((t) => t.workerAddress))).size).toBe(2);
    const report = checkSequenceOutput(out, job.keys, job.rowsPerKey);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: job.keys * job.rowsPerKey });
    // Every process (and its task threads) called the others by IP address over TLS, and printed
    // only its pino logs: grpc-js's IP server name no longer brings Node's DEP0123 line.
    for (const [name, log] of cluster.logs) expect(log, name).not.toContain('DEP0123');
  });

  it('JobService and DataExchange accept the cluster CA, refuse plaintext, no certificate and another CA', async () => {
    const worker = `127.0.0.1:${cluster.grpcPorts.get('worker-1')}`;
    expect(await connects(JobServiceClient, cluster.address, channelCredentials())).toBe(true);
    expect(await connects(DataExchangeClient, worker, channelCredentials())).toBe(true);
    for (const creds of [grpc.credentials.createInsecure(), noCertCreds(), otherCaCreds()]) {
      expect(await connects(JobServiceClient, cluster.address, creds)).toBe(false);
      expect(await connects(DataExchangeClient, worker, creds)).toBe(false);
    }
  });

  it('the REST API and the metrics endpoints serve HTTPS with the cluster certificate, not plain HTTP', async () => {
    const ca = files(ours, 'client').caFile;
    expect(cluster.logs.get('coordinator')).toContain(`REST API at https://127.0.0.1:${restPort}`);
    expect(await httpsGet(`https://127.0.0.1:${restPort}/overview`, ca)).toBe(200);
    expect(await httpsGet(`https://127.0.0.1:${restPort}/overview`, files(theirs, 'client').caFile)).toMatch(
      /self.signed|unable to verify|certificate/i,
    );
    await expect(fetch(`http://127.0.0.1:${restPort}/overview`)).rejects.toThrow();
    for (const name of ['coordinator', 'worker-1'] as const) {
      expect(await httpsGet(`https://127.0.0.1:${cluster.metricsPorts.get(name)}/metrics`, ca)).toBe(200);
    }
  });

  it('a worker whose certificate another CA signed cannot register', async () => {
    const config = join(cluster.dir, 'rogue.yaml');
    const text = readFileSync(cluster.configFile('worker-1'), 'utf8')
      .replace(/port: \d+\n(\s+attributes)/, 'port: 0\n$1')
      .replace(
        /tls: .*/,
        `tls: ${JSON.stringify({ 'ca-file': files(theirs, 'worker').caFile, 'cert-file': files(theirs, 'worker').certFile, 'key-file': files(theirs, 'worker').keyFile })}`,
      );
    writeFileSync(config, text);
    const rogue = spawnCli(['cluster', 'start', '--role', 'worker', '--engine-config', config]);
    let log = '';
    rogue.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    try {
      await cluster.until('the rogue worker tried', () => /listening on/.test(log), 30_000);
      // Ten heartbeat intervals: a registered worker would be listed by now.
      await new Promise((r) => setTimeout(r, 3000));
      expect(await cluster.workers()).toHaveLength(2);
    } finally {
      rogue.kill('SIGKILL');
    }
  });
});

describe('certificate reload', () => {
  it('certificate files replaced on disk are used for new connections, without a restart', { timeout: 60_000 }, async () => {
    // worker-2 has its own copies of the files: they are overwritten with another CA's, and
    // after the re-read the cluster's clients no longer reach it while the other CA's do.
    const worker = `127.0.0.1:${cluster.grpcPorts.get('worker-2')}`;
    expect(await connects(DataExchangeClient, worker, channelCredentials())).toBe(true);
    expect(await connects(DataExchangeClient, worker, otherCaCreds())).toBe(false);
    const mine = files(worker2Dir, 'worker');
    const other = files(theirs, 'worker');
    for (const k of ['caFile', 'certFile', 'keyFile'] as const) writeFileSync(mine[k], readFileSync(other[k]));
    await cluster.until(
      'worker-2 serves the new certificate',
      async () => (await connects(DataExchangeClient, worker, otherCaCreds())) === true,
      30_000,
    );
    expect(await connects(DataExchangeClient, worker, channelCredentials())).toBe(false);
  });
});
