/**
 * The TypeScript client as a project outside this repository gets it (issue 31, item 4): `pnpm
 * pack` of libs/client gives one tarball; a new npm project in a temp folder installs it (its
 * registry dependencies come from the npm registry), type-checks a small script against the
 * tarball's declarations and runs it against a real cluster started here: two coordinators (HA
 * over a private Redis), mutual TLS and bearer tokens. The script finds the leader from either
 * coordinator, submits a job, watches it to its end and reads its status and metrics; a call
 * without the token is refused.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureTls } from '@tideway/rpc';
import { runCli } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { startHaCluster, type HaCluster } from '../cluster/ha-cluster.js';
import { fakeJob } from '../cluster/test-cluster.js';
import { certRoleOf, tlsFiles } from '../security/tls-files.js';
import { createToken } from '../security/token-cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-ts-client-'));
const certs = join(dir, 'certs');
const project = join(dir, 'project');
let ha: HaCluster | undefined;
let token = '';
let tarball = '';
/** Why the registry could not be reached (the install is skipped outside CI), or undefined. */
let offline: string | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; kills it after `timeoutMs`. */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** npm's words for a registry it could not reach. */
const UNREACHABLE = /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|ENETUNREACH|network/i;

// The script a caller writes: plain JavaScript, type-checked (checkJs) against the tarball's .d.ts.
const SCRIPT = `// @ts-check
import { readFileSync } from 'node:fs';
import { JobClient, JobStatus, TidewayError, jobStatusToJSON } from '@tideway/client';

const addresses = (process.env.ADDRESSES ?? '').split(',');
const dir = process.env.CERTS ?? '.';
/** @type {import('@tideway/client').TlsFiles} */
const tls = { caFile: dir + '/ca.pem', certFile: dir + '/client.pem', keyFile: dir + '/client-key.pem' };
const token = process.env.TOKEN;

// Either coordinator first: a follower redirects to the leader.
const leaders = [];
for (const order of [addresses, [...addresses].reverse()]) {
  const c = new JobClient(order, { token, tls });
  await c.list();
  leaders.push(c.address);
  c.close();
}

const client = new JobClient(addresses, { token, tls });
const { jobId } = await client.submit({ configText: readFileSync('job.conf', 'utf8'), jobName: 'outside' });
let events = 0;
const last = await client.watch(jobId, () => events++, 200);
const info = await client.get(jobId);
const metrics = await client.metrics(jobId);
client.close();

/** @type {string} */
let refused = 'not refused';
const anonymous = new JobClient(addresses, { tls });
try {
  await anonymous.list();
} catch (err) {
  refused = err instanceof TidewayError ? 'TidewayError ' + err.code + ': ' + err.message : String(err);
}
anonymous.close();

console.log(JSON.stringify({
  leaders,
  jobId,
  watched: jobStatusToJSON(last.job?.status ?? JobStatus.JOB_STATUS_UNSPECIFIED),
  events,
  status: jobStatusToJSON(info.status),
  name: info.jobName,
  rows: Number(metrics.sourceReceivedCount),
  refused,
}));
`;

beforeAll(async () => {
  const certsRun = await runCli(['cluster', 'certs', '--out', certs]);
  expect(certsRun.code, certsRun.stderr).toBe(0);
  const operator = await createToken('operator', 'outside');
  token = operator.token;
  // This process (the test's own clients) talks TLS too.
  configureTls(tlsFiles(certs, 'client'));
  ha = await startHaCluster({
    workers: [{ attributes: {} }],
    tls: (name) => tlsFiles(certs, certRoleOf(name)),
    tidewayYaml: ['auth:', '  tokens:', operator.line],
  });

  // The package as it would be published: pnpm pack runs its prepack (tsc -b, then the bundle).
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  const pack = await run('pnpm', ['pack', '--pack-destination', packs], join(repoRoot, 'libs', 'client'), 300_000);
  expect(pack.code, pack.stdout + pack.stderr).toBe(0);
  const made = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  expect(made).toHaveLength(1);
  tarball = join(packs, made[0]);

  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'outside', private: true, type: 'module' }, null, 2));
  const install = await run('npm', ['install', '--no-audit', '--no-fund', tarball, '@types/node@20'], project, 300_000);
  if (install.code !== 0 && UNREACHABLE.test(install.stderr) && process.env.CI !== 'true') {
    offline = install.stderr.trim().split('\n').pop();
    console.log(`typescript-package: skipped: the npm registry cannot be reached (${offline})`);
    return;
  }
  expect(install.code, install.stdout + install.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await ha?.stop();
  configureTls(undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('@tideway/client from its tarball, in a project outside the repository', () => {
  it('installs as one package whose dependencies are registry packages only', ({ skip }) => {
    if (offline) skip();
    const installed = readdirSync(join(project, 'node_modules', '@tideway'));
    expect(installed).toEqual(['client']);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@tideway', 'client', 'package.json'), 'utf8')) as {
      private?: boolean;
      dependencies: Record<string, string>;
    };
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@tideway/'))).toEqual([]);
    for (const dep of Object.keys(manifest.dependencies))
      expect(existsSync(join(project, 'node_modules', dep, 'package.json')), dep).toBe(true);
  });

  it("type-checks a caller's script against the tarball's declarations", async ({ skip }) => {
    if (offline) skip();
    writeFileSync(join(project, 'use.mjs'), SCRIPT);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          allowJs: true,
          checkJs: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['use.mjs'],
      }),
    );
    const tsc = createRequire(join(repoRoot, 'package.json')).resolve('typescript/bin/tsc');
    const check = await run(process.execPath, [tsc, '-p', project], project, 120_000);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 180_000);

  it('submits a job to a real cluster (HA, mutual TLS, token), follows the leader and reads the job', async ({ skip }) => {
    if (offline) skip();
    const cluster = ha!.cluster;
    writeFileSync(join(project, 'job.conf'), fakeJob({ mode: 'BATCH', parallelism: 2, rowNum: 40, readIntervalMs: 50 }));
    // A plain node outside the repository: no source condition, no tsx, the caller's own node_modules.
    const env = { ADDRESSES: cluster.address, CERTS: certs, TOKEN: token, NODE_OPTIONS: '' };
    const res = await run(process.execPath, ['use.mjs'], project, 120_000, env);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const out = JSON.parse(res.stdout.trim().split('\n').pop()!) as {
      leaders: string[];
      jobId: string;
      watched: string;
      events: number;
      status: string;
      name: string;
      rows: number;
      refused: string;
    };
    // Whichever coordinator it asked first, the client ended at the same one: the leader.
    expect(new Set(out.leaders).size, JSON.stringify(out.leaders)).toBe(1);
    expect(cluster.coordinatorAddresses).toContain(out.leaders[0]);
    expect(out.watched).toBe('FINISHED');
    expect(out.events).toBeGreaterThan(0);
    expect(out.status).toBe('FINISHED');
    expect(out.name).toBe('outside');
    // FakeSource's 40 rows for each of its two readers.
    expect(out.rows).toBe(80);
    expect(out.refused).toMatch(/^TidewayError TW-[A-Z]+-\d+: ListJobs needs a bearer token/);
  }, 180_000);
});
