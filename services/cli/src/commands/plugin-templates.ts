/**
 * What `tideway plugin new` writes: a plugin package built against @tideway/api, with tests that
 * run under Node's own test runner (no test framework to install). The templates are working
 * plugins (a bounded source with restorable splits, an exactly-once sink into files, a
 * transform), not placeholders: the author changes what they do, not how they hold together.
 */
import { PLUGIN_API_VERSION } from '@tideway/api';

export type PluginKind = 'source' | 'sink' | 'transform';

/** `my-sink` / `MySink` -> `MySink`. */
export function pluginName(name: string): string {
  return name
    .split(/[-_]/)
    .filter((p) => p !== '')
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

/** `MySink` -> `my-sink`. */
export function packageFolderName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}

const factoryName = (plugin: string, kind: PluginKind) =>
  `${plugin[0].toLowerCase()}${plugin.slice(1)}${kind[0].toUpperCase()}${kind.slice(1)}Factory`;

const API_RANGE = `^${PLUGIN_API_VERSION}`;

/** The test helper every template's test uses: options as Tideway hands them to a factory. */
const OPTIONS_HELPER = `import type { PluginOptions } from '@tideway/api';

/** Options as Tideway resolves them: the spec's defaults, then the values a job sets. */
export function options(defaults: Record<string, unknown>, set: Record<string, unknown> = {}): PluginOptions {
  const values = { ...defaults, ...set };
  return {
    get: <T>(name: string) => values[name] as T,
    has: (name: string) => name in set,
    raw: set,
    place: (option?: string) => ({ plugin: 'test', option }),
  };
}
`;

function sourceCode(plugin: string, factory: string): string {
  return `/**
 * ${plugin}: a bounded source of \`rows\` numbered rows per reader. Each reader owns one split and
 * keeps in it how far it got, so a restore from a checkpoint resumes after the last row the
 * checkpoint holds: no row is lost or read twice.
 */
import type {
  CatalogTable,
  Collector,
  PluginSpec,
  Row,
  SourceFactory,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '@tideway/api';

export interface CounterSplit {
  readonly splitId: string;
  /** The next row number this split emits. */
  next: number;
}

export const SPEC: PluginSpec = {
  options: [
    { name: 'rows', type: 'long', default: 100, min: 0, description: 'Rows each reader emits.' },
    { name: 'table', type: 'string', default: '${packageFolderName(plugin)}', description: 'The name of the table the rows belong to.' },
  ],
};

export function table(name: string): CatalogTable {
  return {
    tableId: name,
    path: { table: name },
    columns: [
      { name: 'id', type: { kind: 'bigint' }, nullable: false },
      { name: 'label', type: { kind: 'string' }, nullable: false },
    ],
    primaryKey: { name: 'pk', columns: ['id'] },
  };
}

/** Gives each reader its own split once (the assignment is checkpointed: a restore does not repeat it). */
export class CounterEnumerator implements SplitEnumerator<CounterSplit, { assigned: string[] }> {
  private readonly assigned: Set<string>;

  constructor(
    private readonly ctx: SplitEnumeratorContext<CounterSplit>,
    restored?: { assigned: string[] },
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
  }

  open(): void {}
  run(): void {}

  registerReader(subtask: number): void {
    const splitId = \`part-\${subtask}\`;
    if (!this.assigned.has(splitId)) {
      this.ctx.assignSplits(subtask, [{ splitId, next: 0 }]);
      this.assigned.add(splitId);
    }
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  /** A reader failed before a checkpoint held its split: give it out again. */
  addSplitsBack(splits: CounterSplit[]): void {
    for (const s of splits) this.assigned.delete(s.splitId);
  }

  snapshotState(): { assigned: string[] } {
    return { assigned: [...this.assigned] };
  }

  close(): void {}
}

export class CounterReader implements SourceReader<CounterSplit> {
  private readonly splits: CounterSplit[] = [];
  private noMoreSplits = false;

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly rows: number,
    private readonly tableId: string,
  ) {}

  open(): void {}

  /** Emits up to 1024 rows of the first split; signals the end once every split is done. */
  pollNext(output: Collector): void {
    const split = this.splits[0];
    if (!split) {
      if (this.noMoreSplits) this.ctx.signalNoMoreElement();
      return;
    }
    const n = Math.min(1024, this.rows - split.next);
    const batch: Row[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.ctx.subtaskIndex * this.rows + split.next + i;
      batch.push({ kind: '+I', tableId: this.tableId, fields: [BigInt(id), \`row \${id}\`] });
    }
    if (batch.length > 0) output.collectBatch(batch);
    split.next += n;
    if (split.next >= this.rows) this.splits.shift();
  }

  addSplits(splits: CounterSplit[]): void {
    this.splits.push(...splits.map((s) => ({ ...s })));
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  /** The splits not yet done, with their progress: what a restore resumes from. */
  snapshotState(): CounterSplit[] {
    return this.splits.map((s) => ({ ...s }));
  }

  close(): void {}
}

export const ${factory}: SourceFactory = {
  type: 'source',
  name: '${plugin}',
  description: 'Emits \`rows\` numbered rows per reader (id bigint, label string).',
  spec: SPEC,
  create: (ctx) => {
    const name = ctx.options.get<string>('table');
    return {
      boundedness: () => 'BOUNDED',
      catalogTables: () => [table(name)],
      createEnumerator: (ectx, restored) => new CounterEnumerator(ectx, restored as { assigned: string[] } | undefined),
      createReader: (rctx) => new CounterReader(rctx, ctx.options.get<number>('rows'), name),
    };
  },
};
`;
}

