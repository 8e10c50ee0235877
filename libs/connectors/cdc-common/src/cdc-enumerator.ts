import type { SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import {
  isCheckpointWantedEvent,
  isChunksFinishedEvent,
  type CdcSplit,
  type FinishedChunk,
  type SnapshotSplit,
  type StreamSplit,
} from './cdc-splits.js';
import type { TableReconciliation } from './change-stream.js';

/** How a restored enumerator learns the tables captured now (see CdcSplitEnumerator's reconciliation). */
export type EnumeratorReconcile = (schema: unknown) => Promise<TableReconciliation & { readonly captured: readonly string[] }>;

/** The table of a snapshot chunk's split id (`<tableId>:<n>`). */
function tableOfSplit(splitId: string): string {
  return splitId.slice(0, splitId.lastIndexOf(':'));
}

/** Whether a stream split's schema is a record of tables (checkpoints of older versions may hold none). */
function hasTableRecord(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Array.isArray((schema as { tables?: unknown }).tables);
}

/**
 * What the enumerator checkpoints. `pending`: chunks not handed out yet; `outstanding`: chunks
 * handed out whose reader has not reported them read; `finished`: chunks read, with their
 * watermarks; `readBy`: the readers that read them; `stream`: the stream split until it is
 * handed out (then absent); `covered`/`committed`: the commit gate (see CdcSplitEnumerator).
 */
export interface CdcEnumeratorState {
  readonly planned: boolean;
  readonly pending: CdcSplit[];
  readonly outstanding?: string[];
  readonly finished?: FinishedChunk<unknown>[];
  readonly readBy?: number[];
  readonly stream?: StreamSplit<unknown, unknown>;
  readonly covered?: number;
  readonly committed?: number;
}

/** The reader that streams once every chunk is read (any reader could; 0 always exists). */
const STREAM_READER = 0;

/**
 * Plans once (snapshot chunks and the stream split), hands chunks out one per request to every
 * reader that asks (SeaTunnel's incremental snapshot), and learns each chunk's watermark from
 * the reader's chunks-finished event. When every chunk is reported, the stream split goes to
 * reader 0 carrying all the watermarks (the stream drops changes a chunk already holds:
 * decision 0004), and every reader is told no more splits come; the others then stay idle, as
 * one change stream cannot be shared.
 *
 * The commit gate: when another reader read chunks, its rows reach the target through another
 * sink writer than the stream's. A streamed delete or update of such a row must not reach the
 * target before that writer's transaction holding the row is committed (PostgreSQL neither
 * shows a prepared transaction's rows nor waits for them). So the stream starts only after a
 * checkpoint covering every chunk has completed (`covered`, then `committed`: the writers commit
 * it when told of its completion) and one more checkpoint completed after that (every writer
 * handled the first completion, committing, before it took part in the second). Decision 0017.
 *
 * Restored while it still holds the stream split (the snapshot had not finished), the
 * enumerator first reconciles the split's tables with those the config captures now: chunks of
 * tables no longer captured are dropped, the added tables' chunks join the pending ones, and the
 * stream's record follows (a stream split already handed out is reconciled by its reader).
 * Until then it hands nothing out. Decision 0041.
 */
export class CdcSplitEnumerator implements SplitEnumerator<CdcSplit, CdcEnumeratorState> {
  private planned: boolean;
  private pending: SnapshotSplit[] = [];
  private readonly outstanding = new Set<string>();
  private readonly finished = new Map<string, FinishedChunk<unknown>>();
  private readonly readBy = new Set<number>();
  private stream: StreamSplit<unknown, unknown> | undefined;
  private readonly registered = new Set<number>();
  /** The first checkpoint whose enumerator state had every chunk read. */
  private covered: number | undefined;
  /** The first completed checkpoint at or after `covered`. */
  private committed: number | undefined;
  /** Nothing is handed out until a restored stream split is reconciled. */
  private ready: boolean;

  constructor(
    private readonly ctx: SplitEnumeratorContext<CdcSplit>,
    private readonly plan: () => Promise<CdcSplit[]>,
    restored?: CdcEnumeratorState,
    private readonly reconcile?: EnumeratorReconcile,
  ) {
    this.planned = restored?.planned ?? false;
    for (const c of restored?.finished ?? []) this.finished.set(c.splitId, c);
    this.take(restored?.pending ?? []);
    if (restored?.stream) this.stream = restored.stream;
    for (const id of restored?.outstanding ?? []) this.outstanding.add(id);
    for (const r of restored?.readBy ?? []) this.readBy.add(r);
    this.covered = restored?.covered;
    this.committed = restored?.committed;
    this.ready = !(reconcile && this.planned && this.stream && hasTableRecord(this.stream.schema));
  }

  open(): void {}

  async run(): Promise<void> {
    if (!this.planned) {
      this.take(await this.plan());
      this.planned = true;
    }
    if (!this.ready) {
      await this.reconcileTables();
      this.ready = true;
    }
    for (const r of new Set([...this.registered, ...this.ctx.registeredReaders()])) this.assign(r);
  }

  registerReader(subtask: number): void {
    this.registered.add(subtask);
    if (this.planned) this.assign(subtask);
  }

  handleSplitRequest(subtask: number): void {
    if (this.planned) this.assign(subtask);
  }

  handleSourceEvent(subtask: number, event: unknown): void {
    if (isCheckpointWantedEvent(event)) {
      this.ctx.requestCheckpoint?.();
      return;
    }
    if (!isChunksFinishedEvent(event) || !this.stream) return;
    for (const c of event.chunks) {
      this.outstanding.delete(c.splitId);
      this.pending = this.pending.filter((p) => p.splitId !== c.splitId);
      this.finished.set(c.splitId, c);
      this.readBy.add(subtask);
    }
    // The reader's split request may have arrived before this event: try here too.
    this.maybeStartStream();
  }

  addSplitsBack(splits: CdcSplit[]): void {
    for (const s of splits) this.outstanding.delete(s.splitId);
    this.take(splits);
  }

  snapshotState(checkpointId: number): CdcEnumeratorState {
    if (this.stream && this.allRead() && this.covered === undefined) this.covered = checkpointId;
    return {
      planned: this.planned,
      pending: this.pending.map((s) => ({ ...s })),
      outstanding: [...this.outstanding],
      finished: [...this.finished.values()],
      readBy: [...this.readBy],
      ...(this.stream ? { stream: { ...this.stream } } : {}),
      ...(this.covered !== undefined ? { covered: this.covered } : {}),
      ...(this.committed !== undefined ? { committed: this.committed } : {}),
    };
  }

  notifyCheckpointComplete(checkpointId: number): void {
    if (this.covered === undefined || checkpointId < this.covered) return;
    if (this.committed === undefined) this.committed = checkpointId;
    else if (checkpointId > this.committed) this.maybeStartStream(true);
  }

  close(): void {}

  /** Sorts planned or returned splits into chunks and the stream split (older states kept it in `pending`). */
  private take(splits: readonly CdcSplit[]): void {
    for (const s of splits) {
      if (s.kind === 'stream') this.stream = s;
      else if (s.kind === 'snapshot' && !this.finished.has(s.splitId) && !this.pending.some((p) => p.splitId === s.splitId))
        this.pending.push(s);
    }
  }

  private allRead(): boolean {
    return this.pending.length === 0 && this.outstanding.size === 0;
  }

  /** See the class comment: the restored stream split's tables against those captured now. */
  private async reconcileTables(): Promise<void> {
    const stream = this.stream!;
    const r = await this.reconcile!(stream.schema);
    if (r.added.length === 0 && r.removed.length === 0) return;
    const captured = new Set(r.captured);
    this.pending = this.pending.filter((p) => captured.has(p.tableId));
    for (const id of this.outstanding) if (!captured.has(tableOfSplit(id))) this.outstanding.delete(id);
    for (const [id, c] of this.finished) if (!captured.has(c.tableId)) this.finished.delete(id);
    this.stream = { ...stream, schema: r.schema, chunks: stream.chunks.filter((c) => captured.has(c.tableId)) };
    this.take(r.chunks);
  }

  private assign(subtask: number): void {
    if (!this.ready) return;
    if (!this.stream) {
      this.ctx.signalNoMoreSplits(subtask);
      return;
    }
    const chunk = this.pending.shift();
    if (chunk) {
      this.outstanding.add(chunk.splitId);
      this.ctx.assignSplits(subtask, [chunk]);
      return;
    }
    this.maybeStartStream();
  }

  /** Hands out the stream split once every chunk is read and, when other readers read some, committed. */
  private maybeStartStream(gatePassed = false): void {
    if (!this.ready || !this.stream || !this.allRead()) return;
    const otherWriters = [...this.readBy].some((r) => r !== STREAM_READER);
    if (otherWriters && !gatePassed) return;
    const stream: StreamSplit<unknown, unknown> = { ...this.stream, chunks: [...this.stream.chunks, ...this.finished.values()] };
    this.stream = undefined;
    this.finished.clear();
    this.ctx.assignSplits(STREAM_READER, [stream]);
    for (let r = 0; r < this.ctx.parallelism; r++) this.ctx.signalNoMoreSplits(r);
  }
}
