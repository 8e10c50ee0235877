/**
 * A parser for the DDL statements the binlog carries about captured tables, after MySQL's and
 * MariaDB's ALTER TABLE grammar: column additions, drops, renames, CHANGE and MODIFY (with their
 * full column definitions, kept as the source wrote them), ALTER COLUMN ... SET/DROP DEFAULT.
 * Index, key and table-option clauses change no row and are skipped. Anything else about a
 * captured table (RENAME TABLE, DROP TABLE, TRUNCATE, CONVERT TO CHARACTER SET, generated
 * columns) is reported as unsupported by the caller, in one sentence.
 */

/** A column definition as written: `varchar(64) not null default 'yy' comment 'x'`. */
export interface ColumnDefinition {
  readonly name: string;
  /** The type with its parameters and attributes that belong to it, lower-cased (`int unsigned`, `varchar(64)`, `enum('a','B')` keeps its values). */
  readonly type: string;
  readonly nullable: boolean;
  /** The default as written (`'yy'`, `1`, `current_timestamp()`), absent: none. */
  readonly defaultExpression?: string;
  readonly comment?: string;
  /** CHARACTER SET named in the definition, if any. */
  readonly charset?: string;
  readonly primaryKey: boolean;
}

export type DdlColumnChange =
  | { readonly kind: 'add'; readonly column: ColumnDefinition; readonly after?: string; readonly first?: boolean }
  | { readonly kind: 'drop'; readonly name: string }
  | { readonly kind: 'rename'; readonly from: string; readonly to: string }
  | { readonly kind: 'change'; readonly from: string; readonly column: ColumnDefinition; readonly after?: string; readonly first?: boolean }
  | { readonly kind: 'default'; readonly name: string; readonly defaultExpression?: string };

/** What a DDL statement does to one table. */
export type ParsedDdl =
  | {
      readonly kind: 'alter';
      readonly database?: string;
      readonly table: string;
      readonly changes: readonly DdlColumnChange[];
      readonly unsupported?: string;
    }
  /** A statement naming tables that the parser does not follow (RENAME/DROP/TRUNCATE TABLE...): `what` says which. */
  | { readonly kind: 'other-table'; readonly tables: readonly { database?: string; table: string }[]; readonly what: string }
  | { readonly kind: 'none' };

interface Token {
  readonly kind: 'word' | 'quoted' | 'string' | 'number' | 'punct';
  readonly text: string;
  /** Identifier or keyword value (unquoted); for strings the raw text. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

/** A string literal's value. */
function unquote(text: string): string {
  const q = text[0];
  if (q !== "'" && q !== '"') return text;
  return text
    .slice(1, -1)
    .replace(/\\(.)/g, '$1')
    .replace(new RegExp(`${q}${q}`, 'g'), q);
}

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      continue;
    }
    if (ch === '#') {
      while (i < sql.length && sql[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      // MySQL's versioned comments (/*!50100 ... */) hold real clauses: read their inside.
      const close = sql.indexOf('*/', i + 2);
      const end = close < 0 ? sql.length : close;
      if (sql[i + 2] === '!') {
        const inner = sql.slice(i + 3, end).replace(/^\d{5,6}/, '');
        const offset = i + 3 + (sql.slice(i + 3, end).length - inner.length);
        for (const t of tokenize(inner)) out.push({ ...t, start: t.start + offset, end: t.end + offset });
      }
      i = end + 2;
      continue;
    }
    const start = i;
    if (ch === '`') {
      let v = '';
      i++;
      while (i < sql.length) {
        if (sql[i] === '`' && sql[i + 1] === '`') {
          v += '`';
          i += 2;
        } else if (sql[i] === '`') break;
        else v += sql[i++];
      }
      i++;
      out.push({ kind: 'quoted', text: sql.slice(start, i), value: v, start, end: i });
      continue;
    }
    if (ch === "'" || ch === '"') {
      i++;
      while (i < sql.length) {
        if (sql[i] === '\\') i += 2;
        else if (sql[i] === ch && sql[i + 1] === ch) i += 2;
        else if (sql[i] === ch) break;
        else i++;
      }
      i++;
      out.push({ kind: 'string', text: sql.slice(start, i), value: sql.slice(start, i), start, end: i });
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9.eE]/.test(sql[i])) i++;
      out.push({ kind: 'number', text: sql.slice(start, i), value: sql.slice(start, i), start, end: i });
      continue;
    }
    if (/[A-Za-z_$@\u0080-\uffff]/.test(ch)) {
      while (i < sql.length && /[A-Za-z0-9_$@\u0080-\uffff]/.test(sql[i])) i++;
      out.push({ kind: 'word', text: sql.slice(start, i), value: sql.slice(start, i), start, end: i });
      continue;
    }
    i++;
    out.push({ kind: 'punct', text: ch, value: ch, start, end: i });
  }
  return out;
}

