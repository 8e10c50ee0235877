/**
 * The sink contract's checks as plain functions: each makes fresh targets through the subject,
 * drives the sink with SinkJob and throws an Error saying what broke the promise (vitest's `it`
 * blocks of sinkContract call them; a test can call them directly, e.g. to show that a broken
 * sink fails).
 */
import { applyColumnChanges, Types, type CatalogTable, type Row, type SchemaChangeEvent } from '@tideway/api';
import { FAILING_METHODS, FailurePlan, SinkJob, runToEnd, validatedOptions, type Step } from './sink-job.js';
import { ITEMS, PARTS, itemBatches, partRow, type ReadRow, type SinkCheck, type SinkSubject, type SinkTarget } from './subject.js';

let scenarioCounter = 0;

/** A name no other scenario of this process uses (targets are tables, folders, topics). */
function scenarioId(check: string): string {
  return `ct_${check.replace(/[^a-z]/g, '').slice(0, 8)}_${process.pid}_${Date.now().toString(36)}_${scenarioCounter++}`;
}

/** Text as the contract compares values: null stays null, everything else its String(). */
export function valueText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
    case 'boolean':
      return v.toString();
    default:
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  }
}

/** Rows as comparable text lines, sorted by id: `id|name`. */
function lines(table: CatalogTable, rows: readonly ReadRow[]): string[] {
  const names = table.columns.map((c) => c.name);
  return rows
    .map((r) => {
      const lower = Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v]));
      return names.map((n) => valueText(lower[n.toLowerCase()])).join('|');
    })
    .sort((a, b) => Number(a.split('|')[0]) - Number(b.split('|')[0]) || a.localeCompare(b));
}

function rowLines(table: CatalogTable, rows: readonly Row[]): string[] {
  return lines(
    table,
    rows
      .filter((r) => r.tableId === table.tableId)
      .map((r) => Object.fromEntries(table.columns.map((c, i) => [c.name, r.fields[i] ?? null]))),
  );
}

function describeDifference(got: string[], want: string[]): string {
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const g = count(got);
  const w = count(want);
  const missing = [...w].filter(([k, n]) => (g.get(k) ?? 0) < n).map(([k]) => k);
  const twice = [...g].filter(([, n]) => n > 1).map(([k, n]) => `${k} (x${n})`);
  const extra = [...g].filter(([k]) => !w.has(k)).map(([k]) => k);
  const parts: string[] = [];
  if (missing.length > 0)
    parts.push(`missing ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  if (twice.length > 0)
    parts.push(`more than once ${twice.slice(0, 5).join(', ')}${twice.length > 5 ? ` and ${twice.length - 5} more` : ''}`);
  if (extra.length > 0) parts.push(`not written ${extra.slice(0, 5).join(', ')}`);
  return parts.join('; ') || 'in another order';
}

/**
 * Checks what the target holds against the rows sent, by the sink's delivery: exactly the rows
 * (exactly-once, idempotent), or every row at least once and nothing else (at-least-once).
 * `visibleOnly` says the rows must be exactly these even for at-least-once (nothing replayed).
 */
async function expectTarget(
  subject: SinkSubject,
  target: SinkTarget,
  table: CatalogTable,
  sent: readonly Row[],
  where: string,
  exact = subject.delivery !== 'at-least-once',
): Promise<void> {
  const got = lines(table, await target.readBack(table));
  const want = rowLines(table, sent);
  if (exact) {
    if (JSON.stringify(got) !== JSON.stringify(want))
      throw new Error(
        `${subject.name}, ${where}: ${table.tableId} should hold ${want.length} rows exactly once, holds ${got.length}: ${describeDifference(got, want)}`,
      );
    return;
  }
  const wantSet = new Set(want);
  const gotSet = new Set(got);
  const missing = want.filter((x) => !gotSet.has(x));
  const extra = got.filter((x) => !wantSet.has(x));
  if (missing.length > 0 || extra.length > 0)
    throw new Error(`${subject.name}, ${where}: ${table.tableId} should hold every row at least once: ${describeDifference(got, want)}`);
}

async function withTarget<T>(
  subject: SinkSubject,
  check: string,
  tables: readonly CatalogTable[],
  fn: (t: SinkTarget) => Promise<T>,
): Promise<T> {
  const target = await subject.target(scenarioId(check), tables);
  try {
    return await fn(target);
  } finally {
    await target.drop?.();
  }
}

/** The single-table input of most checks: 3 batches of 4 rows (12 rows, ids 1..12). */
const BATCHES = () => itemBatches(1, 12, 4);
const flat = (steps: readonly Step[]): Row[] => steps.flatMap((s) => (Array.isArray(s) ? (s as Row[]) : []));

/**
 * Exactly once through a restore at every checkpoint: for each checkpoint k (0: none completed),
 * the job runs to k, writes the next batch, and fails, with k's commit done or not yet done;
 * the restore replays from k and runs to the end. After each commit an exactly-once sink
 * shows exactly the rows of the committed checkpoints (nothing before its commit).
 */
export async function checkExactlyOnceRestore(subject: SinkSubject): Promise<void> {
  const batches = BATCHES();
  for (let k = 0; k <= batches.length; k++) {
    for (const committed of k === 0 ? [true] : [true, false]) {
      await withTarget(subject, 'restore', [ITEMS], async (target) => {
        const where = `a failure after checkpoint ${k}${committed ? '' : ' completed but before its commit'}, then a restore`;
        const job = new SinkJob(subject, target.options, [ITEMS]);
        await job.start();
        for (let i = 0; i < k; i++) {
          await job.write(batches[i]);
          await job.checkpoint(i + 1);
          if (i < k - 1 || committed) {
            await job.commit();
            if (subject.delivery === 'exactly-once')
              await expectTarget(subject, target, ITEMS, batches.slice(0, i + 1).flat(), `after the commit of checkpoint ${i + 1}`);
          }
        }
        if (k < batches.length) await job.write(batches[k]);
        await job.fail();
        const from = await job.restore();
        if (subject.delivery === 'exactly-once')
          await expectTarget(subject, target, ITEMS, batches.slice(0, from).flat(), `${where}: after the restore's commit`);
        for (let i = from; i < batches.length; i++) {
          await job.write(batches[i]);
          await job.checkpoint(i + 1);
          await job.commit();
        }
        await job.finish(batches.length);
        await expectTarget(subject, target, ITEMS, batches.flat(), where);
      });
    }
  }
}

