import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import type { DialectName } from './jdbc-url.js';

/**
 * The Jdbc sink's own `query`, ready to run per row: its parameters as the driver takes them
 * (`$1, $2, ...` for PostgreSQL, `?` for MySQL/MariaDB and SQLite) and, per parameter, the index of the row
 * field it takes.
 */
export interface SinkQuery {
  readonly sql: string;
  /** Row field index per parameter, in order. */
  readonly fields: readonly number[];
}

/**
 * Compiles a sink `query` against the input table's field names. Two styles, as SeaTunnel takes
 * them: JDBC's positional `?` (the row's fields in order) or named parameters `:field`
 * (SeaTunnel's FieldNamedPreparedStatement: each name is the row field of that name, a name may
 * appear more than once, in any order). Quoted text ('...', "...", `...`), comments (`--`, `/* *\/`)
 * and PostgreSQL's `::type` casts and `$tag$` quoting are left as written. Mixing both styles,
 * or naming a field the table does not have, is refused with the option named. `castOf` types
 * a PostgreSQL parameter as JDBC's setInt/setLong/setBoolean/setBigDecimal type theirs, so that
 * a parameter the server cannot type from its place (an argument of concat) works as in SeaTunnel.
 */
export function compileSinkQuery(
  query: string,
  fieldNames: readonly string[],
  dialect: DialectName,
  place: Place,
  castOf: (field: number) => string | undefined = () => undefined,
): SinkQuery {
  const out: string[] = [];
  const fields: number[] = [];
  let positional = 0;
  let named = 0;
  const param = (field: number) => {
    fields.push(field);
    const cast = castOf(field);
    out.push(dialect === 'postgresql' ? `$${fields.length}${cast ? `::${cast}` : ''}` : '?');
  };
  let i = 0;
  let start = 0;
  const flush = (to: number) => {
    out.push(query.slice(start, to));
  };
  while (i < query.length) {
    const c = query[i];
    if (c === "'" || c === '"' || c === '`') {
      i = quotedEnd(query, i, c);
    } else if (c === '-' && query[i + 1] === '-') {
      const nl = query.indexOf('\n', i);
      i = nl < 0 ? query.length : nl + 1;
    } else if (c === '/' && query[i + 1] === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end < 0 ? query.length : end + 2;
    } else if (c === '$' && dialect === 'postgresql' && /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.test(query.slice(i))) {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(query.slice(i))![0];
      const end = query.indexOf(tag, i + tag.length);
      i = end < 0 ? query.length : end + tag.length;
    } else if (c === ':' && query[i + 1] === ':') {
      i += 2;
    } else if (c === ':' && /[A-Za-z_]/.test(query[i + 1] ?? '') && query[i - 1] !== ':') {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i + 1))![0];
      const field = fieldNames.indexOf(name);
      if (field < 0) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `query names the parameter :${name}, but the input table has no field '${name}' (fields: ${fieldNames.join(', ')})`,
          { place },
        );
      }
      flush(i);
      param(field);
      named++;
      i += 1 + name.length;
      start = i;
    } else if (c === '?') {
      flush(i);
      param(positional);
      positional++;
      i++;
      start = i;
    } else {
      i++;
    }
  }
  flush(query.length);
  if (named > 0 && positional > 0) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'query mixes ? and :name parameters: use one style', { place });
  }
  if (positional > fieldNames.length) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `query has ${positional} ? parameters, but the input rows have ${fieldNames.length} fields`,
      { place },
    );
  }
  return { sql: out.join(''), fields };
}

/** The index after the quote that closes the one at `open` (a doubled quote or a backslash escapes it). */
function quotedEnd(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\' && quote !== '"') i++;
    else if (text[i] === quote) {
      if (text[i + 1] === quote) i++;
      else return i + 1;
    }
  }
  return text.length;
}