function sourceTest(plugin: string, factory: string): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Row } from '@tideway/api';
import { CounterReader, ${factory} } from './index.js';
import { options } from './options.js';

const readerContext = (subtaskIndex: number) => {
  const ctx = { subtaskIndex, parallelism: 2, boundedness: 'BOUNDED' as const, ended: false, signalNoMoreElement: () => (ctx.ended = true), sendSplitRequest: () => {} };
  return ctx;
};

function drain(reader: CounterReader, ctx: { ended: boolean }, limit = Infinity): Row[] {
  const rows: Row[] = [];
  const output = { collect: (r: Row) => rows.push(r), collectBatch: (rs: readonly Row[]) => rows.push(...rs) };
  while (!ctx.ended && rows.length < limit) reader.pollNext(output);
  return rows;
}

test('${plugin} gives each reader its split once, and each reader its rows', () => {
  const source = ${factory}.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 2, inputTables: [], options: options({ rows: 2500, table: 't' }) });
  assert.deepEqual(source.catalogTables().map((t) => t.tableId), ['t']);
  const assigned: Array<[number, string[]]> = [];
  const enumerator = source.createEnumerator({ parallelism: 2, registeredReaders: () => [0, 1], assignSplits: (s, splits) => assigned.push([s, splits.map((x) => x.splitId)]), signalNoMoreSplits: () => {} });
  enumerator.registerReader(0);
  enumerator.registerReader(1);
  enumerator.registerReader(1); // again, as after a reader's restart: no second split
  assert.deepEqual(assigned, [[0, ['part-0']], [1, ['part-1']]]);

  const ctx = readerContext(1);
  const reader = source.createReader(ctx) as CounterReader;
  reader.addSplits([{ splitId: 'part-1', next: 0 }]);
  reader.handleNoMoreSplits();
  const rows = drain(reader, ctx);
  assert.equal(rows.length, 2500);
  assert.deepEqual(rows[0].fields, [2500n, 'row 2500']);
});

test('${plugin} resumes from a checkpoint without losing or repeating a row', () => {
  const source = ${factory}.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, inputTables: [], options: options({ rows: 3000, table: 't' }) });
  const first = readerContext(0);
  const reader = source.createReader(first) as CounterReader;
  reader.addSplits([{ splitId: 'part-0', next: 0 }]);
  const before = drain(reader, first, 1024);
  const state = reader.snapshotState();
  const again = readerContext(0);
  const restored = source.createReader(again) as CounterReader;
  restored.addSplits(state);
  restored.handleNoMoreSplits();
  const after = drain(restored, again);
  const ids = [...before, ...after].map((r) => r.fields[0]);
  assert.equal(ids.length, 3000);
  assert.equal(new Set(ids).size, 3000);
});
`;
}

function sinkCode(plugin: string, factory: string): string {
  return `/**
 * ${plugin}: writes rows as JSON lines into files of a folder, exactly once. A writer appends a
 * checkpoint's rows to a hidden pending file; at the checkpoint it hands the committer the
 * pending file's name and the final one; the committer renames one to the other, which is
 * idempotent (a restore that commits again finds the final file there and the pending one gone),
 * and an abort deletes the pending file. A row is visible only once its checkpoint completed.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogTable, PluginSpec, Row, SinkCommitter, SinkFactory, SinkWriter } from '@tideway/api';

/** A checkpoint's file: where the writer wrote it and where the commit puts it. */
export interface PendingFile {
  readonly pending: string;
  readonly final: string;
}

export const SPEC: PluginSpec = {
  options: [{ name: 'path', type: 'string', required: true, description: 'The folder the files are written to (created when missing).' }],
};

