import { describe, expect, it } from 'vitest';
import type { SplitEnumeratorContext } from '@tideway/api';
import { CdcSplitEnumerator, type CdcEnumeratorState } from './cdc-enumerator.js';
import { CdcSourceReader } from './cdc-reader.js';
import type { CdcSplit } from './cdc-splits.js';
import { applyStrictly, ListCollector } from './changelog-check.js';
import { FakeDb, FakeDialect } from './fake-cdc.test-kit.js';

interface Mailbox {
  splits: CdcSplit[];
  noMore: boolean;
}

/**
 * What the coordinator's EnumeratorHost and the workers do, in one process: mailboxes per
 * reader, events and requests delivered on `pump()`, deliveries frozen between the enumerator's
 * and the readers' part of a checkpoint. `dropEvents` loses that many events (a failed RPC).
 */
class Host {
  readonly readers: CdcSourceReader<number, number>[] = [];
  readonly outs: ListCollector[] = [];
  /** Every reader's rows in the order they were emitted (a key's rows all go to one writer). */
  readonly all = new ListCollector();
  readonly enumerator: CdcSplitEnumerator;
  private readonly boxes: Mailbox[] = [];
  private readonly inbox: { subtask: number; event?: unknown }[] = [];
  frozen = false;
  dropEvents = 0;

  constructor(
    db: FakeDb,
    readonly parallelism: number,
    restored?: { enumerator: CdcEnumeratorState; readers: CdcSplit[][] },
  ) {
    for (let i = 0; i < parallelism; i++) this.boxes.push({ splits: [], noMore: false });
    const ctx: SplitEnumeratorContext<CdcSplit> = {
      parallelism,
      registeredReaders: () => [],
      assignSplits: (s, splits) => this.boxes[s].splits.push(...splits),
      signalNoMoreSplits: (s) => {
        this.boxes[s].noMore = true;
      },
    };
    const plan = (): Promise<CdcSplit[]> => {
      const chunks: CdcSplit[] = [];
      for (let i = 0; i < 10; i++) {
        chunks.push({
          splitId: `t:${i}`,
          kind: 'snapshot',
          tableId: 't',
          keyColumn: 'id',
          keyIndex: 0,
          ...(i > 0 ? { lower: String(i * 10) } : {}),
          ...(i < 9 ? { upper: String(i * 10 + 10) } : {}),
        });
      }
      // The stream position is fixed before any chunk is read.
      return Promise.resolve([...chunks, { splitId: 'stream', kind: 'stream', position: db.log.length, skip: 0, chunks: [] }]);
    };
    this.enumerator = new CdcSplitEnumerator(ctx, plan, restored?.enumerator);
    for (let i = 0; i < parallelism; i++) {
      const reader = new CdcSourceReader<number, number>(new FakeDialect(db), 100, {
        sendSplitRequest: () => this.inbox.push({ subtask: i }),
        sendSourceEvent: (event) => {
          if (this.dropEvents > 0) this.dropEvents--;
          else this.inbox.push({ subtask: i, event: structuredClone(event) });
        },
      });
      if (restored && restored.readers[i].length > 0) reader.addSplits(structuredClone(restored.readers[i]) as CdcSplit<number, number>[]);
      this.readers.push(reader);
      this.outs.push(new ListCollector());
    }
  }

  async start(): Promise<void> {
    await this.enumerator.run();
    for (let i = 0; i < this.parallelism; i++) this.enumerator.registerReader(i);
    this.deliver();
  }

  /** Hands events and requests to the enumerator, then delivers the mailboxes unless frozen. */
  pump(): void {
    for (const m of this.inbox.splice(0)) {
      if (m.event !== undefined) this.enumerator.handleSourceEvent(m.subtask, m.event);
      else this.enumerator.handleSplitRequest(m.subtask);
    }
    this.deliver();
  }

  private deliver(): void {
    if (this.frozen) return;
    this.boxes.forEach((b, i) => {
      const splits = b.splits.splice(0) as CdcSplit<number, number>[];
      if (splits.length > 0) this.readers[i].addSplits(structuredClone(splits));
      if (b.noMore) this.readers[i].handleNoMoreSplits();
    });
  }

  async poll(i: number): Promise<void> {
    const out = new ListCollector();
    await this.readers[i].pollNext(out);
    this.outs[i].collectBatch(out.rows);
    this.all.collectBatch(out.rows);
    this.pump();
  }

  /** A checkpoint: the enumerator first (undelivered splits go to their reader), then every reader. */
  checkpoint(id: number, between?: () => Promise<void>): Promise<{ enumerator: CdcEnumeratorState; readers: CdcSplit[][] }> {
    return (async () => {
      const enumerator = structuredClone(this.enumerator.snapshotState(id));
      const readers: CdcSplit[][] = this.boxes.map((b) => structuredClone(b.splits));
      this.frozen = true;
      await between?.();
      this.readers.forEach((r, i) => readers[i].push(...structuredClone(r.snapshotState(id))));
      this.frozen = false;
      this.pump();
      return { enumerator, readers };
    })();
  }

