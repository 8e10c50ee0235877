import type { DataType } from '@tideway/api';

/** Evaluates an expression against one row's fields. */
export type Evaluator = (fields: unknown[]) => unknown;

/** An expression compiled once per query: its inferred type and its closure. */
export interface Compiled {
  readonly type: DataType;
  readonly nullable: boolean;
  readonly ev: Evaluator;
  /** The expression as written in the query (for error messages). */
  readonly text: string;
  /** Set when the expression is a literal (so functions can precompute, e.g. regexes). */
  readonly constant?: { value: unknown };
}

/**
 * A value that fails at run time (a bad cast, division by zero, an invalid pattern): the
 * transform adds the expression and the table before it fails the job.
 */
export class SqlValueError extends Error {
  override readonly name = 'SqlValueError';
}
