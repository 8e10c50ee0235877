import type { SourceSplit } from '@tideway/api';
import type { FakeTableConfig } from './fake-config.js';

/**
 * A FakeSource split: `rowNum` rows of one table, owned by reader `index % parallelism`.
 * `emitted` is its progress: a reader restored from a checkpoint resumes after it.
 */
export interface FakeSplit extends SourceSplit {
  readonly splitId: string;
  readonly tableId: string;
  readonly index: number;
  readonly rowNum: number;
  emitted: number;
}

/**
 * SeaTunnel's split arithmetic: `row.num` rows per reader, cut into `split.num` splits of
 * ceil(row.num / split.num) rows (the last one smaller); reader i gets splits with index
 * i, i + parallelism, i + 2 * parallelism, ...
 */
export function discoverSplits(tables: readonly FakeTableConfig[], parallelism: number): FakeSplit[] {
  const splits: FakeSplit[] = [];
  for (const t of tables) {
    const tableId = t.table.tableId;
    const perReader = t.rowNum;
    const perSplit = Math.ceil(perReader / t.splitNum);
    for (let reader = 0; reader < parallelism; reader++) {
      let index = reader;
      for (let done = 0; done < perReader; done += perSplit, index += parallelism) {
        splits.push({ splitId: `${tableId}_${index}`, tableId, index, rowNum: Math.min(perSplit, perReader - done), emitted: 0 });
      }
    }
  }
  return splits;
}

/** The reader that owns a split. */
export function splitOwner(split: FakeSplit, parallelism: number): number {
  return split.index % parallelism;
}
