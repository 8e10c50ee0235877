/**
 * Row-level error handling of the transform stage (env.transform_error_handler, mode LOG): a
 * batch whose transform throws a row-level error is transformed again row by row; each row that
 * throws a row-level error is dropped and logged, and counted for its vertex; past
 * max_error_records or max_error_ratio the task fails naming the row. Any other error (not a
 * value that does not convert) fails the task as before: it is never counted as a bad row.
 */
import type { Row } from '@tideway/api';
import { ErrorCode, TidewayError, logger } from '@tideway/common';
import type { ErrorHandlerConfig } from '@tideway/config';

/** The transform stage's policy (env.transform_error_handler with mode LOG), as the planner puts it in the descriptor. */
export type RowErrorPolicy = Omit<ErrorHandlerConfig, 'mode'> & { readonly mode: 'LOG' };

/** Rows a vertex has seen and dropped: checkpointed, so a restore does not reset the allowance. */
export interface RowErrorCounts {
  seen: number;
  bad: number;
}

/**
 * A row-level error: a value that does not convert (ErrorCode.VALUE_CONVERSION, the Sql
 * transform's casts and arithmetic, JsonPath's conversions). Everything else, a server away, a
 * timeout, a bug, is a system error.
 */
export function isRowLevelError(err: unknown): boolean {
  return err instanceof TidewayError && err.code === ErrorCode.VALUE_CONVERSION;
}

const log = logger('row-errors');

function showRow(row: Row, max: number): string {
  const text = JSON.stringify(row.fields, (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? `<${v.byteLength} bytes>` : v,
  );
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

export class RowErrorGuard {
  readonly counts: RowErrorCounts;

  constructor(
    private readonly policy: RowErrorPolicy,
    private readonly jobId: string,
    private readonly vertexId: number,
    /** The transform as a user finds it: `Sql (job.conf:12)`. */
    private readonly where: string,
    restored?: RowErrorCounts,
  ) {
    this.counts = { seen: restored?.seen ?? 0, bad: restored?.bad ?? 0 };
  }

  /** Transforms `rows` with `fn`, dropping (and counting) the rows that throw a row-level error. */
  apply(rows: readonly Row[], fn: (rows: readonly Row[]) => Row[]): Row[] {
    this.counts.seen += rows.length;
    try {
      return fn(rows);
    } catch (err) {
      if (!isRowLevelError(err)) throw err;
    }
    const out: Row[] = [];
    for (let i = 0; i < rows.length; i++) {
      try {
        out.push(...fn([rows[i]]));
      } catch (err) {
        if (!isRowLevelError(err)) throw err;
        this.drop(rows[i], err as Error);
      }
    }
    return out;
  }

  private drop(row: Row, err: Error): void {
    this.counts.bad++;
    const p = this.policy;
    const { seen, bad } = this.counts;
    const place = `${this.where}, vertex ${this.vertexId}: a row of table ${row.tableId}${p.includeOriginalData ? ` ${showRow(row, p.originalDataMaxLength)}` : ''}`;
    log.warn(
      {
        jobId: this.jobId,
        vertexId: this.vertexId,
        table: row.tableId,
        badRows: bad,
        ...(p.includeOriginalData ? { row: showRow(row, p.originalDataMaxLength) } : {}),
        ...(p.includeStacktrace ? { stack: err.stack } : {}),
      },
      `bad row dropped (${p.setBy} = LOG): ${err.message}`,
    );
    const overCount = p.maxErrorRecords > 0 && bad > p.maxErrorRecords;
    const overRatio = p.maxErrorRatio > 0 && seen >= p.maxErrorRatioMinRecords && bad / seen > p.maxErrorRatio;
    if (!overCount && !overRatio) return;
    const limit = overCount
      ? `more than max_error_records = ${p.maxErrorRecords}`
      : `${bad} of ${seen} rows, more than max_error_ratio = ${p.maxErrorRatio}`;
    // A data error, as the row's own: the job fails without restoring (a restore would meet the same rows again).
    throw new TidewayError(ErrorCode.VALUE_CONVERSION, `${bad} bad rows (${limit}, ${p.setBy} = LOG); the last, ${place}: ${err.message}`, {
      jobId: this.jobId,
      cause: err,
    });
  }
}
