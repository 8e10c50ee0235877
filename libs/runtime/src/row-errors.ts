/**
 * Row-level error handling of the transform stage (env.transform_error_handler, mode LOG or
 * ROUTE): a batch whose transform throws a row-level error is transformed again row by row; each
 * row that throws a row-level error is dropped and logged, and counted for its vertex; with ROUTE
 * it also becomes an error row (SeaTunnel's error table) for the dead-letter sink, which the
 * task writes before the batch's good rows go on. Past max_error_records or max_error_ratio the
 * task fails naming the row. Any other error (not a value that does not convert) fails the task
 * as before: it is never counted as a bad row.
 */
import { RowKind, type Row } from '@tideway/api';
import { ErrorCode, TidewayError, logger } from '@tideway/common';
import type { ErrorHandlerConfig, QueueOverflowPolicy } from '@tideway/config';

/** The transform stage's policy (env.transform_error_handler with mode LOG or ROUTE), as the planner puts it in the descriptor. */
export type RowErrorPolicy = Omit<ErrorHandlerConfig, 'mode' | 'route'> & {
  readonly mode: 'LOG' | 'ROUTE';
  /** ROUTE: bad rows one batch may hold for the dead-letter sink, and what happens past that. */
  readonly queueCapacity?: number;
  readonly queueOverflowPolicy?: QueueOverflowPolicy;
};

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

/** A timestamp value (no zone) of the UTC time now, as the engine's rows carry one. */
function utcTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

/** What the error row says of an error's kind: its class, and the engine's code when it has one. */
function errorClass(err: Error): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${err.name}[${code}]` : err.name;
}

const MAX_MESSAGE = 4096;

export class RowErrorGuard {
  readonly counts: RowErrorCounts;
  /** ROUTE: the error rows of the current batch, for the dead-letter sink. */
  private routed: Row[] = [];

  constructor(
    private readonly policy: RowErrorPolicy,
    private readonly jobId: string,
    private readonly vertexId: number,
    /** The transform as a user finds it: `Sql (job.conf:12)`. */
    private readonly where: string,
    restored?: RowErrorCounts,
    /** ROUTE: the transform's or sink's plugin name and the dead-letter sink's table id. */
    private readonly route?: { pluginName: string; tableId: string },
    /** Where the rows fail: a transform, or a sink that refuses them (env.sink_error_handler). */
    private readonly stage: 'TRANSFORM' | 'SINK' = 'TRANSFORM',
  ) {
    this.counts = { seen: restored?.seen ?? 0, bad: restored?.bad ?? 0 };
  }

  /** A limit a sink's rejected row passed: thrown by check(), after the sink's call returned. */
  private failure?: Error;

  /** Rows given to the sink (what max_error_ratio divides by). */
  saw(rows: number): void {
    this.counts.seen += rows;
  }

  /**
   * A row the sink refused for itself (SinkWriter.handleRowErrors): counted, logged and, with
   * ROUTE, held for the dead-letter sink. Never throws (the sink calls it in the middle of its
   * work); a limit it passes is thrown by the next check().
   */
  reject(row: Row, err: Error): void {
    try {
      this.drop(row, err);
    } catch (limit) {
      this.failure ??= limit as Error;
    }
  }

  /** Throws the limit a rejected row passed, if one did. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * ROUTE: the error rows of the batch just transformed, in parts of at most queue_capacity
   * (BLOCK), all of them while they fit, the first queue_capacity (DROP, the rest logged), or a
   * failure naming the limit (FAIL). Empty with LOG.
   */
  takeRouted(): Row[][] {
    if (this.routed.length === 0) return [];
    const rows = this.routed;
    this.routed = [];
    const capacity = this.policy.queueCapacity ?? Number.MAX_SAFE_INTEGER;
    if (rows.length <= capacity) return [rows];
    switch (this.policy.queueOverflowPolicy ?? 'FAIL') {
      case 'BLOCK': {
        const parts: Row[][] = [];
        for (let i = 0; i < rows.length; i += capacity) parts.push(rows.slice(i, i + capacity));
        return parts;
      }
      case 'DROP':
        log.warn(
          { jobId: this.jobId, vertexId: this.vertexId, dropped: rows.length - capacity },
          `${rows.length - capacity} bad rows of one batch not routed: more than queue_capacity = ${capacity} (queue_overflow_policy = DROP); they are logged above`,
        );
        return [rows.slice(0, capacity)];
      default:
        throw new TidewayError(
          ErrorCode.VALUE_CONVERSION,
          `${rows.length} bad rows in one batch of ${this.where}, vertex ${this.vertexId}: more than queue_capacity = ${capacity} (queue_overflow_policy = FAIL); raise queue_capacity, or set queue_overflow_policy = BLOCK`,
          { jobId: this.jobId },
        );
    }
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
    const shown = p.includeOriginalData ? showRow(row, p.originalDataMaxLength) : undefined;
    const place = `${this.where}, vertex ${this.vertexId}: a row of table ${row.tableId}${shown !== undefined ? ` ${shown}` : ''}`;
    if (this.route)
      this.routed.push({
        kind: RowKind.INSERT,
        tableId: this.route.tableId,
        fields: [
          this.stage,
          this.stage,
          this.route.pluginName,
          row.tableId,
          /^\d+$/.test(this.jobId) ? BigInt(this.jobId) : null,
          err.message.length > MAX_MESSAGE ? `${err.message.slice(0, MAX_MESSAGE)}...` : err.message,
          errorClass(err),
          p.includeStacktrace ? (err.stack ?? null) : null,
          shown ?? null,
          utcTimestamp(Date.now()),
        ],
      });
    log.warn(
      {
        jobId: this.jobId,
        vertexId: this.vertexId,
        table: row.tableId,
        badRows: bad,
        ...(p.includeOriginalData ? { row: showRow(row, p.originalDataMaxLength) } : {}),
        ...(p.includeStacktrace ? { stack: err.stack } : {}),
      },
      `bad row ${p.mode === 'ROUTE' ? 'routed to the dead-letter sink' : 'dropped'} (${p.setBy} = ${p.mode}): ${err.message}`,
    );
    const overCount = p.maxErrorRecords > 0 && bad > p.maxErrorRecords;
    const overRatio = p.maxErrorRatio > 0 && seen >= p.maxErrorRatioMinRecords && bad / seen > p.maxErrorRatio;
    if (!overCount && !overRatio) return;
    const limit = overCount
      ? `more than max_error_records = ${p.maxErrorRecords}`
      : `${bad} of ${seen} rows, more than max_error_ratio = ${p.maxErrorRatio}`;
    // A data error, as the row's own: the job fails without restoring (a restore would meet the same rows again).
    throw new TidewayError(
      ErrorCode.VALUE_CONVERSION,
      `${bad} bad rows (${limit}, ${p.setBy} = ${p.mode}); the last, ${place}: ${err.message}`,
      {
        jobId: this.jobId,
        cause: err,
      },
    );
  }
}
