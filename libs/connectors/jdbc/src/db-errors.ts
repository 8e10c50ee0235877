import { ErrorCode, TidewayError, type Place } from '@tideway/common';

interface DriverError {
  code?: string | number;
  /** PostgreSQL: more about the error, and where (e.g. the COPY line and column). */
  detail?: string;
  where?: string;
  errno?: number;
  message?: string;
  address?: string;
  port?: number;
}

/** Error codes of a connection that failed or dropped: a retry may succeed. */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  '57P01',
  '08006',
  '08001',
  '40001',
  '40P01',
  'SQLITE_BUSY',
]);

/**
 * Driver error codes that the same job meets again after a restart: a refused login, a missing
 * database or table. They carry a configuration or schema code, so that failover fails the job
 * at once with the cause instead of restarting it (job.retry.times) into the same error.
 */
const CONFIG_CODES = new Set([
  '28P01',
  '28000',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  '3D000',
  'ER_BAD_DB_ERROR',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_READONLY',
]);
const SCHEMA_CODES = new Set(['42P01', 'ER_NO_SUCH_TABLE']);

/** The error code a driver error is reported under. */
export function errorCodeOf(driverCode: string): ErrorCode {
  if (CONFIG_CODES.has(driverCode)) return ErrorCode.CONFIG_BAD_VALUE;
  if (SCHEMA_CODES.has(driverCode)) return ErrorCode.SCHEMA;
  return ErrorCode.EXTERNAL_SYSTEM;
}