/** Clause starts that add or drop something other than a column. */
const NON_COLUMN = new Set([
  'INDEX',
  'KEY',
  'UNIQUE',
  'PRIMARY',
  'CONSTRAINT',
  'FULLTEXT',
  'SPATIAL',
  'FOREIGN',
  'CHECK',
  'PERIOD',
  'SYSTEM',
  'PARTITION',
]);
/** Column attributes that end the type part of a definition. */
const ATTRIBUTE_WORDS = new Set([
  'NOT',
  'NULL',
  'DEFAULT',
  'AUTO_INCREMENT',
  'UNIQUE',
  'PRIMARY',
  'KEY',
  'COMMENT',
  'COLLATE',
  'ON',
  'INVISIBLE',
  'VISIBLE',
  'COLUMN_FORMAT',
  'STORAGE',
  'GENERATED',
  'AS',
  'CHECK',
  'REFERENCES',
  'FIRST',
  'AFTER',
  'CONSTRAINT',
  'SERIAL',
  'WITH',
  'WITHOUT',
  'ENGINE_ATTRIBUTE',
  'SECONDARY_ENGINE_ATTRIBUTE',
  'COMPRESSED',
  'PERSISTENT',
  'VIRTUAL',
  'STORED',
]);

class Parser {
  private pos = 0;
  constructor(
    private readonly sql: string,
    private readonly t: Token[],
  ) {}

  peek(offset = 0): Token | undefined {
    return this.t[this.pos + offset];
  }
  is(word: string, offset = 0): boolean {
    const k = this.peek(offset);
    return k !== undefined && k.kind === 'word' && k.value.toUpperCase() === word;
  }
  isPunct(p: string): boolean {
    const k = this.peek();
    return k !== undefined && k.kind === 'punct' && k.value === p;
  }
  accept(word: string): boolean {
    if (!this.is(word)) return false;
    this.pos++;
    return true;
  }
  acceptPunct(p: string): boolean {
    if (!this.isPunct(p)) return false;
    this.pos++;
    return true;
  }
  next(): Token {
    const k = this.t[this.pos++];
    if (!k) throw new Error('the statement ends too early');
    return k;
  }
  done(): boolean {
    return this.pos >= this.t.length || this.isPunct(';');
  }
  identifier(): string {
    const k = this.next();
    if (k.kind !== 'word' && k.kind !== 'quoted') throw new Error(`expected a name at '${k.text}'`);
    return k.value;
  }
  /** `db.table` or `table`. */
  tableName(): { database?: string; table: string } {
    const first = this.identifier();
    if (this.acceptPunct('.')) return { database: first, table: this.identifier() };
    return { table: first };
  }
  /** Skips to the next top-level comma (or the end). */
  skipClause(): void {
    let depth = 0;
    while (!this.done()) {
      if (this.isPunct('(')) depth++;
      else if (this.isPunct(')')) depth--;
      else if (depth === 0 && this.isPunct(',')) return;
      this.pos++;
    }
  }
  /** The text of a parenthesised group, the parentheses included. */
  group(): string {
    const start = this.peek()!.start;
    let depth = 0;
    for (;;) {
      const k = this.next();
      if (k.kind === 'punct' && k.value === '(') depth++;
      else if (k.kind === 'punct' && k.value === ')' && --depth === 0) return this.sql.slice(start, k.end);
    }
  }
  text(from: number, to: number): string {
    return this.sql.slice(from, to);
  }

