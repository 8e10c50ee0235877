import { ErrorCode, TidewayError } from '@tideway/common';

/**
 * A request the REST API refuses: answered with SeaTunnel's error shape
 * `{"status": "fail", "message": ...}` and HTTP 400, having changed nothing.
 */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
  readonly statusCode = 400;
}

/** HTTP status for an error: 400 for what the caller sent (bad config, unknown job), 403 for another namespace's job, 500 otherwise. */
export function statusOf(err: unknown): number {
  if (err instanceof BadRequest) return 400;
  if (err instanceof TidewayError) {
    const c = err.code;
    if (
      c.startsWith('TW-CONFIG') ||
      c.startsWith('TW-SQL') ||
      c.startsWith('TW-SCHEMA') ||
      c === ErrorCode.NOT_FOUND ||
      c === ErrorCode.ILLEGAL_TRANSITION
    )
      return 400;
    if (c === ErrorCode.UNREACHABLE || c === ErrorCode.NO_ENOUGH_RESOURCE) return 503;
    if (c === ErrorCode.PERMISSION_DENIED) return 403;
  }
  const status = (err as { statusCode?: number }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** SeaTunnel's error body. */
export function failBody(message: string): { status: 'fail'; message: string } {
  return { status: 'fail', message };
}

/** Whether the coordinator answered that the job does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof TidewayError && err.code === ErrorCode.NOT_FOUND;
}
