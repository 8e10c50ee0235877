import type { JobCounters, JobMaster } from './job-master.js';

/** The `table` label of the series that sums every table of a job past the limit. */
export const OTHER_TABLES = '_other';
/** Per-table series a job gets when tideway.metrics.max-table-series is not set. */
export const DEFAULT_MAX_TABLE_SERIES = 100;

type TableCounters = JobCounters['tables'] extends Map<string, infer V> ? V : never;

/**
 * Bounds the per-table Prometheus series of each job (a CDC job may read thousands of tables):
 * the first `limit` tables a job reports, in the order they were first seen, keep a series of
 * their own for the job's life; every later table is summed into one series labelled `_other`.
 * A table never moves between the two, so every series stays a monotonic counter.
 */
export class TableSeries {
  private readonly admitted = new WeakMap<JobMaster, Set<string>>();

  constructor(readonly limit: number = DEFAULT_MAX_TABLE_SERIES) {}

  /** The job's tables as their series: own ones first, then `_other` when any was folded. */
  series(job: JobMaster, tables: ReadonlyMap<string, TableCounters>): { series: Array<[string, TableCounters]>; folded: number } {
    let own = this.admitted.get(job);
    if (!own) this.admitted.set(job, (own = new Set()));
    const series: Array<[string, TableCounters]> = [];
    const other: TableCounters = { sourceReceivedCount: 0, sinkWriteCount: 0, sourceReceivedBytes: 0, sinkWriteBytes: 0 };
    let folded = 0;
    for (const [table, c] of tables) {
      if (!own.has(table) && own.size < this.limit) own.add(table);
      if (own.has(table)) {
        series.push([table, c]);
        continue;
      }
      folded++;
      other.sourceReceivedCount += c.sourceReceivedCount;
      other.sinkWriteCount += c.sinkWriteCount;
      other.sourceReceivedBytes += c.sourceReceivedBytes;
      other.sinkWriteBytes += c.sinkWriteBytes;
    }
    if (folded > 0) series.push([OTHER_TABLES, other]);
    return { series, folded };
  }
}
