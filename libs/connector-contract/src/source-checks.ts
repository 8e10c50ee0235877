/**
 * The source contract: a bounded source read by SourceJob's small engine (readToEnd) must give
 * the rows its target holds exactly once, through a restore from every checkpoint and after a
 * failure in each method; a cancel closes it cleanly; bad options are refused by name.
 */
import type { Row, SourceFactory } from '@tideway/api';
import { valueText } from './sink-checks.js';
import { PlantedSourceFailure, readToEnd, validatedSourceOptions, type SourceMethod } from './source-job.js';

export const SOURCE_CHECKS = ['exactly-once-restore', 'failure-in-every-method', 'cancellation', 'multi-table', 'bad-options'] as const;
export type SourceCheck = (typeof SOURCE_CHECKS)[number];

export const SOURCE_CHECK_TITLES: Record<SourceCheck, string> = {
  'exactly-once-restore': 'every row exactly once through a restore from each checkpoint',
  'failure-in-every-method': 'a failure in pollNext, snapshotState or the enumerator snapshot, then a restore: every row once',
  cancellation: 'a cancel mid-read closes readers and enumerator without error',
  'multi-table': 'rows of two tables, each with its own table id',
  'bad-options': 'a bad option is refused in one sentence naming it',
};

/** What a source target holds: its rows as `[table name, ...values]`. */
export type ExpectedRow = readonly unknown[];

export interface SourceTarget {
  readonly options: Record<string, unknown>;
  /** Every row the source must emit, as `[table name, ...column values]` (compared as text). */
  readonly expected: readonly ExpectedRow[];
}

export interface SourceSubject {
  readonly name: string;
  readonly factory: SourceFactory;
  /** A fresh target holding rows of one table (or of two for `multi-table`), unique by `id`. */
  target(id: string, tables: 1 | 2): Promise<SourceTarget> | SourceTarget;
  readonly notApplicable?: Partial<Record<SourceCheck, string>>;
  readonly badOptions?: readonly { options: Record<string, unknown>; option: string }[];
  /** Reader parallelism (default 2). */
  readonly parallelism?: number;
}

let counter = 0;
const idOf = (check: string) => `cs_${check.replace(/[^a-z]/g, '').slice(0, 8)}_${process.pid}_${counter++}`;

const text = (v: unknown): string => valueText(v) ?? 'null';

/** Emitted rows as `table|v1|v2` lines, sorted; the table is the last part of the row's table id. */
function emittedLines(rows: readonly Row[]): string[] {
  return rows.map((r) => [r.tableId.split('.').pop(), ...r.fields].map(text).join('|')).sort();
}

function expectedLines(rows: readonly ExpectedRow[]): string[] {
  return rows.map((r) => r.map(text).join('|')).sort();
}

function compare(subject: SourceSubject, got: string[], want: string[], where: string): void {
  if (JSON.stringify(got) === JSON.stringify(want)) return;
  const w = new Set(want);
  const seen = new Map<string, number>();
  for (const g of got) seen.set(g, (seen.get(g) ?? 0) + 1);
  const missing = want.filter((x) => !seen.has(x));
  const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  const extra = got.filter((x) => !w.has(x));
  throw new Error(
    `${subject.name}, ${where}: expected ${want.length} rows exactly once, got ${got.length}: missing ${missing.slice(0, 3).join(', ') || 'none'}; more than once ${twice.slice(0, 3).join(', ') || 'none'}; not in the target ${extra.slice(0, 3).join(', ') || 'none'}`,
  );
}

async function checkRestore(subject: SourceSubject): Promise<void> {
  const t = await subject.target(idOf('restore'), 1);
  const parallelism = subject.parallelism ?? 2;
  const want = expectedLines(t.expected);
  // A run without failures: every row once, and how many checkpoints it takes (one after every round of polls).
  const { rows: clean, checkpoints: rounds } = await cleanRun(subject, t.options, parallelism);
  compare(subject, emittedLines(clean), want, 'without failures');
  const ks = new Set([0, 1, Math.floor(rounds / 2), rounds - 1].filter((k) => k >= 0 && k < rounds));
  for (const k of ks) {
    const rows = await readToEnd(subject.factory, t.options, { parallelism, failAfterCheckpoint: k });
    compare(subject, emittedLines(rows), want, `a failure after checkpoint ${k}, then a restore from it`);
  }
}

