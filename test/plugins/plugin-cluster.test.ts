/**
 * Plugin folders in a cluster (issue 33, item 1): every process of a cluster started with
 * `tideway cluster start` reads the plugin folders of its own engine config. A job submitted by a
 * client that has no plugin folder names a plugin that only the cluster's processes have: the
 * coordinator plans it and each of two workers (one slot each) runs a task of it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestCluster, jobFile } from '../cluster/test-cluster.js';
import { writePluginPackage } from './plugin-job.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-cluster-'));
const pluginDir = join(dir, 'plugins');
const out = join(dir, 'out');
let cluster: TestCluster | undefined;

// A sink writing each row as a line to a file named by the process and subtask that wrote it.
const MARKER_SINK = `import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
export const markerSinkFactory = {
  type: 'sink', name: 'MarkerSink', description: 'Writes rows to files named by process and subtask.',
  spec: { options: [{ name: 'path', type: 'string', required: true, description: 'folder' }] },
  create: (ctx) => ({
    createWriter: (w) => {
      const folder = ctx.options.get('path');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, process.pid + '-' + w.subtaskIndex + '.txt');
      return { write(rows) { appendFileSync(file, rows.map((r) => String(r.fields[0]) + '\\n').join('')); }, close() {} };
    },
  }),
};
`;

beforeAll(async () => {
  writePluginPackage(
    pluginDir,
    'marker-sink',
    { api: '^0.1.0', plugins: [{ name: 'MarkerSink', kind: 'sink', factory: 'markerSinkFactory' }] },
    MARKER_SINK,
  );
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 1,
    jobScheduleStrategy: 'REJECT',
    tidewayYaml: ['plugins:', `  dirs: [${JSON.stringify(pluginDir)}]`],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("runs a plugin of the processes' plugin folders on every worker", async () => {
  const c = cluster!;
  const job = jobFile(
    c,
    'marker.conf',
    `env {\n  job.mode = "BATCH"\n  parallelism = 2\n}\nsource {\n  FakeSource {\n    row.num = 40\n    schema = { fields { id = "int" } }\n  }\n}\nsink {\n  MarkerSink { path = "${out}" }\n}\n`,
  );
  const res = await c.cli(['submit', '-c', job], 150_000);
  expect(res.code, res.stdout + res.stderr).toBe(0);
  const files = readdirSync(out);
  const pids = new Set(files.map((f) => f.split('-')[0]));
  expect(pids.size, files.join(', ')).toBe(2);
  const lines = files.flatMap((f) => readFileSync(join(out, f), 'utf8').trim().split('\n'));
  expect(lines).toHaveLength(80);
}, 200_000);
