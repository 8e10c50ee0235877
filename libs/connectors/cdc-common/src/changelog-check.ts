/** Helpers for testing CDC sources: collect rows, apply a change log strictly, poll until done. */
import type { Collector, Row, SchemaChangeEvent, SourceReader } from '@tideway/api';
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