/** A commit replayed by the same committer and by a restored one (a new sink instance) changes nothing. */
export async function checkCommitIdempotence(subject: SinkSubject): Promise<void> {
  await withTarget(subject, 'idempotence', [ITEMS], async (target) => {
    const batches = BATCHES();
    const job = new SinkJob(subject, target.options, [ITEMS]);
    await job.start();
    await job.write(batches[0]);
    await job.checkpoint(1);
    const pending = job.completed!.pending;
    if (pending.length === 0)
      throw new Error(`${subject.name}: prepareCommit returned nothing to commit; mark commit-idempotence not applicable`);
    await job.commit();
    await expectTarget(subject, target, ITEMS, batches[0], 'after a commit');
    // The same infos again, through this committer (a retried commit) ...
    await job.recommit(pending);
    await expectTarget(subject, target, ITEMS, batches[0], 'after the same commit again');
    // ... and through a restored process's committer, after more rows were written and committed.
    await job.write(batches[1]);
    await job.checkpoint(2);
    await job.commit();
    await job.fail();
    await job.restore();
    await job.recommit(pending);
    await expectTarget(subject, target, ITEMS, batches.slice(0, 2).flat(), "after a restored committer replayed checkpoint 1's commit");
    await job.finish(2);
    await expectTarget(subject, target, ITEMS, batches.slice(0, 2).flat(), 'at the end');
  });
}

/** Rows prepared and then aborted (twice: abort is idempotent) are never visible; the job goes on. */
export async function checkAbortAfterPrepare(subject: SinkSubject): Promise<void> {
  await withTarget(subject, 'abort', [ITEMS], async (target) => {
    const batches = BATCHES();
    const job = new SinkJob(subject, target.options, [ITEMS]);
    await job.start();
    await job.write(batches[0]);
    await job.checkpoint(1);
    const pending = job.completed!.pending;
    if (pending.length === 0)
      throw new Error(`${subject.name}: prepareCommit returned nothing to abort; mark abort-after-prepare not applicable`);
    await job.abortPrepared();
    await job.abort(pending);
    await expectTarget(subject, target, ITEMS, [], 'after abort of a prepared checkpoint');
    await job.write(batches[1]);
    await job.finish(2);
    await expectTarget(subject, target, ITEMS, batches[1], 'after the next checkpoint committed');
  });
}

