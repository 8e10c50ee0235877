import type { StreamSplit } from './cdc-splits.js';

/**
 * A CDC source's log positions, for `tideway verify`: where the database's change log ends
 * now, and whether a checkpointed stream position has read past a recorded one.
 */
export interface ChangePositions {
  /** The end of the change log now (PostgreSQL: WAL LSN; MySQL: binlog file and offset). */
  currentChangePosition(): Promise<unknown>;
  /** Whether a stream checkpointed at `checkpointed` has delivered every change before `recorded`. */
  changePositionReached(checkpointed: unknown, recorded: unknown): boolean;
  /** A position as people read it, e.g. `0/16B3748` or `mysql-bin.000003:1542`. */
  formatChangePosition(position: unknown): string;
}

/** Whether a source instance reports change positions. */
export function hasChangePositions(x: unknown): x is ChangePositions {
  return typeof x === 'object' && x !== null && typeof (x as ChangePositions).currentChangePosition === 'function';
}

/**
 * The stream split's position inside a reader's checkpointed state (the splits it returned
 * from snapshotState), or undefined when the state holds no stream split.
 */
export function checkpointedStreamPosition(state: unknown): unknown {
  const seen = new Set<unknown>();
  const find = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return undefined;
    seen.add(v);
    const s = v as Partial<StreamSplit<unknown, unknown>>;
    if (s.kind === 'stream' && s.splitId === 'stream' && 'position' in s) return s.position;
    for (const child of v instanceof Map ? v.values() : Object.values(v)) {
      const p = find(child);
      if (p !== undefined) return p;
    }
    return undefined;
  };
  return find(state);
}
