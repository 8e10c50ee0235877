import type { FinishedChunk } from './cdc-splits.js';

interface IndexedChunk<W> {
  readonly lower: bigint | undefined;
  readonly upper: bigint | undefined;
  readonly watermark: W;
}

interface TableChunks<W> {
  readonly keyIndex: number;
  /** Sorted by lower bound; chunks of one table do not overlap. */
  readonly chunks: IndexedChunk<W>[];
}

/**
 * Finds the chunk a row's key fell into, to ask whether that chunk's snapshot already held a
 * change. Keys are integers (the planner chunks only integer keys), compared as bigint.
 */
export class ChunkIndex<W> {
  private readonly byTable = new Map<string, TableChunks<W>>();

  constructor(chunks: readonly FinishedChunk<W>[]) {
    for (const c of chunks) {
      let t = this.byTable.get(c.tableId);
      if (!t) this.byTable.set(c.tableId, (t = { keyIndex: c.keyIndex, chunks: [] }));
      t.chunks.push({
        lower: c.lower === undefined ? undefined : BigInt(c.lower),
        upper: c.upper === undefined ? undefined : BigInt(c.upper),
        watermark: c.watermark,
      });
    }
    for (const t of this.byTable.values())
      t.chunks.sort((a, b) =>
        a.lower === undefined ? -1 : b.lower === undefined ? 1 : a.lower < b.lower ? -1 : a.lower > b.lower ? 1 : 0,
      );
  }

  get size(): number {
    return this.byTable.size;
  }

  /** Every watermark in the index. */
  watermarks(): W[] {
    const out: W[] = [];
    for (const t of this.byTable.values()) for (const c of t.chunks) out.push(c.watermark);
    return out;
  }

  /** The watermark of the chunk holding `row` of `tableId`, or undefined when no chunk does. */
  watermarkOf(tableId: string, row: readonly unknown[]): W | undefined {
    const t = this.byTable.get(tableId);
    if (!t) return undefined;
    if (t.keyIndex < 0) return t.chunks[0]?.watermark;
    const raw = row[t.keyIndex];
    if (raw === null || raw === undefined) return undefined;
    const key = typeof raw === 'bigint' ? raw : BigInt(raw as number | string);
    const chunks = t.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = chunks[mid];
      if (c.lower !== undefined && key < c.lower) hi = mid - 1;
      else if (c.upper !== undefined && key >= c.upper) lo = mid + 1;
      else return c.watermark;
    }
    return undefined;
  }
}