/**
 * A failure before and after each call of each method the runtime calls (write, prepareCommit,
 * snapshotState, commit, the aggregated commit, close); each fails the task group, which
 * restores from its last completed checkpoint. The target ends with every row, each once.
 */
export async function checkFailureInEveryMethod(subject: SinkSubject): Promise<void> {
  const steps: Step[] = BATCHES();
  // A run without failures counts the calls of each method.
  const counting = new FailurePlan();
  await withTarget(subject, 'count', [ITEMS], async (target) => {
    await runToEnd(new SinkJob(subject, target.options, [ITEMS], counting), steps);
    await expectTarget(subject, target, ITEMS, flat(steps), 'without failures');
  });
  const methods = FAILING_METHODS.filter((m) => (counting.calls.get(m) ?? 0) > 0);
  for (const method of methods) {
    const calls = subject.failureCalls === 'first-call' ? 1 : counting.calls.get(method)!;
    for (let call = 1; call <= calls; call++) {
      for (const when of ['before', 'after'] as const) {
        await withTarget(subject, 'failure', [ITEMS], async (target) => {
          const plan = new FailurePlan({ method, call, when });
          try {
            await runToEnd(new SinkJob(subject, target.options, [ITEMS], plan), steps);
          } catch (err) {
            throw new Error(`${subject.name}, a failure ${when} call ${call} of ${method}, then a restore: ${(err as Error).message}`, {
              cause: err,
            });
          }
          if (!plan.hasFired) throw new Error(`${subject.name}: call ${call} of ${method} never came (the calls differ between runs)`);
          await expectTarget(subject, target, ITEMS, flat(steps), `a failure ${when} call ${call} of ${method}, then a restore`);
        });
      }
    }
  }
}

/**
 * A cancel (writers abort and close, then Sink.abandon, twice) while a checkpoint is prepared but
 * not committed and more rows are written: only the committed checkpoint's rows remain, and a
 * new job into the same target afterwards finds nothing left over.
 */
export async function checkCancellation(subject: SinkSubject): Promise<void> {
  await withTarget(subject, 'cancel', [ITEMS], async (target) => {
    const batches = BATCHES();
    const job = new SinkJob(subject, target.options, [ITEMS]);
    await job.start();
    await job.write(batches[0]);
    await job.checkpoint(1);
    await job.commit();
    await job.write(batches[1]);
    await job.checkpoint(2);
    await job.write(batches[2]);
    await job.cancel();
    if (subject.delivery === 'exactly-once') await expectTarget(subject, target, ITEMS, batches[0], 'after a cancel');
    else {
      // Rows are visible when written: the committed ones are all there, and nothing else.
      const got = lines(ITEMS, await target.readBack(ITEMS));
      const want = new Set(rowLines(ITEMS, batches.flat()));
      for (const l of rowLines(ITEMS, batches[0]))
        if (!got.includes(l)) throw new Error(`${subject.name}: a cancel lost the committed row ${l}`);
      const extra = got.filter((l) => !want.has(l));
      if (extra.length > 0)
        throw new Error(`${subject.name}: after a cancel the target holds rows never written: ${extra.slice(0, 3).join(', ')}`);
    }
    const again = new SinkJob(subject, target.options, [ITEMS]);
    const more = itemBatches(101, 4, 4);
    await runToEnd(again, more);
    const expected = subject.delivery === 'exactly-once' ? [...batches[0], ...more[0]] : undefined;
    if (expected) await expectTarget(subject, target, ITEMS, expected, 'a new job after the cancelled one');
  });
}

