/** Strips a trailing semicolon so a query can be wrapped as a subquery (`SELECT * FROM (q) t`). */
export function bareQuery(sql: string): string {
  return sql.trim().replace(/;+\s*$/, '');
}

/** A value bound as a list, as mysql2 does: an array of tuples or of values (not a byte array). */
export function isList(v: unknown): v is unknown[] {
  return Array.isArray(v);
}

/**
 * Expands list parameters the way the sink's statements are written for mysql2 (`VALUES ?` with
 * an array of row arrays, `IN (?)` with an array of keys): `?` with an array of arrays becomes
 * `(?, ?), (?, ?)`, with an array of values `?, ?`. Only `?` outside quotes counts.
 */
export function expandListParams(sql: string, params: readonly unknown[]): { sql: string; params: unknown[] } {
  if (!params.some(isList)) return { sql, params: [...params] };
  const out: unknown[] = [];
  let n = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (tok) => {
    if (tok !== '?') return tok;
    const p = params[n++];
    if (!isList(p)) {
      out.push(p);
      return '?';
    }
    return p
      .map((item) => {
        if (!isList(item)) {
          out.push(item);
          return '?';
        }
        out.push(...item);
        return `(${item.map(() => '?').join(', ')})`;
      })
      .join(', ');
  });
  return { sql: text, params: out };
}