  /** A column definition after its name. */
  definition(name: string): ColumnDefinition {
    const typeStart = this.peek()?.start ?? this.sql.length;
    let charset: string | undefined;
    const base = this.identifier().toLowerCase();
    let typeEnd = this.t[this.pos - 1].end;
    if (base === 'double' && this.is('PRECISION')) typeEnd = this.next().end;
    if (
      (base === 'character' || base === 'national' || base === 'long') &&
      this.peek()?.kind === 'word' &&
      !ATTRIBUTE_WORDS.has(this.peek()!.value.toUpperCase())
    )
      typeEnd = this.next().end;
    if (this.isPunct('(')) {
      this.group();
      typeEnd = this.t[this.pos - 1].end;
    }
    for (;;) {
      if (this.is('UNSIGNED') || this.is('SIGNED') || this.is('ZEROFILL') || this.is('BINARY')) typeEnd = this.next().end;
      else if ((this.is('CHARACTER') && this.is('SET', 1)) || this.is('CHARSET')) {
        if (this.accept('CHARACTER')) this.next();
        else this.next();
        charset = this.identifier().toLowerCase();
      } else break;
    }
    let type = this.text(typeStart, typeEnd).replace(/\s+/g, ' ');
    // Lower-case all but quoted enum/set values.
    type = type.replace(/('(?:[^'\\]|\\.|'')*')|[^']+/g, (m, q: string | undefined) => (q ? q : m.toLowerCase()));
    let nullable = true;
    let defaultExpression: string | undefined;
    let comment: string | undefined;
    let primaryKey = false;
    while (!this.done() && !this.isPunct(',') && !this.isPunct(')')) {
      if (this.is('FIRST') || this.is('AFTER')) break;
      if (this.accept('NOT')) {
        if (!this.accept('NULL')) throw new Error('expected NULL after NOT');
        nullable = false;
      } else if (this.accept('NULL')) nullable = true;
      else if (this.accept('DEFAULT')) defaultExpression = this.expression();
      else if (this.accept('COMMENT')) comment = unquote(this.next().text);
      else if (this.accept('COLLATE')) this.identifier();
      else if (this.is('CHARACTER') || this.is('CHARSET')) {
        if (this.accept('CHARACTER')) this.next();
        else this.next();
        charset = this.identifier().toLowerCase();
      } else if (this.accept('PRIMARY')) {
        this.accept('KEY');
        primaryKey = true;
        nullable = false;
      } else if (this.accept('UNIQUE')) this.accept('KEY');
      else if (this.accept('KEY')) {
        primaryKey = true;
        nullable = false;
      } else if (this.accept('ON')) {
        this.accept('UPDATE');
        this.expression();
      } else if (this.is('GENERATED') || this.is('AS')) throw new Error(`generated column ${name} is not supported`);
      else if (this.accept('AUTO_INCREMENT') || this.accept('INVISIBLE') || this.accept('VISIBLE')) continue;
      else if (this.accept('COLUMN_FORMAT') || this.accept('STORAGE')) this.identifier();
      else if (this.accept('CHECK')) this.group();
      else if (this.accept('CONSTRAINT')) {
        if (!this.is('CHECK')) this.identifier();
      } else if (this.accept('REFERENCES')) this.skipClause();
      else throw new Error(`unexpected '${this.peek()!.text}' in the definition of column ${name}`);
    }
    return {
      name,
      type,
      nullable,
      primaryKey,
      ...(defaultExpression !== undefined ? { defaultExpression } : {}),
      ...(comment !== undefined ? { comment } : {}),
      ...(charset !== undefined ? { charset } : {}),
    };
  }

  /** A default or ON UPDATE expression, as written. */
  expression(): string {
    const first = this.peek()!;
    if (first.kind === 'punct' && first.value === '(') return this.group();
    if (first.kind === 'punct' && (first.value === '-' || first.value === '+')) {
      this.pos++;
      const n = this.next();
      return this.text(first.start, n.end);
    }
    const k = this.next();
    if (k.kind === 'word' && this.isPunct('(')) {
      this.group();
      return this.text(k.start, this.t[this.pos - 1].end);
    }
    // b'0101', x'ff', _utf8mb4'..'
    if (k.kind === 'word' && this.peek()?.kind === 'string' && this.peek()!.start === k.end) return this.text(k.start, this.next().end);
    return k.text;
  }

  position(): { after?: string; first?: boolean } {
    if (this.accept('FIRST')) return { first: true };
    if (this.accept('AFTER')) return { after: this.identifier() };
    return {};
  }
}

/**
 * Parses one statement of a binlog Query event. `none`: not about tables (BEGIN, CREATE USER,
 * GRANT...). Throws an Error (with the statement's problem) for an ALTER TABLE it cannot read.
 */
export function parseDdl(sql: string): ParsedDdl {
  const p = new Parser(sql, tokenize(sql));
  if (p.accept('ALTER')) {
    p.accept('ONLINE');
    p.accept('OFFLINE');
    p.accept('IGNORE');
    if (!p.accept('TABLE')) return { kind: 'none' };
    if (p.accept('IF')) p.accept('EXISTS');
    const name = p.tableName();
    const changes: DdlColumnChange[] = [];
    let unsupported: string | undefined;
    while (!p.done()) {
      const clause = alterClause(p);
      if (clause === 'skip') p.skipClause();
      else if ('unsupported' in clause) {
        unsupported ??= clause.unsupported;
        p.skipClause();
      } else changes.push(...clause);
      if (!p.acceptPunct(',')) break;
    }
    return { kind: 'alter', ...name, changes, ...(unsupported ? { unsupported } : {}) };
  }
  if (p.accept('RENAME')) {
    if (!p.accept('TABLE') && !p.accept('TABLES')) return { kind: 'none' };
    const tables: { database?: string; table: string }[] = [];
    while (!p.done()) {
      tables.push(p.tableName());
      p.accept('TO');
      tables.push(p.tableName());
      if (!p.acceptPunct(',')) break;
    }
    return { kind: 'other-table', tables, what: 'RENAME TABLE' };
  }
  if (p.accept('DROP')) {
    p.accept('TEMPORARY');
    if (!p.accept('TABLE') && !p.accept('TABLES')) return { kind: 'none' };
    if (p.accept('IF')) p.accept('EXISTS');
    const tables: { database?: string; table: string }[] = [];
    while (!p.done()) {
      tables.push(p.tableName());
      if (!p.acceptPunct(',')) break;
    }
    return { kind: 'other-table', tables, what: 'DROP TABLE' };
  }
  if (p.accept('TRUNCATE')) {
    p.accept('TABLE');
    return { kind: 'other-table', tables: [p.tableName()], what: 'TRUNCATE TABLE' };
  }
  return { kind: 'none' };
}

