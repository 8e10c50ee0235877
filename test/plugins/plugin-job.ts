/** Plugin folders, engine configs and jobs for the plugin tests (test/plugins). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An engine config whose tideway.plugins.dirs is `pluginDir` (everything else default). */
export function writeEngineConfig(dir: string, pluginDir: string): string {
  const file = join(dir, 'engine.yaml');
  writeFileSync(file, `tideway:\n  plugins:\n    dirs: [${JSON.stringify(pluginDir)}]\n`);
  return file;
}

/** A BATCH job: FakeSource's `rows` rows (id bigint, name string) into `sink`, a HOCON block. */
export function writeJob(dir: string, rows: number, sink: string): string {
  const file = join(dir, 'job.conf');
  writeFileSync(
    file,
    `env {\n  job.mode = "BATCH"\n  parallelism = 2\n}\nsource {\n  FakeSource {\n    row.num = ${rows}\n    schema = { fields { id = "bigint", name = "string" } }\n  }\n}\nsink {\n  ${sink}\n}\n`,
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
