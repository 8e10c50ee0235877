/**
 * The contract suite on two small sinks written here: a correct two-phase-commit sink into JSON
 * lines files passes every check; the same sink with a planted non-idempotent commit (it
 * appends the staged rows to the data file, so a replayed commit appends them again) fails the
 * checks that replay commits.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { checkCommitIdempotence, checkExactlyOnceRestore, checkFailureInEveryMethod, sinkContract, type SinkSubject } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Staged {
  readonly staged: string;
  readonly final: string;
}

/** Rows of a transaction go to `<path>/.staging/<job>-<subtask>-<checkpoint>`; the commit moves the file to `<path>/<table>/`. */
class FolderWriter implements SinkWriter<Staged, { checkpointId: number }> {
  private rows: string[] = [];
  constructor(
    private readonly sink: FolderSink,
    private readonly subtask: number,
    restored?: { checkpointId: number }[],
  ) {
    // A restore removes this subtask's staged files of checkpoints after the restored one (never completed).
    const after = restored?.[0]?.checkpointId ?? 0;
    for (const f of sink.stagedFiles()) {
      const [job, sub, cp] = f.split('~');
      if (job === sink.ctx.jobId && Number(sub) === subtask && Number(cp) > after) rmSync(join(sink.staging, f));
    }
  }
  write(rows: readonly Row[]): void {
    for (const r of rows) this.rows.push(JSON.stringify({ table: r.tableId, fields: r.fields }));
  }
  prepareCommit(checkpointId: number): Staged | undefined {
    if (this.rows.length === 0) return undefined;
    const name = `${this.sink.ctx.jobId}~${this.subtask}~${checkpointId}`;
    mkdirSync(this.sink.staging, { recursive: true });
    writeFileSync(join(this.sink.staging, name), `${this.rows.join('\n')}\n`);
    this.rows = [];
    return { staged: join(this.sink.staging, name), final: join(this.sink.path, `${name}.jsonl`) };
  }
  snapshotState(checkpointId: number): { checkpointId: number }[] {
    return [{ checkpointId }];
  }
  abortPrepare(): void {
    this.rows = [];
  }
  close(): void {
    this.rows = [];
  }
}

class FolderSink implements Sink<Staged> {
  readonly path: string;
  readonly staging: string;
  constructor(
    readonly ctx: PluginContext,
    private readonly appendOnCommit: boolean,
  ) {
    this.path = ctx.options.get<string>('path');
    if (!isAbsolute(this.path)) throw new Error(`option 'path' must be an absolute folder, got '${this.path}'`);
    this.staging = join(this.path, '.staging');
  }
  stagedFiles(): string[] {
    return existsSync(this.staging) ? readdirSync(this.staging) : [];
  }
  createWriter(ctx: { subtaskIndex: number }, restored?: { checkpointId: number }[]): FolderWriter {
    return new FolderWriter(this, ctx.subtaskIndex, restored);
  }
  createCommitter() {
    return {
      commit: (infos: Staged[]): Staged[] => {
        for (const i of infos) {
          if (this.appendOnCommit) {
            // Planted: appends whatever is staged, without noting that it did; the staged file stays for the writer to clean up.
            if (existsSync(i.staged)) appendFileSync(join(this.path, 'data.jsonl'), readFileSync(i.staged));
          } else if (existsSync(i.staged)) renameSync(i.staged, i.final);
          else if (!existsSync(i.final)) throw new Error(`staged file ${i.staged} is gone and ${i.final} does not exist`);
        }
        return [];
      },
      abort: (infos: Staged[]): void => {
        for (const i of infos) rmSync(i.staged, { force: true });
      },
    };
  }
  abandon(): Promise<void> {
    for (const f of this.stagedFiles()) if (f.startsWith(`${this.ctx.jobId}~`)) rmSync(join(this.staging, f));
    return Promise.resolve();
  }
}

const folderFactory = (name: string, appendOnCommit: boolean): SinkFactory => ({
  type: 'sink',
  name,
  description: 'JSON lines files committed by rename (the contract suite own test).',
  spec: { options: [{ name: 'path', type: 'string', required: true, description: 'Folder.' }] },
  create: (ctx) => new FolderSink(ctx, appendOnCommit),
});

function subject(name: string, appendOnCommit: boolean): SinkSubject {
  return {
    name,
    factory: folderFactory(name, appendOnCommit),
    delivery: 'exactly-once',
    target: (id) => {
      const path = join(root, id);
      mkdirSync(path);
      return {
        options: { path },
        readBack: (table) => {
          const files = readdirSync(path).filter((f) => f.endsWith('.jsonl'));
          const rows = files.flatMap((f) =>
            readFileSync(join(path, f), 'utf8')
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => JSON.parse(l) as { table: string; fields: unknown[] }),
          );
          return Promise.resolve(
            rows
              .filter((r) => r.table === table.tableId)
              .map((r) => Object.fromEntries(table.columns.map((c, i) => [c.name, r.fields[i] ?? null]))),
          );
        },
      };
    },
    notApplicable: { 'schema-change': 'the folder sink has no applySchemaChange: a schema change fails the job' },
    badOptions: [{ options: { path: 'relative/folder' }, option: 'path' }],
  };
}

sinkContract(subject('Folder (correct)', false));

describe('a sink with a planted non-idempotent commit', () => {
  const planted = subject('Folder (appending commit)', true);
  it('fails commit idempotence, naming the rows it holds twice', async () => {
    await expect(checkCommitIdempotence(planted)).rejects.toThrow(
      /Folder \(appending commit\), after the same commit again: contract\.items should hold 4 rows exactly once, holds 8: more than once 1\|item-1 \(x2\)/,
    );
  });
  it('fails exactly-once through a restore (the restore re-commits the checkpoint)', async () => {
    await expect(checkExactlyOnceRestore(planted)).rejects.toThrow(/exactly once.*more than once/);
  });
  it('fails the failure-in-every-method check (a commit whose reply is lost is retried)', async () => {
    await expect(checkFailureInEveryMethod(planted)).rejects.toThrow(/more than once/);
  });
});
