import { randomUUID } from 'node:crypto';

/**
 * File and folder name expressions of SeaTunnel's file sinks: `${name}` variables replaced
 * from a map, unknown ones left as written (Commons Text StringSubstitutor behaviour).
 */
export function substituteVariables(expression: string, values: Readonly<Record<string, string>>): string {
  return expression.replace(/\$\{([^}]*)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * SeaTunnel's table placeholders of multi-table sinks (TablePlaceholder): ${database_name},
 * ${schema_name} and ${table_name} replaced with the input table's; other `${...}` stay.
 */
export function substituteTablePlaceholders(
  expression: string,
  path: { readonly database?: string; readonly schema?: string; readonly table: string },
): string {
  return substituteVariables(expression, { database_name: path.database ?? '', schema_name: path.schema ?? '', table_name: path.table });
}

type Piece = string | ((d: Date) => string);

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

const LETTERS: Record<string, (d: Date, width: number) => string> = {
  y: (d, w) => (w === 2 ? pad(d.getFullYear() % 100, 2) : pad(d.getFullYear(), w)),
  M: (d, w) => pad(d.getMonth() + 1, w),
  d: (d, w) => pad(d.getDate(), w),
  H: (d, w) => pad(d.getHours(), w),
  m: (d, w) => pad(d.getMinutes(), w),
  s: (d, w) => pad(d.getSeconds(), w),
  S: (d, w) => pad(d.getMilliseconds(), 3).slice(0, w).padEnd(w, '0'),
};

/**
 * Compiles a Java DateTimeFormatter pattern (the letters y M d H m s S, 'quoted' literals,
 * anything else literal) into a function of the local time, as SeaTunnel formats `${now}`.
 */
export function compileTimePattern(pattern: string): (d: Date) => string {
  const pieces: Piece[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      const lit = end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end);
      pieces.push(lit === '' ? "'" : lit);
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    const fmt = LETTERS[c];
    let j = i;
    while (j < pattern.length && pattern[j] === c) j++;
    if (fmt) {
      const width = j - i;
      pieces.push((d) => fmt(d, width));
    } else pieces.push(pattern.slice(i, j));
    i = j;
  }
  return (d) => pieces.map((p) => (typeof p === 'string' ? p : p(d))).join('');
}

/** Builds file names: `<expression with variables>_<part><suffix>`, as SeaTunnel's AbstractWriteStrategy. */
export class FileNamer {
  private readonly now: (d: Date) => string;

  constructor(
    private readonly expression: string,
    private readonly timePattern: string,
    private readonly suffix: string,
  ) {
    this.now = compileTimePattern(timePattern);
  }

  name(transactionId: string, part: number, at: Date = new Date()): string {
    const now = this.now(at);
    const values: Record<string, string> = { transactionId, now, uuid: randomUUID(), [this.timePattern]: now };
    return `${substituteVariables(this.expression, values)}_${part}${this.suffix}`;
  }
}
