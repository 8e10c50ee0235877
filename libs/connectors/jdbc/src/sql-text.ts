/** Strips a trailing semicolon so a query can be wrapped as a subquery (`SELECT * FROM (q) t`). */
export function bareQuery(sql: string): string {
  return sql.trim().replace(/;+\s*$/, '');
}