  /** A checkpoint taken and completed (the writers would commit it now). */
  async completeCheckpoint(): Promise<void> {
    const id = ++checkpointIds;
    await this.checkpoint(id);
    this.enumerator.notifyCheckpointComplete(id);
    for (const r of this.readers) await r.notifyCheckpointComplete(id);
    this.pump();
  }

  rows(): ListCollector['rows'] {
    return [...this.all.rows];
  }
}

let checkpointIds = 0;

function seed(db: FakeDb): void {
  for (let id = 0; id < 100; id++) db.write('t', id, 0);
}

/** Polls every reader in turn, writing to the database between polls. */
async function drive(host: Host, db: FakeDb, rounds: number, rnd: () => number): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < host.parallelism; i++) {
      const id = Math.floor(rnd() * 110);
      db.write('t', id, rnd() < 0.15 ? undefined : r * 10 + i + 1);
      await host.poll(i);
    }
    if (r % 3 === 2) await host.completeCheckpoint();
  }
}

/** Polls every reader without writing, so the stream delivers the last changes. */
async function drain(host: Host): Promise<void> {
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < host.parallelism; i++) await host.poll(i);
    await host.completeCheckpoint();
  }
}

function expectTarget(rows: ListCollector['rows'], db: FakeDb): void {
  const state = new Map<string, unknown[]>();
  applyStrictly(state, rows);
  const got = new Map([...state.values()].map((f) => [Number(f[0]), f[1]]));
  expect(got).toEqual(db.rowsOf('t'));
}

function random(seedValue: number): () => number {
  let x = seedValue;
  return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('parallel snapshot: chunks over every reader, one stream', () => {
  it('spreads chunks over both readers, streams from reader 0 only after every chunk is reported and committed, and the changelog is exact', async () => {
    const db = new FakeDb();
    seed(db);
    const host = new Host(db, 2);
    await host.start();
    // Every chunk read, no checkpoint since: no stream yet.
    for (let r = 0; r < 8; r++) for (let i = 0; i < 2; i++) await host.poll(i);
    expect(host.enumerator.snapshotState(++checkpointIds)).toMatchObject({ pending: [], outstanding: [] });
    const streaming = () => host.readers[0].snapshotState(0).some((s) => s.kind === 'stream');
    expect(streaming()).toBe(false);
    host.enumerator.notifyCheckpointComplete(checkpointIds);
    host.pump();
    expect(streaming(), 'the covering checkpoint is being committed').toBe(false);
    await host.completeCheckpoint();
    expect(streaming()).toBe(true);
    await drive(host, db, 30, random(7));
    await drain(host);
    const snapshotRows = host.outs.map((o) => o.rows.filter((r) => r.kind === '+I').length);
    expect(snapshotRows[0]).toBeGreaterThan(0);
    expect(snapshotRows[1]).toBeGreaterThan(0);
    // Reader 1 only ever read chunks: no row of it comes from the stream.
    expect(host.readers[1].snapshotState(1)).toEqual([]);
    expectTarget(host.rows(), db);
  });

  it('a restore from a checkpoint taken while a chunk report was in flight repeats and loses nothing', async () => {
    for (let cut = 1; cut <= 12; cut++) {
      const db = new FakeDb();
      seed(db);
      const rnd = random(cut);
      const host = new Host(db, 2);
      await host.start();
      await drive(host, db, Math.ceil(cut / 2), rnd);
      // The enumerator's part is taken, then reader 1 reads a chunk and reports it before its own part.
      const cp = await host.checkpoint(++checkpointIds, () => host.poll(1));
      // Rows emitted before each reader's part are in the checkpoint; the rest is lost with the failure.
      const kept = host.rows();
      await drive(host, db, 2, rnd);
      const restored = new Host(db, 2, cp);
      await restored.start();
      await drive(restored, db, 30, rnd);
      await drain(restored);
      expectTarget([...kept, ...restored.rows()], db);
    }
  });

  it('a lost chunk report is sent again, so the stream still starts', async () => {
    const db = new FakeDb();
    seed(db);
    const host = new Host(db, 2);
    host.dropEvents = 3;
    await host.start();
    await drive(host, db, 10, random(3));
    expect(host.readers[0].snapshotState(1).some((s) => s.kind === 'stream')).toBe(false);
    await new Promise((r) => setTimeout(r, 2100));
    await drive(host, db, 5, random(4));
    await drain(host);
    expect(host.readers[0].snapshotState(2).some((s) => s.kind === 'stream')).toBe(true);
    expectTarget(host.rows(), db);
  });
});
