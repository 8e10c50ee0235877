/**
 * TaskGroupRunner with hand-written plugins: a sink whose next transaction waits for the
 * row locks of the transaction it prepared at the previous checkpoint (as XA upserts of the
 * same keys do in PostgreSQL and MariaDB) must still see that checkpoint committed; a task
 * group's first rows reach the sink ahead of the rest of their poll; and a sink writer's row
 * encoding is offered to a reader that feeds it directly and alone, and to no other.
 */
import { describe, expect, it } from 'vitest';
import {
  RowKind,
  type EncodedRow,
  type Row,
  type RowEncodingOffer,
  type SinkCommitter,
  type SinkFactory,
  type SinkWriter,
  type SourceFactory,
  type SourceReader,
  type SourceSplit,
} from '@tideway/api';
import type { PluginConfig } from '@tideway/config';
import { PluginRegistry } from '@tideway/plugins/lazy';
import type { TaskGroupDescriptor } from './descriptor.js';
import type { FromTaskGroup } from './protocol.js';
import { TaskGroupRunner } from './task-group-runner.js';

/** A table of one key: a prepared transaction holds the key's lock until it is committed. */
class LockingTable {
  prepared: number | undefined;
  committed: number[] = [];
  written = 0;
  private release: Array<() => void> = [];

  /** Waits, like a row-lock wait, while a prepared transaction holds the key. */
  async write(rows: readonly Row[]): Promise<void> {
    while (this.prepared !== undefined) await new Promise<void>((r) => this.release.push(r));
    this.written += rows.length;
  }

  commit(id: number): void {
    if (this.prepared === id) this.prepared = undefined;
    this.committed.push(id);
    for (const r of this.release.splice(0)) r();
  }
}

/** A registry of one source (its reader's pollNext given) and one sink (its writer and committer given). */
function registry(
  pollNext: SourceReader<SourceSplit>['pollNext'],
  createWriter: () => SinkWriter,
  createCommitter?: () => SinkCommitter<unknown>,
  offerRowEncoding?: SourceReader<SourceSplit>['offerRowEncoding'],
): PluginRegistry {
  const source: SourceFactory = {
    type: 'source',
    name: 'SameKey',
    description: 'a test source',
    spec: { options: [] },
    create: () => ({
      boundedness: () => 'UNBOUNDED',
      catalogTables: () => [],
      createEnumerator: () => {
        throw new Error('not used');
      },
      createReader: () => ({
        open() {},
        pollNext,
        addSplits() {},
        handleNoMoreSplits() {},
        snapshotState: () => [],
        ...(offerRowEncoding ? { offerRowEncoding } : {}),
        close() {},
      }),
    }),
  };
  const sink: SinkFactory = {
    type: 'sink',
    name: 'LockingSink',
    description: 'a test sink',
    spec: { options: [] },
    create: () => ({ createWriter, ...(createCommitter ? { createCommitter } : {}) }),
  };
  return new PluginRegistry([source, sink]);
}

/** Row after row of one key, into a sink holding a transaction per checkpoint until it is committed. */
function factories(table: LockingTable): PluginRegistry {
  let next = 0;
  return registry(
    (out) => out.collect({ kind: RowKind.UPDATE_AFTER, tableId: 't', fields: [1, next++] }),
    () => ({
      write: (rows) => table.write(rows),
      prepareCommit: (checkpointId) => {
        table.prepared = checkpointId;
        return checkpointId;
      },
      close() {},
    }),
    () => ({
      commit: (infos: unknown[]) => {
        for (const id of infos) table.commit(id as number);
        return [];
      },
      abort() {},
    }),
  );
}

/** A source handing over `perPoll` rows a poll (numbered from 0), and a sink keeping each write. */
function batchFactories(perPoll: number, writes: number[][]): PluginRegistry {
  let next = 0;
  return registry(
    (out) => {
      const rows: Row[] = [];
      for (let i = 0; i < perPoll; i++) rows.push({ kind: RowKind.INSERT, tableId: 't', fields: [next++] });
      out.collectBatch(rows);
    },
    () => ({
      write: (rows) => {
        writes.push(rows.map((r) => r.fields[0] as number));
      },
      prepareCommit: () => undefined,
      close() {},
    }),
  );
}

const plugin = (type: PluginConfig['type'], name: string): PluginConfig => ({
  type,
  name,
  index: 0,
  file: 'job.conf',
  line: 1,
  options: {},
  optionLines: {},
});

function descriptor(sinks = 1): TaskGroupDescriptor {
  const sink = (vertexId: number) => ({ vertexId, plugin: plugin('sink', 'LockingSink'), parallelism: 1, inputTables: [], children: [] });
  return {
    jobId: 'j',
    jobName: 'j',
    jobMode: 'STREAMING',
    pipelineId: 1,
    taskGroupIndex: 0,
    attempt: 0,
    subtaskIndex: 0,
    rowsPerSecond: 0,
    root: {
      vertexId: 1,
      plugin: plugin('source', 'SameKey'),
      parallelism: 1,
      inputTables: [],
      children: Array.from({ length: sinks }, (_, i) => sink(2 + i)),
    },
  };
}