/** One ALTER TABLE clause: column changes, 'skip' (no row changes), or a sentence why it is unsupported. */
function alterClause(p: Parser): DdlColumnChange[] | 'skip' | { unsupported: string } {
  if (p.accept('ADD')) {
    if (p.peek() && p.peek()!.kind === 'word' && NON_COLUMN.has(p.peek()!.value.toUpperCase())) return 'skip';
    p.accept('COLUMN');
    if (p.accept('IF')) {
      p.accept('NOT');
      p.accept('EXISTS');
    }
    if (p.acceptPunct('(')) {
      const out: DdlColumnChange[] = [];
      do {
        if (p.peek()?.kind === 'word' && NON_COLUMN.has(p.peek()!.value.toUpperCase())) {
          p.skipClause();
          continue;
        }
        out.push({ kind: 'add', column: p.definition(p.identifier()) });
      } while (p.acceptPunct(','));
      p.acceptPunct(')');
      return out;
    }
    const column = p.definition(p.identifier());
    return [{ kind: 'add', column, ...p.position() }];
  }
  if (p.accept('DROP')) {
    if (p.peek() && p.peek()!.kind === 'word' && NON_COLUMN.has(p.peek()!.value.toUpperCase())) return 'skip';
    p.accept('COLUMN');
    if (p.accept('IF')) p.accept('EXISTS');
    const name = p.identifier();
    p.accept('RESTRICT');
    p.accept('CASCADE');
    return [{ kind: 'drop', name }];
  }
  if (p.accept('RENAME')) {
    if (p.accept('COLUMN')) {
      if (p.accept('IF')) p.accept('EXISTS');
      const from = p.identifier();
      p.accept('TO');
      return [{ kind: 'rename', from, to: p.identifier() }];
    }
    if (p.is('INDEX') || p.is('KEY')) return 'skip';
    return { unsupported: 'RENAME TABLE (the table would leave the captured set) is not supported' };
  }
  if (p.accept('CHANGE')) {
    p.accept('COLUMN');
    if (p.accept('IF')) p.accept('EXISTS');
    const from = p.identifier();
    const column = p.definition(p.identifier());
    return [{ kind: 'change', from, column, ...p.position() }];
  }
  if (p.accept('MODIFY')) {
    p.accept('COLUMN');
    if (p.accept('IF')) p.accept('EXISTS');
    const name = p.identifier();
    const column = p.definition(name);
    return [{ kind: 'change', from: name, column, ...p.position() }];
  }
  if (p.accept('ALTER')) {
    if (p.is('INDEX') || p.is('CHECK') || p.is('CONSTRAINT')) return 'skip';
    p.accept('COLUMN');
    const name = p.identifier();
    if (p.accept('SET')) {
      if (p.accept('DEFAULT')) return [{ kind: 'default', name, defaultExpression: p.expression() }];
      return 'skip'; // SET VISIBLE / INVISIBLE
    }
    if (p.accept('DROP')) {
      p.accept('DEFAULT');
      return [{ kind: 'default', name }];
    }
    return 'skip';
  }
  if (p.accept('CONVERT')) return { unsupported: 'CONVERT TO CHARACTER SET (it rewrites every text column) is not supported' };
  if (p.is('PARTITION') || p.is('REMOVE') || p.is('COALESCE') || p.is('REORGANIZE') || p.is('EXCHANGE') || p.is('TRUNCATE')) {
    return p.is('TRUNCATE') || p.is('EXCHANGE')
      ? { unsupported: `${p.peek()!.value.toUpperCase()} PARTITION changes rows and is not supported` }
      : 'skip';
  }
  // Table options (ENGINE=, AUTO_INCREMENT=, COMMENT=, CHARSET=, ALGORITHM=, LOCK=, FORCE, ORDER BY, ...).
  return 'skip';
}
