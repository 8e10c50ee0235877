/** Helpers for testing CDC sources: collect rows, apply a change log strictly, poll until done. */
import { inspect, isDeepStrictEqual } from 'node:util';
import type { Collector, Row, SchemaChangeEvent, SourceReader, SourceReaderContext } from '@tideway/api';
import type { CdcSplit } from './cdc-splits.js';

/** Collects emitted rows and schema changes (`rowsBefore`: how many rows came before each change). */
export class ListCollector implements Collector {
  readonly rows: Row[] = [];
  readonly schemaChanges: Array<{ event: SchemaChangeEvent; rowsBefore: number }> = [];
  collectSchemaChange(event: SchemaChangeEvent): void {
    this.schemaChanges.push({ event, rowsBefore: this.rows.length });
  }
  collect(row: Row): void {
    this.rows.push(row);
  }
  collectBatch(rows: readonly Row[]): void {
    this.rows.push(...rows);
  }
}

/**
 * Applies a change log to a keyed table strictly: an insert of a present key, or an update or
 * delete of an absent one, means a change was repeated or lost.
 */
export function applyStrictly(state: Map<string, unknown[]>, rows: readonly Row[], keyIndex = 0): void {
  for (const r of rows) {
    const key = `${r.tableId}:${String(r.fields[keyIndex])}`;
    switch (r.kind) {
      case '+I':
        if (state.has(key)) throw new Error(`insert of present key ${key}`);
        state.set(key, r.fields);
        break;
      case '-U':
      case '-D':
        if (!state.has(key)) throw new Error(`${r.kind} of absent key ${key}`);
        state.delete(key);
        break;
      case '+U':
        if (state.has(key)) throw new Error(`+U of present key ${key} (no -U before it)`);
        state.set(key, r.fields);
        break;
    }
  }
}