async function until(what: string, fn: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('TaskGroupRunner', () => {
  it('commits a completed checkpoint while a write waits for that checkpoint’s locks', async () => {
    const table = new LockingTable();
    const sent: FromTaskGroup[] = [];
    const runner = new TaskGroupRunner(
      descriptor(),
      (m) => sent.push(m),
      async () => factories(table),
    );
    const running = runner.run();
    const acked = (id: number) => sent.some((m) => m.type === 'checkpoint-ack' && m.checkpointId === id);
    const failed = () => sent.find((m) => m.type === 'state' && m.state === 'FAILED');

    await until('rows written', () => table.written > 10);
    runner.deliver({ type: 'trigger-checkpoint', checkpointId: 1, kind: 'CHECKPOINT' });
    await until('checkpoint 1 acknowledged', () => acked(1));
    // The next row's write now waits for checkpoint 1's commit, which only the message brings.
    const writtenAtPrepare = table.written;
    runner.deliver({ type: 'checkpoint-complete', checkpointId: 1, kind: 'CHECKPOINT' });
    await until('checkpoint 1 committed and writing resumed', () => table.committed.includes(1) && table.written > writtenAtPrepare);
    runner.deliver({ type: 'trigger-checkpoint', checkpointId: 2, kind: 'CHECKPOINT' });
    await until('checkpoint 2 acknowledged', () => acked(2));
    expect(failed()).toBeUndefined();

    runner.deliver({ type: 'checkpoint-complete', checkpointId: 2, kind: 'CHECKPOINT' });
    await until('checkpoint 2 committed', () => table.committed.includes(2));
    runner.deliver({ type: 'cancel', reason: 'test over' });
    await running;
    expect(table.committed).toEqual([1, 2]);
    expect(sent.at(-1)).toMatchObject({ type: 'state', state: 'CANCELED' });
  });

  it("hands the task group's first 256 rows on ahead of the rest of their poll, and later polls whole", async () => {
    const writes: number[][] = [];
    const runner = new TaskGroupRunner(
      descriptor(),
      () => undefined,
      async () => batchFactories(1000, writes),
    );
    const running = runner.run();
    await until('three polls written', () => writes.length >= 4);
    runner.deliver({ type: 'cancel', reason: 'test over' });
    await running;
    expect(writes.slice(0, 4).map((w) => w.length)).toEqual([256, 744, 1000, 1000]);
    // In order, nothing lost or repeated across the split.
    expect(writes.slice(0, 4).flat()).toEqual(Array.from({ length: 3000 }, (_, i) => i));
  });

  describe('row encodings (SinkWriter.rowEncoding, SourceReader.offerRowEncoding)', () => {
    /** An encoded row whose values must not be read: the runtime counts it by its byteSize. */
    const encodedRow = (n: number): EncodedRow => ({
      kind: RowKind.INSERT,
      tableId: 't',
      encoding: 'test-encoding',
      byteSize: 10 + n,
      get fields(): unknown[] {
        throw new Error(`row ${n}'s values were read`);
      },
    });

    /** Runs a chain until 3 polls are written; returns what the reader was offered and what the sinks got. */
    async function runEncoded(d: TaskGroupDescriptor) {
      const offers: RowEncodingOffer[] = [];
      const written: Row[][] = [];
      const sent: FromTaskGroup[] = [];
      let next = 0;
      const offer: RowEncodingOffer = { encoding: 'test-encoding', accepts: async () => true };
      const plugins = registry(
        (out) => {
          // Encoded rows only once offered: otherwise rows of values, as a real reader does.
          const rows: Row[] = [];
          for (let i = 0; i < 10; i++)
            rows.push(offers.length > 0 ? encodedRow(next++) : { kind: RowKind.INSERT, tableId: 't', fields: [next++] });
          out.collectBatch(rows);
        },
        () => ({ write: (rows) => void written.push([...rows]), rowEncoding: () => offer, handleRowErrors() {}, close() {} }),
        undefined,
        (o) => void offers.push(o),
      );
      const runner = new TaskGroupRunner(
        d,
        (m) => sent.push(m),
        async () => plugins,
      );
      const running = runner.run();
      await until('three polls written', () => written.length >= 3 * (d.root.children.length || 1));
      runner.deliver({ type: 'cancel', reason: 'test over' });
      await running;
      const failed = sent.find((m) => m.type === 'state' && m.state === 'FAILED');
      expect(failed).toBeUndefined();
      const metrics = sent.filter((m) => m.type === 'metrics').at(-1);
      return { offers, written, offer, metrics };
    }

    it("offers a sink writer's encoding to the reader feeding it directly; encoded rows reach it as they are and are counted by their byteSize", async () => {
      const { offers, written, offer, metrics } = await runEncoded(descriptor());
      expect(offers).toEqual([offer]);
      const rows = written.flat();
      expect(rows.every((r) => (r as EncodedRow).encoding === 'test-encoding')).toBe(true);
      const bytes = rows.reduce((n, r) => n + (r as EncodedRow).byteSize, 0);
      expect(metrics).toMatchObject({
        metrics: { tables: [{ table: 't', sourceReceivedCount: rows.length, sourceReceivedBytes: bytes, sinkWriteBytes: bytes }] },
      });
    });

    it('offers nothing when the reader feeds two sinks, or when the sink handles bad rows', async () => {
      expect((await runEncoded(descriptor(2))).offers).toEqual([]);
      const sinkRowErrors = {
        mode: 'LOG' as const,
        maxErrorRecords: 100,
        maxErrorRatio: 0,
        maxErrorRatioMinRecords: 10_000,
        includeOriginalData: true,
        includeStacktrace: false,
        originalDataMaxLength: 1000,
        setBy: 'env.sink_error_handler.mode',
      };
      const guarded = await runEncoded({ ...descriptor(), sinkRowErrors });
      expect(guarded.offers).toEqual([]);
      expect(guarded.written.flat().every((r) => Array.isArray(r.fields))).toBe(true);
    });
  });
});