/** A value as JSON: 64-bit integers as text (exact), bytes as base64, maps as objects. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonValue(x)]));
  if (Array.isArray(v)) return v.map(jsonValue);
  return v;
}

export class JsonLinesWriter implements SinkWriter<PendingFile> {
  private lines: string[] = [];

  constructor(
    private readonly folder: string,
    private readonly prefix: string,
    private readonly tables: ReadonlyMap<string, CatalogTable>,
  ) {
    mkdirSync(join(folder, '.pending'), { recursive: true });
  }

  private pendingFile(checkpointId: number): PendingFile {
    const name = \`\${this.prefix}-\${checkpointId}.jsonl\`;
    return { pending: join(this.folder, '.pending', name), final: join(this.folder, name) };
  }

  write(rows: readonly Row[]): void {
    for (const row of rows) {
      const table = this.tables.get(row.tableId);
      if (!table) throw new Error(\`${plugin}: a row of table \${row.tableId}, which is not an input of this sink\`);
      const record: Record<string, unknown> = { _table: row.tableId, _kind: row.kind };
      table.columns.forEach((c, i) => (record[c.name] = jsonValue(row.fields[i])));
      this.lines.push(JSON.stringify(record));
    }
  }

  /** Writes the checkpoint's rows to its pending file and hands that to the committer. */
  prepareCommit(checkpointId: number): PendingFile | undefined {
    if (this.lines.length === 0) return undefined;
    const file = this.pendingFile(checkpointId);
    appendFileSync(file.pending, \`\${this.lines.join('\\n')}\\n\`);
    this.lines = [];
    return file;
  }

  abortPrepare(): void {
    this.lines = [];
  }

  close(): void {}
}

export class JsonLinesCommitter implements SinkCommitter<PendingFile> {
  /** Idempotent: a file already moved is done. */
  commit(files: PendingFile[]): PendingFile[] {
    for (const f of files) if (existsSync(f.pending)) renameSync(f.pending, f.final);
    return [];
  }

  abort(files: PendingFile[]): void {
    for (const f of files) rmSync(f.pending, { force: true });
  }
}

export const ${factory}: SinkFactory = {
  type: 'sink',
  name: '${plugin}',
  description: 'Writes rows as JSON lines into files of a folder, exactly once (a file per writer and checkpoint).',
  spec: SPEC,
  create: (ctx) => {
    const folder = ctx.options.get<string>('path');
    const tables = new Map(ctx.inputTables.map((t) => [t.tableId, t]));
    return {
      createWriter: (w) => new JsonLinesWriter(folder, \`\${ctx.jobId}-\${w.subtaskIndex}\`, tables),
      createCommitter: () => new JsonLinesCommitter(),
    };
  },
};
`;
}

function sinkTest(plugin: string, factory: string): string {
  return `import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CatalogTable } from '@tideway/api';
import { ${factory} } from './index.js';
import { options } from './options.js';

const table: CatalogTable = {
  tableId: 't',
  path: { table: 't' },
  columns: [
    { name: 'id', type: { kind: 'bigint' }, nullable: false },
    { name: 'name', type: { kind: 'string' }, nullable: true },
  ],
};

test('${plugin} shows a checkpoint\\'s rows once committed, once however often the commit repeats', async () => {
  const dir = mkdtempSync(join(tmpdir(), '${packageFolderName(plugin)}-'));
  try {
    const sink = ${factory}.create({ jobId: 'j1', jobMode: 'BATCH', parallelism: 1, inputTables: [table], options: options({}, { path: dir }) });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write([
      { kind: '+I', tableId: 't', fields: [1n, 'a'] },
      { kind: '+I', tableId: 't', fields: [2n, null] },
    ]);
    const prepared = await writer.prepareCommit!(1);
    assert.ok(prepared);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.jsonl')), [], 'nothing visible before the commit');
    const committer = sink.createCommitter!();
    assert.deepEqual(await committer.commit([prepared]), []);
    assert.deepEqual(await committer.commit([prepared]), [], 'a commit repeated by a restore');
    const lines = readFileSync(join(dir, 'j1-0-1.jsonl'), 'utf8').trim().split('\\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines, [
      { _table: 't', _kind: '+I', id: '1', name: 'a' },
      { _table: 't', _kind: '+I', id: '2', name: null },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('${plugin} drops an aborted checkpoint\\'s rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), '${packageFolderName(plugin)}-'));
  try {
    const sink = ${factory}.create({ jobId: 'j2', jobMode: 'BATCH', parallelism: 1, inputTables: [table], options: options({}, { path: dir }) });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write([{ kind: '+I', tableId: 't', fields: [1n, 'a'] }]);
    const prepared = await writer.prepareCommit!(1);
    await sink.createCommitter!().abort([prepared!]);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.jsonl')), []);
    assert.deepEqual(readdirSync(join(dir, '.pending')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
`;
}

function transformCode(plugin: string, factory: string): string {
  return `/**
 * ${plugin}: upper-cases the string columns named in \`fields\`; other columns pass unchanged.
 * A transform sees every batch of rows once, in order, and keeps no state across checkpoints.
 */
import type { PluginSpec, Row, TransformFactory } from '@tideway/api';

export const SPEC: PluginSpec = {
  options: [{ name: 'fields', type: 'list', elementType: 'string', required: true, description: 'The string columns to upper-case.' }],
};

export const ${factory}: TransformFactory = {
  type: 'transform',
  name: '${plugin}',
  description: 'Upper-cases the string columns named in \`fields\`.',
  spec: SPEC,
  create: (ctx) => {
    const fields = ctx.options.get<string[]>('fields');
    // Column positions by table, checked now: a job naming a column that does not exist is refused before it runs.
    const positions = new Map(
      ctx.inputTables.map((t) => {
        const at = fields.map((f) => {
          const i = t.columns.findIndex((c) => c.name === f);
          if (i < 0) throw new Error(\`${plugin}: option 'fields': table \${t.tableId} has no column \${f}\`);
          if (t.columns[i].type.kind !== 'string') throw new Error(\`${plugin}: option 'fields': column \${f} of table \${t.tableId} is not a string\`);
          return i;
        });
        return [t.tableId, at] as const;
      }),
    );
    return {
      outputTables: () => [...ctx.inputTables],
      transform: (rows: readonly Row[]): Row[] =>
        rows.map((row) => {
          const at = positions.get(row.tableId) ?? [];
          const out = [...row.fields];
          for (const i of at) if (typeof out[i] === 'string') out[i] = (out[i] as string).toUpperCase();
          return { ...row, fields: out };
        }),
    };
  },
};
`;
}

function transformTest(plugin: string, factory: string): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTable } from '@tideway/api';
import { ${factory} } from './index.js';
import { options } from './options.js';

