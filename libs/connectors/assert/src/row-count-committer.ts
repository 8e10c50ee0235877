import type { SinkAggregatedCommitter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { AssertCommitInfo } from './assert-writer.js';
import type { ValueRule } from './rules.js';

/** The writers' reports of one checkpoint. */
export interface AssertAggregatedInfo {
  readonly reports: readonly AssertCommitInfo[];
}

/**
 * Runs on the coordinator: adds up the writers' row counts (each report once, so a replayed
 * commit counts nothing twice) and, when the pipeline has finished, checks MIN_ROW / MAX_ROW
 * per table and `table-names` against the totals.
 */
export class RowCountCommitter implements SinkAggregatedCommitter<AssertCommitInfo, AssertAggregatedInfo> {
  private readonly totals = new Map<string, number>();
  private readonly applied = new Set<string>();

  constructor(
    /** Row rules per table id that must hold at the end. */
    private readonly rowRules: ReadonlyMap<string, readonly ValueRule[]>,
    private readonly tableNames?: readonly string[],
  ) {}

  combine(infos: AssertCommitInfo[]): AssertAggregatedInfo {
    return { reports: infos };
  }

  commit(infos: AssertAggregatedInfo[]): AssertAggregatedInfo[] {
    for (const info of infos) {
      for (const r of info.reports) {
        const key = `${r.checkpointId}/${r.subtask}`;
        if (this.applied.has(key)) continue;
        this.applied.add(key);
        for (const [table, n] of Object.entries(r.counts)) this.totals.set(table, (this.totals.get(table) ?? 0) + n);
      }
    }
    return [];
  }

  abort(_infos: AssertAggregatedInfo[]): void {
    // Nothing was applied for aborted checkpoints; their rows are written again after restore.
  }

  /** Rows counted so far per table. */
  total(table: string): number {
    return this.totals.get(table) ?? 0;
  }

  close(): void {
    for (const [table, rules] of this.rowRules) {
      const count = this.total(table);
      for (const rule of rules) {
        const limit = rule.ruleValue ?? 0;
        const bad = (rule.ruleType === 'MAX_ROW' && count > limit) || (rule.ruleType === 'MIN_ROW' && count < limit);
        if (bad)
          throw new TidewayError(
            ErrorCode.ASSERT_FAILED,
            `Assert row rule ${rule.ruleType} ${limit} failed for table ${table}: ${count} rows were written`,
          );
      }
    }
    if (this.tableNames && this.tableNames.length > 0) {
      const seen = new Set([...this.totals].filter(([, n]) => n > 0).map(([t]) => t));
      const expected = new Set(this.tableNames);
      const same = seen.size === expected.size && [...seen].every((t) => expected.has(t));
      if (!same)
        throw new TidewayError(
          ErrorCode.ASSERT_FAILED,
          `Assert table-names failed: the data had tables [${[...seen].join(', ')}], expected [${this.tableNames.join(', ')}]`,
        );
    }
  }
}
