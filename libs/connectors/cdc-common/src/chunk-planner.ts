import type { SnapshotSplit } from './cdc-splits.js';

/** What the planner asks the database about a table's integer key. */
export interface KeyQueries {
  /** MIN, MAX (null when empty) and the row count. */
  stats(): Promise<{ min: bigint | null; max: bigint | null; count: number }>;
  /** The key `offset` rows after the first key >= `from`, in key order; null when fewer rows remain. */
  keyAfter(from: bigint, offset: number): Promise<bigint | null>;
  /** Every `rate`-th key in key order (a sample of the key distribution). */
  sample(rate: number): Promise<bigint[]>;
}

/** SeaTunnel's chunking knobs (snapshot.split.size, chunk-key.*, sample-sharding.threshold, inverse-sampling.rate). */
export interface ChunkingOptions {
  readonly splitSize: number;
  readonly evenLower: number;
  readonly evenUpper: number;
  readonly sampleThreshold: number;
  readonly samplingRate: number;
}

function splitsOf(tableId: string, keyColumn: string, keyIndex: number, bounds: bigint[]): SnapshotSplit[] {
  // The first chunk has no lower bound and the last no upper bound, so keys inserted later
  // beyond the snapshot's extremes still fall into a chunk.
  const out: SnapshotSplit[] = [];
  for (let i = 0; i <= bounds.length; i++) {
    out.push({
      splitId: `${tableId}:${i}`,
      kind: 'snapshot',
      tableId,
      keyColumn,
      keyIndex,
      ...(i > 0 ? { lower: bounds[i - 1].toString() } : {}),
      ...(i < bounds.length ? { upper: bounds[i].toString() } : {}),
    });
  }
  return out;
}

/**
 * Cuts a table into chunks of about `splitSize` rows by its integer key, as SeaTunnel does: fixed
 * key steps when keys are evenly spread ((max - min + 1) / rows within the bounds), boundaries
 * from a sample when they are not and the table is large, exact row-count boundaries otherwise.
 */
export async function planChunks(
  tableId: string,
  keyColumn: string,
  keyIndex: number,
  q: KeyQueries,
  o: ChunkingOptions,
): Promise<SnapshotSplit[]> {
  const { min, max, count } = await q.stats();
  if (min === null || max === null || count <= o.splitSize) return splitsOf(tableId, keyColumn, keyIndex, []);
  const factor = Number(max - min + 1n) / count;
  const bounds: bigint[] = [];
  if (factor >= o.evenLower && factor <= o.evenUpper) {
    const step = BigInt(Math.max(1, Math.floor(o.splitSize * factor)));
    for (let b = min + step; b <= max; b += step) bounds.push(b);
  } else if (count / o.splitSize > o.sampleThreshold) {
    const samples = await q.sample(o.samplingRate);
    const every = Math.max(1, Math.floor(o.splitSize / o.samplingRate));
    for (let i = every; i < samples.length; i += every)
      if (bounds.length === 0 || samples[i] > bounds[bounds.length - 1]) bounds.push(samples[i]);
  } else {
    let from = min;
    for (;;) {
      const next = await q.keyAfter(from, o.splitSize);
      if (next === null) break;
      bounds.push(next);
      from = next;
    }
  }
  return splitsOf(tableId, keyColumn, keyIndex, bounds);
}

/** One chunk holding the whole table (no integer key to cut it by). */
export function wholeTableSplit(tableId: string): SnapshotSplit {
  return { splitId: `${tableId}:0`, kind: 'snapshot', tableId };
}