async function cleanRun(
  subject: SourceSubject,
  options: Record<string, unknown>,
  parallelism: number,
): Promise<{ rows: Row[]; checkpoints: number }> {
  let n = 0;
  const counting: SourceFactory = {
    ...subject.factory,
    create: (ctx) => {
      const s = subject.factory.create(ctx);
      const createEnumerator = s.createEnumerator.bind(s);
      s.createEnumerator = (c, restored) => {
        const e = createEnumerator(c, restored);
        const snap = e.snapshotState.bind(e);
        e.snapshotState = (id) => {
          n++;
          return snap(id);
        };
        return e;
      };
      return s;
    },
  };
  const rows = await readToEnd(counting, options, { parallelism });
  return { rows, checkpoints: n };
}

async function checkFailures(subject: SourceSubject): Promise<void> {
  const t = await subject.target(idOf('failure'), 1);
  const parallelism = subject.parallelism ?? 2;
  const want = expectedLines(t.expected);
  for (const method of ['pollNext', 'snapshotState', 'enumeratorSnapshot'] as SourceMethod[]) {
    for (const call of [1, 3]) {
      const rows = await readToEnd(subject.factory, t.options, { parallelism, fail: { method, call } });
      compare(subject, emittedLines(rows), want, `a failure at call ${call} of ${method}, then a restore`);
    }
  }
}

async function checkCancellation(subject: SourceSubject): Promise<void> {
  const t = await subject.target(idOf('cancel'), 1);
  // A failure planted at the first poll stands for the cancel: readers and enumerator close mid-read.
  const source = subject.factory.create({
    jobId: 'contract-cancel',
    jobMode: 'BATCH',
    parallelism: 1,
    options: validatedSourceOptions(subject.factory, t.options),
    inputTables: [],
  });
  await source.prepare?.();
  const enumerator = source.createEnumerator({
    parallelism: 1,
    registeredReaders: () => [0],
    assignSplits: () => undefined,
    signalNoMoreSplits: () => undefined,
  });
  const reader = source.createReader({
    subtaskIndex: 0,
    parallelism: 1,
    boundedness: 'BOUNDED',
    signalNoMoreElement: () => undefined,
    sendSplitRequest: () => undefined,
  });
  await enumerator.open();
  await reader.open();
  await enumerator.run();
  const closing = Promise.all([Promise.resolve(reader.close()), Promise.resolve(enumerator.close())]);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${subject.name}: close did not return within 10 s of a cancel`)), 10_000).unref(),
  );
  await Promise.race([closing, timeout]);
}

async function checkMultiTable(subject: SourceSubject): Promise<void> {
  const t = await subject.target(idOf('multi'), 2);
  const rows = await readToEnd(subject.factory, t.options, { parallelism: subject.parallelism ?? 2, failAfterCheckpoint: 1 });
  const got = emittedLines(rows);
  compare(subject, got, expectedLines(t.expected), 'two tables, a failure after checkpoint 1, a restore');
  if (new Set(rows.map((r) => r.tableId)).size < 2) throw new Error(`${subject.name}: the rows of two tables came with one table id`);
}

async function checkBadOptions(subject: SourceSubject): Promise<void> {
  const t = await subject.target(idOf('options'), 1);
  for (const c of [{ options: { no_such_option_x: 1 }, option: 'no_such_option_x' }, ...(subject.badOptions ?? [])]) {
    const options = Object.fromEntries(Object.entries({ ...t.options, ...c.options }).filter(([, v]) => v !== undefined));
    let message: string | undefined;
    try {
      await readToEnd(subject.factory, options, { parallelism: 1, maxRounds: 5 });
    } catch (err) {
      if (err instanceof PlantedSourceFailure) throw err;
      message = err instanceof Error ? err.message : String(err);
    }
    const shown = JSON.stringify(c.options);
    if (message === undefined) throw new Error(`${subject.name} accepted the bad option(s) ${shown}`);
    if (!message.includes(c.option)) throw new Error(`${subject.name} refused ${shown} without naming '${c.option}': ${message}`);
  }
}

export const SOURCE_CHECK_FUNCTIONS: Record<SourceCheck, (subject: SourceSubject) => Promise<void>> = {
  'exactly-once-restore': checkRestore,
  'failure-in-every-method': checkFailures,
  cancellation: checkCancellation,
  'multi-table': checkMultiTable,
  'bad-options': checkBadOptions,
};