/** One sentence for a driver error, naming what the database refused. */
export function describeDbError(err: unknown, login?: { user?: string; host?: string; port?: number }): string {
  const e = (err ?? {}) as DriverError;
  const code = e.code === undefined ? undefined : String(e.code);
  const msg = (e.message ?? String(err)).split('\n')[0];
  switch (code) {
    case '28P01':
    case '28000':
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
      return `the database refused the login of user '${login?.user ?? ''}' (wrong user or password): ${msg}`;
    case '42P01':
    case 'ER_NO_SUCH_TABLE':
      return `a table does not exist: ${msg}`;
    case '3D000':
    case 'ER_BAD_DB_ERROR':
      return `the database does not exist: ${msg}`;
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${login?.host ?? e.address}:${login?.port ?? e.port}`;
    case 'ETIMEDOUT':
      return `connecting to ${login?.host}:${login?.port} timed out`;
    default: {
      const more = [e.detail, e.where].filter((x) => x !== undefined && x !== '').join('; ');
      return `${msg}${more ? ` (${more})` : ''}${code ? ` [${code}]` : ''}`;
    }
  }
}

/** Wraps a driver error as a TidewayError: `<what> failed: <reason>`, with the place. */
export function externalError(
  what: string,
  err: unknown,
  place: Place,
  login?: { user?: string; host?: string; port?: number },
): TidewayError {
  if (err instanceof TidewayError) return err;
  const code = String((err as DriverError)?.code ?? '');
  return new TidewayError(errorCodeOf(code), `${what} failed: ${describeDbError(err, login)}`, {
    place,
    cause: err,
    retryable: RETRYABLE.has(code),
    details: { driverCode: code },
  });
}

/** Whether an error says an XA / prepared transaction id is unknown (already committed or rolled back). */
export function isUnknownXid(err: unknown): boolean {
  const e = (err ?? {}) as DriverError;
  // PostgreSQL: 42704 "prepared transaction with identifier ... does not exist";
  // MySQL/MariaDB: 1397 XAER_NOTA "Unknown XID".
  return e.code === '42704' || e.errno === 1397 || e.code === 'ER_XAER_NOTA';
}

/**
 * The SQLSTATE of a driver error: PostgreSQL's `code`, MySQL/MariaDB's `sqlState` (mysql2's
 * `code` is the ER_ name); undefined when it has none (a lost connection, a timeout).
 */
function sqlStateOf(err: unknown): string | undefined {
  const e = (err ?? {}) as DriverError & { sqlState?: unknown };
  if (typeof e.sqlState === 'string') return e.sqlState;
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && /\d/.test(e.code) ? e.code : undefined;
}

/**
 * Firebird's main GDS codes (node-firebird's err.gdscode; its SQLSTATE is not set apart) of a
 * row's own refusal, the codes of SQLSTATE classes 22 and 23 as the other dialects judge them:
 * arithmetic overflow or string truncation (isc_arith_except, integer and float overflow),
 * a conversion error from string, a date out of range; a NOT NULL or domain validation
 * (isc_not_valid, isc_not_valid_for, isc_not_valid_for_var), a duplicate (isc_no_dup,
 * isc_unique_key_violation), a foreign key and a CHECK constraint.
 */
const FIREBIRD_ROW_CODES = new Set([
  335544321, // isc_arith_except (22003, 22001)
  335544334, // isc_convert_error (22018)
  335544347, // isc_not_valid (23000)
  335544349, // isc_no_dup (23000)
  335544466, // isc_foreign_key (23000)
  335544558, // isc_check_constraint (23000)
  335544665, // isc_unique_key_violation (23000)
  335544775, // isc_exception_float_overflow (22003)
  335544779, // isc_exception_integer_overflow (22003)
  335544810, // isc_date_range_exceeded (22008)
  335544879, // isc_not_valid_for_var (23000)
  335544880, // isc_not_valid_for (23000)
]);

/** isc_dsql_error: a statement's error whose cause follows in the status vector, of which node-firebird keeps the text. */
const FIREBIRD_DSQL_ERROR = 335544569;

/**
 * The SQLCODEs of a row's own refusal, read from an isc_dsql_error's text ("SQL error code =
 * -303"): -303 and -413 a value that does not convert or fit its parameter (string truncation,
 * numeric overflow), -802 arithmetic overflow, -625 a NOT NULL or domain validation, -803 a
 * duplicate, -530 a foreign key, -297 a CHECK. Others (-204 a table, -206 a column unknown, -551
 * no privilege, -901 the connection, -913 a deadlock) are not the row's.
 */
const FIREBIRD_ROW_SQLCODES = new Set([-303, -413, -802, -625, -803, -530, -297]);

/** node-firebird's main GDS code of an error, if it has one. */
function gdsCodeOf(err: unknown): number | undefined {
  const code = (err as { gdscode?: unknown } | undefined)?.gdscode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Whether the database refused a row for the row's own sake, as SeaTunnel's Jdbc sink judges it:
 * SQLSTATE class 22 (data exception: a value too long, out of range, not of its type) or 23
 * (integrity constraint violation: a duplicate key, a null in a NOT NULL column, a failed CHECK
 * or foreign key); Firebird's GDS codes of the same (FIREBIRD_ROW_CODES); SQLite's constraint and type errors; a value Tideway could not convert for the
 * column. Anything else (the server away, a timeout, a missing table, no privilege) is not.
 */
export function isRowLevelDbError(err: unknown): boolean {
  if (err instanceof TidewayError) return err.code === ErrorCode.VALUE_CONVERSION;
  const gds = gdsCodeOf(err);
  if (gds === FIREBIRD_DSQL_ERROR) {
    const sqlCode = /SQL error code = (-\d+)/.exec((err as Error).message ?? '')?.[1];
    return sqlCode !== undefined && FIREBIRD_ROW_SQLCODES.has(Number(sqlCode));
  }
  if (gds !== undefined) return FIREBIRD_ROW_CODES.has(gds);
  const state = sqlStateOf(err);
  if (state !== undefined) return state.startsWith('22') || state.startsWith('23');
  const code = (err as DriverError | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG');
}

/** A row-level driver error as the error a rejected row carries: one sentence, the SQLSTATE as its code. */
export function rowLevelError(err: unknown): Error {
  if (err instanceof Error && err instanceof TidewayError) return err;
  const rejected = new Error(describeDbError(err));
  rejected.name = 'DatabaseError';
  const state = sqlStateOf(err) ?? (err as DriverError | undefined)?.code ?? gdsCodeOf(err);
  if (state !== undefined) Object.assign(rejected, { code: String(state) });
  return rejected;
}
