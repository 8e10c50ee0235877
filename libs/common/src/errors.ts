import { textOf } from './text.js';
import { redactText } from './secrets.js';

/**
 * Typed errors with stable codes. A user sees `error.message`: one sentence that names the
 * place (file:line, option, job id). Codes never change meaning once published.
 */

/** Stable error codes, grouped by area. */
export const ErrorCode = {
  /** Malformed job config text (HOCON/JSON syntax). */
  CONFIG_SYNTAX: 'TW-CONFIG-001',
  /** A plugin name that no registered connector or transform has. */
  CONFIG_UNKNOWN_PLUGIN: 'TW-CONFIG-002',
  /** An option the plugin does not declare. */
  CONFIG_UNKNOWN_OPTION: 'TW-CONFIG-003',
  /** An option value of the wrong type or outside its allowed values. */
  CONFIG_BAD_VALUE: 'TW-CONFIG-004',
  /** A required option is missing. */
  CONFIG_MISSING_OPTION: 'TW-CONFIG-005',
  /** An unresolved `${var}` substitution. */
  CONFIG_UNRESOLVED_VARIABLE: 'TW-CONFIG-006',
  /** plugin_input / plugin_output wiring that does not connect. */
  CONFIG_WIRING: 'TW-CONFIG-007',
  /** A job config past a limit of tideway.limits: too many bytes, nested too deep, or too big once resolved. */
  CONFIG_TOO_LARGE: 'TW-CONFIG-008',
  /** Engine config (seatunnel.yaml shape) problems. */
  ENGINE_CONFIG: 'TW-CONFIG-010',
  /** A job config uses a plugin, or a local path, that its namespace's limits (tideway.auth.namespaces) do not allow. */
  CONFIG_NOT_ALLOWED: 'TW-CONFIG-011',
  /** A plugin package that cannot be used: it does not load, lacks its factory, is built for another plugin API, or reuses a plugin's name. */
  PLUGIN_PACKAGE: 'TW-CONFIG-012',
  /** A schema or type declaration that cannot be parsed. */
  SCHEMA: 'TW-SCHEMA-001',
  /** Not enough slots for a job. */
  NO_ENOUGH_RESOURCE: 'TW-RES-001',
  /** A job, pipeline or task that does not exist. */
  NOT_FOUND: 'TW-JOB-001',
  /** A state-machine transition that is not allowed. */
  ILLEGAL_TRANSITION: 'TW-STATE-001',
  /** A task failed while running. */
  TASK_FAILED: 'TW-TASK-001',
  /** An Assert sink rule failed. */
  ASSERT_FAILED: 'TW-ASSERT-001',
  /** A value could not be converted at run time (e.g. cast('abc' as int)). */
  VALUE_CONVERSION: 'TW-DATA-001',
  /** A Sql transform query that does not parse or does not type-check. */
  SQL: 'TW-SQL-001',
  /** The job was cancelled. */
  CANCELLED: 'TW-JOB-002',
  /** A service (coordinator, resource manager, worker) could not be reached at its address. */
  UNREACHABLE: 'TW-NET-001',
  /** An RPC from a coordinator whose leader epoch is stale. */
  STALE_EPOCH: 'TW-HA-001',
  /** A call that only the leader coordinator serves reached a follower (or no leader is elected yet). */
  NOT_LEADER: 'TW-HA-002',
  /** Checkpoint storage could not be read or written (I/O, permissions, network). */
  CHECKPOINT_STORAGE: 'TW-CKPT-001',
  /** A stored checkpoint failed its checksum or could not be decoded. */
  CHECKPOINT_CORRUPT: 'TW-CKPT-002',
  /** A connector's I/O against its external system failed (file, object store, database). */
  CONNECTOR_IO: 'TW-CONN-001',
  /** An external system (database, queue, store) refused or failed an operation: connection, login, SQL. */
  EXTERNAL_SYSTEM: 'TW-EXT-001',
  /** A column type that a connector cannot read or write. */
  UNSUPPORTED_TYPE: 'TW-EXT-002',
  /** A caller's token may not act on this job (another namespace) or call this method. */
  PERMISSION_DENIED: 'TW-AUTH-001',
  /** An RPC request that is malformed: a required field missing, a value of the wrong form. */
  BAD_REQUEST: 'TW-RPC-001',
  /**
   * A payload inside an RPC (task group descriptor, state, commit infos, split, source event) that
   * does not decode: another format version (a rolling upgrade half-way), garbage, or the wrong shape.
   */
  WIRE_PAYLOAD: 'TW-WIRE-001',
  /** Anything else: a bug. */
  INTERNAL: 'TW-INTERNAL-001',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Where in a job config something is: file, line and (optionally) the option name. */
export interface Place {
  file?: string;
  line?: number;
  option?: string;
  plugin?: string;
}

/** Formats a place as `file:line` (plus the plugin and option when known). */
export function formatPlace(place: Place): string {
  const parts: string[] = [];
  if (place.file !== undefined || place.line !== undefined) {
    parts.push(`${place.file ?? '<config>'}${place.line !== undefined ? `:${place.line}` : ''}`);
  }
  if (place.plugin) parts.push(`plugin ${place.plugin}`);
  if (place.option) parts.push(`option '${place.option}'`);
  return parts.join(', ');
}

export interface TidewayErrorOptions {
  /** Whether retrying the same operation may succeed. */
  retryable?: boolean;
  place?: Place;
  jobId?: string;
  cause?: unknown;
  details?: Record<string, unknown>;
}

/** Base class of every error Tideway raises on purpose. */
export class TidewayError extends Error {
  override readonly name: string = 'TidewayError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly place?: Place;
  readonly jobId?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: TidewayErrorOptions = {}) {
    const where = options.place ? formatPlace(options.place) : '';
    // Masked here so that no Tideway error carries a password into a log, status or answer.
    super(redactText(where ? `${where}: ${message}` : message), options.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.place = options.place;
    this.jobId = options.jobId;
    this.details = options.details;
  }

  /** A plain object that survives structured clone / JSON (worker threads, gRPC details). */
  toJSON(): SerializedError {
    return { code: this.code, message: this.message, retryable: this.retryable, name: this.name };
  }
}

/** A config error: the message starts with file:line. */
export class ConfigError extends TidewayError {
  override readonly name = 'ConfigError';
}

/** A state-machine transition that the transition table does not allow. */
export class IllegalTransitionError extends TidewayError {
  override readonly name = 'IllegalTransitionError';
  constructor(machine: string, from: string, to: string) {
    super(ErrorCode.ILLEGAL_TRANSITION, `${machine} cannot go from ${from} to ${to}`);
  }
}

/** Not enough slots to run a job. */
export class NoEnoughResourceError extends TidewayError {
  override readonly name = 'NoEnoughResourceError';
}

/** A value that fails to convert at run time. */
export class ValueConversionError extends TidewayError {
  override readonly name = 'ValueConversionError';
}

/** The shape in which an error crosses a thread or process boundary. */
export interface SerializedError {
  code: string;
  message: string;
  retryable: boolean;
  name?: string;
}

/** Turns anything thrown into a SerializedError, keeping codes of Tideway errors. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof TidewayError) return err.toJSON();
  if (err instanceof Error) return { code: ErrorCode.INTERNAL, message: redactText(err.message), retryable: false, name: err.name };
  return { code: ErrorCode.INTERNAL, message: redactText(String(err)), retryable: false };
}

/** Rebuilds a TidewayError from its serialized shape. */
export function deserializeError(e: SerializedError): TidewayError {
  return new TidewayError((e.code as ErrorCode) ?? ErrorCode.INTERNAL, e.message, { retryable: e.retryable });
}

/**
 * What was thrown or emitted, as an Error: an Error as it is, anything else wrapped once (its
 * text as the message, the value itself as `cause`). For errors kept to be rethrown later.
 */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(textOf(value), { cause: value });
}
