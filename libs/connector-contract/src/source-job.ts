/**
 * A small engine for one bounded source, doing what Tideway's coordinator and task groups do to
 * it: the enumerator on one side, a reader per subtask on the other, splits handed out as
 * readers register and ask; at a checkpoint the enumerator's state and each reader's splits are
 * snapshotted together; after a failure every reader and the enumerator close and a new source
 * instance restores them from the last completed checkpoint.
 */
import type { Row, Source, SourceFactory, SourceReader, SourceSplit, SplitEnumerator } from '@tideway/api';
import { validatePluginOptions } from '@tideway/config/options';

/** The methods of a source a failure can be planted in. */
export type SourceMethod = 'pollNext' | 'snapshotState' | 'enumeratorSnapshot';

export class PlantedSourceFailure extends Error {
  constructor(
    readonly method: SourceMethod,
    readonly call: number,
  ) {
    super(`planted failure at call ${call} of ${method}`);
  }
}

interface Checkpoint {
  readonly enumerator: unknown;
  readonly readers: SourceSplit[][];
  /** Rows emitted up to it (what the sink side has, as of the checkpoint). */
  readonly emitted: number;
}

export interface SourceRunOptions {
  /** Rows all readers may emit, per poll round, before a checkpoint (the harness checkpoints after every round). */
  readonly parallelism: number;
  /** Fails the n-th call of a method (once). */
  readonly fail?: { method: SourceMethod; call: number };
  /** Fails (a task failure) after checkpoint n completed and one more round was read. */
  readonly failAfterCheckpoint?: number;
  /** Rounds at most (a source that never ends fails the check). */
  readonly maxRounds?: number;
}

export function validatedSourceOptions(factory: SourceFactory, options: Record<string, unknown>) {
  return validatePluginOptions(factory.spec, {
    type: 'source',
    name: factory.name,
    index: 0,
    file: 'contract.conf',
    line: 1,
    options: options as Record<string, never>,
    optionLines: {},
  });
}

/** The source of one attempt: its enumerator and readers. */
class Attempt {
  readonly readers: SourceReader<SourceSplit>[] = [];
  readonly ended: boolean[];
  enumerator!: SplitEnumerator<SourceSplit>;
  constructor(
    readonly source: Source,
    readonly parallelism: number,
  ) {
    this.ended = Array.from({ length: parallelism }, () => false);
  }

  async open(restored: Checkpoint | undefined): Promise<void> {
    const p = this.parallelism;
    const pending: Array<() => void> = [];
    this.enumerator = this.source.createEnumerator(
      {
        parallelism: p,
        registeredReaders: () => [...Array(p).keys()],
        assignSplits: (subtask, splits) => pending.push(() => this.readers[subtask].addSplits(splits)),
        signalNoMoreSplits: (subtask) => pending.push(() => this.readers[subtask].handleNoMoreSplits()),
      },
      restored?.enumerator,
    );
    for (let i = 0; i < p; i++) {
      this.readers.push(
        this.source.createReader({
          subtaskIndex: i,
          parallelism: p,
          boundedness: 'BOUNDED',
          signalNoMoreElement: () => (this.ended[i] = true),
          sendSplitRequest: () => pending.push(() => this.enumerator.handleSplitRequest(i)),
        }),
      );
    }
    await this.enumerator.open();
    for (const r of this.readers) await r.open();
    for (let i = 0; i < p; i++) {
      const splits = restored?.readers[i];
      if (splits && splits.length > 0) this.readers[i].addSplits(splits);
    }
    await this.enumerator.run();
    for (let i = 0; i < p; i++) this.enumerator.registerReader(i);
    this.flush = () => {
      while (pending.length > 0) pending.shift()!();
    };
    this.flush();
  }

  flush: () => void = () => undefined;

  async close(): Promise<void> {
    for (const r of this.readers) await Promise.resolve(r.close()).catch(() => undefined);
    await Promise.resolve(this.enumerator?.close()).catch(() => undefined);
  }
}

/**
 * Reads a bounded source to its end with a checkpoint after every round of polls (one poll per
 * reader), restoring from the last completed checkpoint after a planted failure. Returns the
 * rows as a sink would have them: those emitted before the checkpoint a restore starts from,
 * then those after it (rows emitted after a checkpoint and before a failure are dropped: the
 * sink's uncommitted work, replayed by the restore).
 */
export async function readToEnd(factory: SourceFactory, options: Record<string, unknown>, opts: SourceRunOptions): Promise<Row[]> {
  const calls = new Map<SourceMethod, number>();
  let fired = false;
  const call = async <T>(method: SourceMethod, fn: () => Promise<T> | T): Promise<T> => {
    const n = (calls.get(method) ?? 0) + 1;
    calls.set(method, n);
    if (!fired && opts.fail?.method === method && opts.fail.call === n) {
      fired = true;
      throw new PlantedSourceFailure(method, n);
    }
    return fn();
  };
  const create = () =>
    factory.create({
      jobId: 'contract-source',
      jobMode: 'BATCH',
      parallelism: opts.parallelism,
      options: validatedSourceOptions(factory, options),
      inputTables: [],
    });
  let rows: Row[] = [];
  let last: Checkpoint | undefined;
  let checkpoints = 0;
  let failedAfter = false;
  const maxRounds = opts.maxRounds ?? 10_000;
  for (let attemptNo = 0; ; attemptNo++) {
    if (attemptNo > 5) throw new Error(`${factory.name}: more than 5 restores`);
    const source = create();
    await source.prepare?.();
    const a = new Attempt(source, opts.parallelism);
    try {
      await a.open(last);
      for (let round = 0; !a.ended.every(Boolean); round++) {
        if (round > maxRounds) throw new Error(`${factory.name}: did not end within ${maxRounds} rounds of polls`);
        for (let i = 0; i < a.readers.length; i++) {
          if (a.ended[i]) continue;
          const r = a.readers[i];
          await call('pollNext', () =>
            r.pollNext({ collect: (row) => rows.push(row), collectBatch: (b) => rows.push(...b), collectSchemaChange: () => undefined }),
          );
          a.flush();
        }
        if (opts.failAfterCheckpoint !== undefined && !failedAfter && checkpoints === opts.failAfterCheckpoint && round > 0) {
          failedAfter = true;
          throw new PlantedSourceFailure('pollNext', -1);
        }
        const id = ++checkpoints;
        const enumerator = await call('enumeratorSnapshot', () => a.enumerator.snapshotState(id));
        const readers: SourceSplit[][] = [];
        for (const r of a.readers) readers.push(structuredClone(await call('snapshotState', () => r.snapshotState(id))));
        last = { enumerator: structuredClone(enumerator), readers, emitted: rows.length };
        for (const r of a.readers) await r.notifyCheckpointComplete?.(id);
        await a.enumerator.notifyCheckpointComplete?.(id);
      }
      await a.close();
      return rows;
    } catch (err) {
      await a.close();
      if (!(err instanceof PlantedSourceFailure)) throw err;
      rows = rows.slice(0, last?.emitted ?? 0);
    }
  }
}
