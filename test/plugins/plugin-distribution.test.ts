/**
 * Plugin packages in a cluster (issue 33, item 2): a coordinator and two workers as separate
 * processes. Only the coordinator has a plugin folder (with examples/plugins/http-sink); the
 * workers have none and fetch each package a job names from the coordinator, verified by its
 * sha256. `tideway plugins install` adds packages to the running cluster (admins only), two
 * versions of one plugin serve two jobs at once, a stored archive changed after it was stored
 * is refused naming the package, a broken package is refused at install, a version a running
 * job uses cannot be removed (admins remove the others), and a namespace's
 * allowed-plugins applies to plugin packages as to built-ins.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { hashToken, newToken } from '@tideway/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, jobFile } from '../cluster/test-cluster.js';
import { repoRoot } from '../conformance/conformance-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-dist-'));
const coordinatorPlugins = join(dir, 'coordinator-plugins');
let cluster: TestCluster;
let server: Server;
let url = '';
const batches = new Map<string, unknown[]>();
const tokens = { admin: newToken(), teamA: newToken(), teamB: newToken() };

/** examples/plugins/http-sink built as its author would (its TypeScript compiled to dist/), into `target`. */
function buildHttpSink(target: string): void {
  const example = join(repoRoot, 'examples', 'plugins', 'http-sink');
  mkdirSync(join(target, 'dist'), { recursive: true });
  cpSync(join(example, 'package.json'), join(target, 'package.json'));
  const source = readFileSync(join(example, 'src', 'index.ts'), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  writeFileSync(join(target, 'dist', 'index.js'), js.outputText);
}

/** A sink writing `<time> <id>` lines to files named by its version, the worker's pid and the subtask. */
function markerPackage(folder: string, version: string, extra = ''): string {
  const target = join(dir, folder);
  mkdirSync(target, { recursive: true });
  writeFileSync(
    join(target, 'package.json'),
    JSON.stringify({
      name: 'marker-sink',
      version,
      type: 'module',
      exports: './index.js',
      tideway: { api: '^0.1.0', plugins: [{ name: 'MarkerSink', kind: 'sink', factory: 'markerSinkFactory' }] },
    }),
  );
  writeFileSync(
    join(target, 'index.js'),
    `${extra}import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
export const markerSinkFactory = {
  type: 'sink', name: 'MarkerSink', description: 'Writes rows to files named by version, process and subtask.',
  spec: { options: [{ name: 'path', type: 'string', required: true, description: 'folder' }] },
  create: (ctx) => ({
    createWriter: (w) => {
      const folder = ctx.options.get('path');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, '${version}-' + process.pid + '-' + w.subtaskIndex + '.txt');
      return { write(rows) { appendFileSync(file, rows.map((r) => Date.now() + ' ' + String(r.fields[0]) + '\\n').join('')); }, close() {} };
    },
  }),
};
`,
  );
  return target;
}

const job = (name: string, parallelism: number, rows: number, sink: string, source = '', env = '') =>
  jobFile(
    cluster,
    name,
    `env {\n  job.mode = "BATCH"\n  parallelism = ${parallelism}\n${env}}\nsource {\n  FakeSource {\n    row.num = ${rows}\n${source}    schema = { fields { id = "bigint", name = "string" } }\n  }\n}\nsink {\n  ${sink}\n}\n`,
  );

const cli = (args: string[], token: string = tokens.admin, timeoutMs = 150_000) => cluster.cli([...args, '--token', token], timeoutMs);

/** Every `<time> <id>` line of the marker files of one version under `folder`, with the pids that wrote them. */
function markerLines(folder: string, version: string): { times: number[]; pids: Set<string> } {
  const files = existsSync(folder) ? readdirSync(folder).filter((f) => f.startsWith(`${version}-`)) : [];
  const lines = files.flatMap((f) => readFileSync(join(folder, f), 'utf8').trim().split('\n').filter(Boolean));
  return { times: lines.map((l) => Number(l.split(' ')[0])), pids: new Set(files.map((f) => f.split('-')[1])) };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (s: string) => (body += s));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      if (!batches.has(key)) batches.set(key, (JSON.parse(body) as { rows: unknown[] }).rows);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rows`;
  buildHttpSink(join(coordinatorPlugins, 'http-sink'));
  const token = (t: string, role: string, ns = '') => `"${[hashToken(t), role, ns].join(' ').trim()}"`;
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 1,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: (name) => [
      ...(name === 'coordinator' ? ['plugins:', `  dirs: [${JSON.stringify(coordinatorPlugins)}]`] : []),
      'auth:',
      '  tokens:',
      `    admin: ${token(tokens.admin, 'admin')}`,
      `    team-a: ${token(tokens.teamA, 'operator', 'team-a')}`,
      `    team-b: ${token(tokens.teamB, 'operator', 'team-b')}`,
      '  namespaces:',
      '    team-a:',
      '      allowed-plugins: [FakeSource, Console]',
      '    team-b:',
      '      allowed-plugins: [FakeSource, HttpSink, MarkerSink]',
    ],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('plugin packages in a cluster', () => {
  it("runs a plugin of the coordinator's plugin folder on both workers, which fetch it", async () => {
    const res = await cli(['submit', '-c', job('http.conf', 2, 30, `HttpSink { url = "${url}" }`)], tokens.teamB);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect([...batches.values()].flat()).toHaveLength(60); // row.num rows per reader, two readers
    const list = await cli(['plugins', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^tideway-plugin-http-sink +1\.0\.0 +sink HttpSink +[0-9a-f]{12} /m);
    const hash = /^tideway-plugin-http-sink +1\.0\.0 +sink HttpSink +([0-9a-f]{12}) /m.exec(list.stdout)![1];
    // Each worker unpacked it itself (no plugin folder there): both list it as loaded.
    const workersLoaded = list.stdout
      .split('\n')
      .filter((l) => /^worker /.test(l) && l.includes(`tideway-plugin-http-sink@1.0.0 (${hash})`));
    expect(workersLoaded, list.stdout).toHaveLength(2);
    for (const w of cluster.processes.names().filter((n) => n.startsWith('worker')))
      expect(cluster.logLines(w, 'plugin package fetched')).toBe(1);
  }, 200_000);

  it('refuses a namespace whose allowed-plugins lacks the plugin, naming it', async () => {
    const res = await cli(['submit', '-c', job('team-a.conf', 1, 5, `HttpSink { url = "${url}" }`)], tokens.teamA);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('sink HttpSink is not allowed in namespace team-a');
  }, 120_000);

  it('installs packages for admins only, and runs two versions of one plugin in two jobs at once', async () => {
    const refused = await cli(['plugins', 'install', markerPackage('marker-1', '1.0.0')], tokens.teamB);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/InstallPluginPackage.*admin/i);

    const v1 = await cli(['plugins', 'install', join(dir, 'marker-1')]);
    expect(v1.code, v1.stderr).toBe(0);
    expect(v1.stdout).toMatch(/^marker-sink@1\.0\.0 [0-9a-f]{64}$/m);
    const out = join(dir, 'marker-out');
    // Job A (version 1) reads 20 rows a second, of 2000: it still runs when job B (version 2) has run, then is cancelled.
    const a = await cli(
      ['submit', '--async', '-c', job('a.conf', 1, 2000, `MarkerSink { path = "${out}" }`, '', '  read_limit.rows_per_second = 20\n')],
      tokens.teamB,
    );
    expect(a.code, a.stdout + a.stderr).toBe(0);
    const jobA = a.stdout.trim().split('\n').pop()!.trim();
    await cluster.until('job A writes rows', () => markerLines(out, '1.0.0').times.length > 0, 60_000);
    const v2 = await cli(['plugins', 'install', markerPackage('marker-2', '2.0.0')]);
    expect(v2.code, v2.stderr).toBe(0);
    const b = await cli(['submit', '-c', job('b.conf', 1, 20, `MarkerSink { path = "${out}" }`)], tokens.teamB);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    const two = markerLines(out, '2.0.0');
    expect(two.times).toHaveLength(20);
    // Job A (version 1) still runs now that job B (version 2) has finished: the two ran at once.
    const status = await cli(['status', jobA], tokens.teamB);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { status: string }).status).toBe('RUNNING');
    // Removing the version job A runs is refused naming the job; an operator may not remove at all.
    const inUse = await cli(['plugins', 'remove', 'marker-sink@1.0.0']);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(
      new RegExp(`tideway plugins remove marker-sink@1\\.0\\.0: running job ${jobA} \\(\\S+\\) uses it; cancel it or wait until it ends`),
    );
    const notAdmin = await cli(['plugins', 'remove', 'marker-sink@2.0.0'], tokens.teamB);
    expect(notAdmin.code).not.toBe(0);
    expect(notAdmin.stderr).toMatch(/RemovePluginPackage.*admin/i);
    const cancelled = await cli(['cancel', jobA], tokens.teamB);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    // Each job ran on one worker (one slot each, two workers).
    expect(markerLines(out, '1.0.0').pids.size + two.pids.size).toBe(2);

    const described = await cli(['plugins', 'describe', 'marker-sink@1.0.0']);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toMatch(/^plugin package marker-sink@1\.0\.0$/m);
    expect(described.stdout).toMatch(/^ {2}plugin API {2}\^0\.1\.0$/m);
    expect(described.stdout).toMatch(/^ {2}jobs {8}\S+$/m);
    expect(described.stdout).toMatch(/^sink MarkerSink: Writes rows to files named by version, process and subtask\.$/m);
    expect(described.stdout).toMatch(/^ {2}path +string +required +folder$/m);
    const latest = await cli(['plugins', 'describe', 'MarkerSink', '--json']);
    expect((JSON.parse(latest.stdout) as { package: { version: string } }).package.version).toBe('2.0.0');

    // Job A has ended: version 1 goes (its index entry and archive); jobs now get version 2 only.
    let removed = await cli(['plugins', 'remove', 'marker-sink@1.0.0']);
    for (let i = 0; removed.code !== 0 && i < 20 && /running job/.test(removed.stderr); i++) {
      await new Promise((r) => setTimeout(r, 500)); // the cancel settles
      removed = await cli(['plugins', 'remove', 'marker-sink@1.0.0']);
    }
    expect(removed.code, removed.stderr).toBe(0);
    const gone = await cli(['plugins', 'describe', 'marker-sink@1.0.0']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/marker-sink@1\.0\.0 is not in the plugin store; it holds marker-sink@2\.0\.0/);
  }, 240_000);

  it('refuses a stored archive changed after it was stored, naming the package', async () => {
    const installed = await cli(['plugins', 'install', markerPackage('marker-3', '3.0.0')]);
    expect(installed.code, installed.stderr).toBe(0);
    const hash = installed.stdout.trim().split(' ')[1];
    appendFileSync(join(cluster.dir, 'checkpoints', 'plugin-packages', 'packages', `${hash}.tgz`), 'tampered');
    const res = await cli(['submit', '-c', job('tampered.conf', 1, 5, `MarkerSink { path = "${join(dir, 'tampered')}" }`)], tokens.teamB);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /plugin package marker-sink@3\.0\.0: the stored archive has sha256 [0-9a-f]{12}…, not the [0-9a-f]{12}… it was stored as/,
    );
    expect(existsSync(join(dir, 'tampered'))).toBe(false);
  }, 120_000);

  it('refuses a broken package at install in one sentence, exit code 2', async () => {
    const otherApi = join(dir, 'other-api');
    mkdirSync(otherApi, { recursive: true });
    writeFileSync(
      join(otherApi, 'package.json'),
      JSON.stringify({
        name: 'other-api',
        version: '1.0.0',
        tideway: { api: '^9.0.0', plugins: [{ name: 'X', kind: 'sink', factory: 'x' }] },
      }),
    );
    const res = await cli(['plugins', 'install', otherApi]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`plugin package other-api (${otherApi}): it was built for plugin API ^9.0.0`);

    // A module that throws when imported: refused by the coordinator, which loads it before storing it.
    const throwing = markerPackage('marker-throws', '4.0.0', "throw new Error('no config file');\n");
    const res2 = await cli(['plugins', 'install', throwing]);
    expect(res2.code).toBe(2);
    expect(res2.stderr.trim().split('\n')).toHaveLength(1);
    expect(res2.stderr).toMatch(/plugin package marker-sink \(.*marker-throws\): its module index\.js does not load: no config file/);
    const list = await cli(['plugins', 'list']);
    expect(list.stdout).not.toContain('4.0.0');
  }, 120_000);
});
