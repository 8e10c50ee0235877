/** Plugin folders, engine configs and jobs for the plugin tests (test/plugins). */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../conformance/conformance-files.js';

/** An engine config whose tideway.plugins.dirs is `pluginDir` (everything else default but `tideway` lines in `more`). */
export function writeEngineConfig(dir: string, pluginDir: string, more = ''): string {
  const file = join(dir, 'engine.yaml');
  writeFileSync(file, `tideway:\n  plugins:\n    dirs: [${JSON.stringify(pluginDir)}]\n${more}`);
  return file;
}

/** A BATCH job: FakeSource's `rows` rows (id bigint, name string) into `sink`, a HOCON block; `env` lines go into its env block. */
export function writeJob(dir: string, rows: number, sink: string, env: readonly string[] = []): string {
  const file = join(dir, 'job.conf');
  writeFileSync(
    file,
    `env {\n  job.mode = "BATCH"\n  parallelism = 2\n${env.map((l) => `  ${l}\n`).join('')}}\nsource {\n  FakeSource {\n    row.num = ${rows}\n    schema = { fields { id = "bigint", name = "string" } }\n  }\n}\nsink {\n  ${sink}\n}\n`,
  );
  return file;
}

/** A plugin package folder of plain JavaScript under `pluginDir`. */
export function writePluginPackage(pluginDir: string, name: string, tideway: unknown, code: string): void {
  const dir = join(pluginDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.js', tideway }, null, 2),
  );
  writeFileSync(join(dir, 'index.js'), code);
}

const exec = promisify(execFile);

/** The @tideway/api tarball, as `pnpm pack` makes it for authors outside the repository (its prepack builds and bundles). */
export async function packApi(dir: string): Promise<string> {
  const packs = join(dir, 'packs');
  mkdirSync(packs, { recursive: true });
  await exec('pnpm', ['pack', '--pack-destination', packs], { cwd: join(repoRoot, 'libs', 'api'), timeout: 300_000 });
  const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack left no tarball in ${packs}`);
  return join(packs, tarball);
}

/**
 * Installs a plugin project's peer dependency from the tarball where npm puts it (the tarball's
 * package/ folder as node_modules/@tideway/api), and the repository's @types/node and
 * TypeScript for its build: no registry needed.
 */
export async function installApi(project: string, tarball: string): Promise<void> {
  const api = join(project, 'node_modules', '@tideway', 'api');
  mkdirSync(api, { recursive: true });
  await exec('tar', ['-xzf', tarball, '-C', api, '--strip-components=1']);
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(realpathSync(join(repoRoot, 'node_modules', '@types', 'node')), join(project, 'node_modules', '@types', 'node'));
}

/** Runs a command to its end; resolves with its output, rejects with it when the exit code is not 0. */
export async function runTool(command: string, args: string[], cwd: string, timeoutMs = 180_000): Promise<string> {
  try {
    const r = await exec(command, args, { cwd, timeout: timeoutMs });
    return r.stdout + r.stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: e });
  }
}

/** tsc of the repository, for building plugin projects. */
export const TSC = createRequire(join(repoRoot, 'package.json')).resolve('typescript/bin/tsc');

/**
 * A bounded source of `rows` rows per reader, one split per reader, assigned when the reader asks
 * (handleSplitRequest). With `spin` set, handleSplitRequest writes the file `spin` names and then
 * loops for ever; with `spin_prepare`, Source.prepare does so at submit.
 */
export const testSourceCode = (name: string): string => `import { writeFileSync } from 'node:fs';
const table = { tableId: 't', path: { table: 't' }, columns: [{ name: 'id', type: { kind: 'bigint' }, nullable: false }] };
export const factory = {
  type: 'source', name: '${name}', description: 'test',
  spec: { options: [
    { name: 'rows', type: 'long', default: 100, description: 'rows per reader' },
    { name: 'spin', type: 'string', default: '', description: 'marker file written before spinning' },
    { name: 'delay', type: 'long', default: 0, description: 'ms each poll waits' },
    { name: 'spin_prepare', type: 'string', default: '', description: 'marker file written before prepare() spins' },
  ] },
  create: (ctx) => ({
    prepare() {
      const spin = ctx.options.get('spin_prepare');
      if (spin) { writeFileSync(spin, 'spinning'); for (;;) {} }
    },
    boundedness: () => 'BOUNDED',
    catalogTables: () => [table],
    createEnumerator: (ectx, restored) => {
      const given = new Set(restored?.given ?? []);
      return {
        open() {}, run() {}, registerReader() {},
        handleSplitRequest(subtask) {
          const spin = ctx.options.get('spin');
          if (spin) { writeFileSync(spin, 'spinning'); for (;;) {} }
          const splitId = 'part-' + subtask;
          if (!given.has(splitId)) { ectx.assignSplits(subtask, [{ splitId, next: 0 }]); given.add(splitId); }
          ectx.signalNoMoreSplits(subtask);
        },
        addSplitsBack(splits) { for (const s of splits) given.delete(s.splitId); },
        snapshotState: () => ({ given: [...given] }),
        close() {},
      };
    },
    createReader: (rctx) => {
      const rows = Number(ctx.options.get('rows'));
      const splits = [];
      let done = false;
      return {
        open() { rctx.sendSplitRequest(); },
        async pollNext(out) {
          const delay = Number(ctx.options.get('delay'));
          if (delay > 0) await new Promise((r) => setTimeout(r, delay));
          const s = splits[0];
          if (!s) { if (done) rctx.signalNoMoreElement(); return; }
          const n = Math.min(50, rows - s.next);
          const batch = [];
          for (let i = 0; i < n; i++) batch.push({ kind: '+I', tableId: 't', fields: [BigInt(rctx.subtaskIndex * rows + s.next + i)] });
          if (batch.length > 0) out.collectBatch(batch);
          s.next += n;
          if (s.next >= rows) splits.shift();
        },
        addSplits(ss) { splits.push(...ss.map((s) => ({ ...s }))); },
        handleNoMoreSplits() { done = true; },
        snapshotState: () => splits.map((s) => ({ ...s })),
        close() {},
      };
    },
  }),
};
`;