/** Polls until `done` holds or the time is up. */
export async function pollUntil(reader: SourceReader<CdcSplit>, out: ListCollector, done: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out; ${out.rows.length} rows so far`);
    await reader.pollNext(out);
  }
}

/**
 * Polls like pollUntil, taking a checkpoint (snapshotState, then notifyCheckpointComplete) every
 * `every` polls, as the engine would: a reader holds a schema change until one completes.
 */
export async function pollWithCheckpoints(
  reader: SourceReader<CdcSplit>,
  out: ListCollector,
  done: () => boolean,
  ms = 10_000,
  every = 3,
): Promise<void> {
  const end = Date.now() + ms;
  for (let n = 1; !done(); n++) {
    if (Date.now() > end) throw new Error(`timed out; ${out.rows.length} rows and ${out.schemaChanges.length} schema changes so far`);
    await reader.pollNext(out);
    if (n % every === 0) {
      reader.snapshotState(n);
      await reader.notifyCheckpointComplete?.(n);
    }
  }
}

/** Keeps polling for a while, so that anything emitted twice would show. */
export async function settle(reader: SourceReader<CdcSplit>, out: ListCollector, ms = 400): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) await reader.pollNext(out);
}

/**
 * Reads every snapshot split of `splits` on a fresh reader, runs `change` against the source,
 * polls until `done`, settles and closes: the rows read, as `table:kind key`.
 */
export async function snapshotThenStream(
  reader: SourceReader<CdcSplit>,
  splits: CdcSplit[],
  change: () => Promise<void>,
  done: (out: ListCollector) => boolean,
): Promise<string[]> {
  reader.addSplits(splits);
  const out = new ListCollector();
  for (let i = 0; i < splits.length - 1; i++) await reader.pollNext(out);
  await change();
  await pollUntil(reader, out, () => done(out));
  await settle(reader, out);
  await reader.close();
  return out.rows.map((r) => `${r.tableId}:${r.kind}${String(r.fields[0])}`);
}

/** Fails with `what` unless `got` deeply equals `want`. */
function same(got: unknown, want: unknown, what: string): void {
  if (!isDeepStrictEqual(got, want)) throw new Error(`${what}: got ${inspect(got, { depth: 4 })}, want ${inspect(want, { depth: 4 })}`);
}

/** What chunksThenChangesAcrossRestore drives: a CDC source (snapshot.split.size 10), and SQL on its database. */
export interface RestoreScenario {
  readonly source: {
    prepare(): Promise<void>;
    planSplits(): Promise<CdcSplit[]>;
    createReader(ctx: SourceReaderContext): SourceReader<CdcSplit>;
  };
  run(sql: string): Promise<unknown>;
  /** Runs the statements as one transaction. */
  transaction(statements: readonly string[]): Promise<unknown>;
  /** The captured tables as a fresh snapshot reads them now, applied strictly. */
  tableState(): Promise<Map<string, unknown[]>>;
}

/**
 * The scenario every CDC source's tests run on its `orders` (bigint key `id`, `name`, `amount`;
 * keys 1 to 45 in several chunks) and `notes` (text key `code`, `body`) tables: changes while
 * the snapshot is half read (one hitting a chunk already read must stream, one hitting a chunk
 * still to come must not), a transaction of several changes, then a checkpoint and a restore on
 * a new reader, which emits the changes after the checkpoint once. At the end the change log,
 * applied strictly, equals the tables. Throws on the first difference.
 */
export async function chunksThenChangesAcrossRestore(s: RestoreScenario): Promise<void> {
  await s.source.prepare();
  const splits = await s.source.planSplits();
  const chunks = splits.filter((c) => c.kind === 'snapshot').length;
  if (chunks <= 3) throw new Error(`the snapshot was planned in ${chunks} chunks; the scenario needs more than 3`);
  const newReader = () =>
    s.source.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED',
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    });
  let reader = newReader();
  reader.addSplits(splits);
  const out = new ListCollector();
  await reader.pollNext(out);
  await reader.pollNext(out);
  await s.run(`UPDATE orders SET name = 'early' WHERE id = 3`); // chunk read: must stream
  await s.run(`UPDATE orders SET name = 'late' WHERE id = 40`); // chunk to come: in snapshot, not streamed
  await s.run(`DELETE FROM orders WHERE id = 41`);
  await s.run(`INSERT INTO orders (id, name) VALUES (100, 'new')`);
  await s.run(`INSERT INTO notes VALUES ('c', 'z')`);
  const state = new Map<string, unknown[]>();
  // 'c' may be in the notes snapshot (read after the insert): wait for the streamed update of 3.
  await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 3n && r.kind === '+U'));
  await settle(reader, out);
  applyStrictly(state, out.rows);
  same(
    out.rows.filter((r) => r.fields[0] === 40n && r.kind !== '+I'),
    [],
    'changes of key 40, whose chunk was read after them',
  );
  same(
    out.rows.filter((r) => r.fields[0] === 3n).map((r) => r.kind),
    ['+I', '-U', '+U'],
    'the rows of key 3, whose chunk was read before its update',
  );

  await s.transaction([
    `UPDATE orders SET amount = 99.99 WHERE id = 5`,
    `DELETE FROM orders WHERE id = 6`,
    `INSERT INTO orders (id, name) VALUES (101, 'x')`,
  ]);
  let seen = out.rows.length;
  await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 101n));
  await settle(reader, out);
  applyStrictly(state, out.rows.slice(seen));
  const saved = reader.snapshotState(1);
  await reader.notifyCheckpointComplete?.(1);
  await s.run(`UPDATE orders SET name = 'after-checkpoint' WHERE id = 7`);
  await reader.close();

  reader = newReader();
  reader.addSplits(saved);
  seen = out.rows.length;
  await s.run(`INSERT INTO orders (id, name) VALUES (102, 'y')`);
  await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 102n));
  await settle(reader, out);
  applyStrictly(state, out.rows.slice(seen));
  same(
    out.rows.slice(seen).map((r) => `${r.kind}${String(r.fields[0])}`),
    ['-U7', '+U7', '+I102'],
    'the changes after the restored checkpoint',
  );
  await reader.close();
  same(state, await s.tableState(), 'the change log applied, against the tables');
}
