import { ErrorCode, TidewayError, type Place } from '@tideway/common';

/** Line and column (1-based) of an offset in a query. */
export function lineColumn(sql: string, pos: number): { line: number; column: number } {
  let line = 1;
  let col = 1;
  for (let i = 0; i < pos && i < sql.length; i++) {
    if (sql[i] === '\n') {
      line++;
      col = 1;
    } else col++;
  }
  return { line, column: col };
}

/**
 * A query that does not parse or type-check: the message names the position in the query and
 * shows the text there, so the user finds the spot without counting characters.
 */
export class SqlError extends TidewayError {
  override readonly name = 'SqlError';
  readonly pos: number;
  /** The message without position and place. */
  readonly reason: string;

  constructor(message: string, sql: string, pos: number, place?: Place) {
    const { line, column } = lineColumn(sql, pos);
    const near = sql.slice(pos, pos + 24).replace(/\s+/g, ' ');
    super(ErrorCode.SQL, `${message} at line ${line}, column ${column} of the query${near ? ` (near '${near}')` : ''}`, {
      place,
      details: { pos, line, column },
    });
    this.pos = pos;
    this.reason = message;
  }

  /** The same error, placed in the job config (file:line, plugin, option). */
  at(sql: string, place: Place): SqlError {
    return new SqlError(this.reason, sql, this.pos, place);
  }
}