const table: CatalogTable = {
  tableId: 't',
  path: { table: 't' },
  columns: [
    { name: 'id', type: { kind: 'int' }, nullable: false },
    { name: 'name', type: { kind: 'string' }, nullable: true },
  ],
};

test('${plugin} upper-cases the named columns and nothing else', () => {
  const t = ${factory}.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, inputTables: [table], options: options({}, { fields: ['name'] }) });
  assert.deepEqual(t.outputTables(), [table]);
  const out = t.transform([
    { kind: '+I', tableId: 't', fields: [1, 'ada'] },
    { kind: '-D', tableId: 't', fields: [2, null] },
  ]);
  assert.deepEqual(out, [
    { kind: '+I', tableId: 't', fields: [1, 'ADA'] },
    { kind: '-D', tableId: 't', fields: [2, null] },
  ]);
});

test('${plugin} refuses a column the table does not have, naming it', () => {
  assert.throws(
    () => ${factory}.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, inputTables: [table], options: options({}, { fields: ['nope'] }) }),
    /option 'fields': table t has no column nope/,
  );
});
`;
}

/** The files of a new plugin package, by path inside its folder. */
export function pluginPackageFiles(name: string, kind: PluginKind): Record<string, string> {
  const plugin = pluginName(name);
  const folder = packageFolderName(plugin);
  const factory = factoryName(plugin, kind);
  const code = { source: sourceCode, sink: sinkCode, transform: transformCode }[kind](plugin, factory);
  const tests = { source: sourceTest, sink: sinkTest, transform: transformTest }[kind](plugin, factory);
  const manifest = {
    name: `tideway-plugin-${folder}`,
    version: '0.1.0',
    description: `A Tideway ${kind} plugin: ${plugin}`,
    private: true,
    type: 'module',
    exports: './dist/index.js',
    files: ['dist'],
    scripts: { build: 'tsc -p .', test: 'tsc -p . && node --test dist/' },
    peerDependencies: { '@tideway/api': API_RANGE },
    devDependencies: { '@types/node': '^20.19.0', typescript: '5.9.3' },
    tideway: { api: API_RANGE, plugins: [{ name: plugin, kind, factory }] },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      declaration: true,
      rootDir: 'src',
      outDir: 'dist',
      types: ['node'],
    },
    include: ['src'],
  };
  const fence = '```';
  const readme = [
    `# ${plugin}`,
    '',
    `A Tideway ${kind} plugin, made by \`tideway plugin new\` (docs/plugins.md in Tideway's repository).`,
    '',
    `${fence}sh`,
    `npm install --save-peer /path/to/tideway-api-${PLUGIN_API_VERSION}.tgz   # pnpm pack in Tideway's libs/api makes it`,
    'npm install',
    'npm test                       # builds, then runs the tests under node --test',
    `cp -r package.json dist <tideway>/plugins/${folder}/    # a folder of tideway.plugins.dirs`,
    fence,
    '',
  ].join('\n');
  return {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    'README.md': readme,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/index.ts': code,
    'src/options.ts': OPTIONS_HELPER,
    'src/index.test.ts': tests,
  };
}
