import type { CatalogTable, Row, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError, textOf } from '@tideway/common';
import type { CompiledCheck } from './field-check.js';

/** What a writer reports at each checkpoint: rows per table since its previous report. */
export interface AssertCommitInfo {
  readonly checkpointId: number;
  readonly subtask: number;
  readonly counts: Record<string, number>;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `bytes(${Buffer.from(v).toString('base64')})`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${show(k)}=${show(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  return textOf(v);
}

/**
 * Checks field rules on every row and counts rows per table. Row-count rules are global across
 * parallel writers, so the counts go to the aggregated committer through prepareCommit.
 */
export class AssertSinkWriter implements SinkWriter<AssertCommitInfo, never> {
  private counts = new Map<string, number>();

  constructor(
    private readonly subtask: number,
    /** Compiled field rules per table id. */
    private readonly checks: ReadonlyMap<string, readonly CompiledCheck[]>,
    private readonly tables: ReadonlyMap<string, CatalogTable>,
  ) {}

  write(rows: readonly Row[]): void {
    let lastTable = '';
    let checks: readonly CompiledCheck[] | undefined;
    let count = 0;
    for (const row of rows) {
      if (row.tableId !== lastTable) {
        if (count > 0) this.counts.set(lastTable, (this.counts.get(lastTable) ?? 0) + count);
        lastTable = row.tableId;
        checks = this.checks.get(lastTable);
        count = 0;
      }
      count++;
      if (!checks) continue;
      for (const c of checks) {
        const value = row.fields[c.index];
        const rule = c.failing(value);
        if (rule !== undefined) {
          this.counts.set(lastTable, (this.counts.get(lastTable) ?? 0) + count);
          const cols = this.tables.get(lastTable)?.columns;
          const rowText = row.fields.map((v, i) => `${cols?.[i]?.name ?? i}=${show(v)}`).join(', ');
          throw new TidewayError(
            ErrorCode.ASSERT_FAILED,
            `Assert rule '${rule}' failed on field '${c.fieldName}' of table ${lastTable}: value ${show(value)} (row ${row.kind} ${rowText})`,
          );
        }
      }
    }
    if (count > 0) this.counts.set(lastTable, (this.counts.get(lastTable) ?? 0) + count);
  }

  prepareCommit(checkpointId: number): AssertCommitInfo {
    const counts = Object.fromEntries(this.counts);
    this.counts = new Map();
    return { checkpointId, subtask: this.subtask, counts };
  }

  close(): void {}
}