/** Rows of two tables, interleaved in every batch, each reach their own table's target, exactly once through a restore. */
export async function checkMultiTable(subject: SinkSubject): Promise<void> {
  await withTarget(subject, 'multi', [ITEMS, PARTS], async (target) => {
    const steps: Step[] = itemBatches(1, 12, 4).map((b) => b.flatMap((r) => [r, partRow(Number(r.fields[0]) + 1000)]));
    const plan = new FailurePlan({ method: 'write', call: 3, when: 'after' });
    await runToEnd(new SinkJob(subject, target.options, [ITEMS, PARTS], plan), steps);
    const rows = flat(steps);
    await expectTarget(subject, target, ITEMS, rows, 'rows of two tables, a failure, a restore');
    await expectTarget(subject, target, PARTS, rows, 'rows of two tables, a failure, a restore');
  });
}

/**
 * A column added between batches: the rows before keep null in it, the rows after carry it;
 * failures after the change (before and after the checkpoint that follows it) restore, the
 * change comes again (applySchemaChange is idempotent) or is told as the restored schema.
 */
export async function checkSchemaChange(subject: SinkSubject): Promise<void> {
  const added = applyColumnChanges(ITEMS, [{ kind: 'add', column: { name: 'note', type: Types.STRING, nullable: true } }]);
  const change: SchemaChangeEvent = {
    type: 'schema-change',
    tableId: ITEMS.tableId,
    changes: [{ kind: 'add', column: { name: 'note', type: Types.STRING, nullable: true } }],
    table: added,
  };
  const before = itemBatches(1, 8, 4);
  const after: Row[][] = [9, 13].map((first) =>
    Array.from({ length: 4 }, (_, i) => ({
      kind: '+I' as const,
      tableId: ITEMS.tableId,
      fields: [first + i, `item-${first + i}`, `note-${first + i}`],
    })),
  );
  const steps: Step[] = [before[0], before[1], change, ...after];
  const expected: Row[] = [...before.flat().map((r) => ({ ...r, fields: [...r.fields, null] })), ...after.flat()];
  // write calls: 2 before the change; the 3rd is the first batch of the new shape.
  for (const target of [
    undefined,
    { method: 'write' as const, call: 3, when: 'before' as const },
    { method: 'write' as const, call: 4, when: 'after' as const },
  ]) {
    await withTarget(subject, 'schema', [ITEMS], async (t) => {
      const plan = new FailurePlan(target);
      await runToEnd(new SinkJob(subject, t.options, [ITEMS], plan, 1), steps);
      await expectTarget(
        subject,
        t,
        added,
        expected,
        `a column added${target ? `, a failure ${target.when} write ${target.call}, a restore` : ''}`,
      );
    });
  }
}

/** Each bad option, and an unknown one, is refused before anything is written, in one sentence naming it. */
export async function checkBadOptions(subject: SinkSubject): Promise<void> {
  const cases = [{ options: { no_such_option_x: 1 }, option: 'no_such_option_x' }, ...(subject.badOptions ?? [])];
  for (const c of cases) {
    await withTarget(subject, 'options', [ITEMS], async (target) => {
      const options = { ...target.options, ...c.options };
      let message: string | undefined;
      try {
        validatedOptions(subject, options);
        const job = new SinkJob(subject, options, [ITEMS], undefined, 1);
        await job.start();
        await job.fail();
      } catch (err) {
        message = err instanceof Error ? err.message : String(err);
      }
      const shown = JSON.stringify(c.options);
      if (message === undefined) throw new Error(`${subject.name} accepted the bad option(s) ${shown}`);
      if (!message.includes(c.option)) throw new Error(`${subject.name} refused ${shown} without naming '${c.option}': ${message}`);
      if (message.includes('\n    at ')) throw new Error(`${subject.name} refused ${shown} with a stack trace: ${message}`);
      const rows = await target.readBack(ITEMS).catch(() => []);
      if (rows.length > 0) throw new Error(`${subject.name} wrote rows although it refused ${shown}`);
    });
  }
}

export const SINK_CHECK_FUNCTIONS: Record<SinkCheck, (subject: SinkSubject) => Promise<void>> = {
  'exactly-once-restore': checkExactlyOnceRestore,
  'commit-idempotence': checkCommitIdempotence,
  'abort-after-prepare': checkAbortAfterPrepare,
  'failure-in-every-method': checkFailureInEveryMethod,
  cancellation: checkCancellation,
  'multi-table': checkMultiTable,
  'schema-change': checkSchemaChange,
  'bad-options': checkBadOptions,
};
