import { ConfigError, ErrorCode } from '@tideway/common';

/**
 * A ConfigError for malformed text, located at `file:line:column`. The place keeps file and
 * line (for tools); the column is in the message and in `details.column`.
 */
export function hoconSyntaxError(file: string, line: number, column: number, what: string): ConfigError {
  const err = new ConfigError(ErrorCode.CONFIG_SYNTAX, what, { place: { file, line }, details: { column } });
  err.message = `${file}:${line}:${column}: ${what}`;
  return err;
}

/** A ConfigError at `file:line` with any code (values, substitutions). */
export function configErrorAt(code: ErrorCode, file: string, line: number | undefined, message: string): ConfigError {
  return new ConfigError(code, message, { place: { file, line } });
}
