import type { BinaryOp, CastType, Expr, SelectItem, SelectQuery } from './ast.js';
import { tokenize, type Token } from './lexer.js';
import { SqlError } from './sql-error.js';

/** Words that end an expression or a select item, so they are never taken as an alias. */
const RESERVED = new Set([
  'select',
  'from',
  'where',
  'as',
  'and',
  'or',
  'not',
  'in',
  'is',
  'like',
  'between',
  'case',
  'when',
  'then',
  'else',
  'end',
  'null',
  'true',
  'false',
  'group',
  'order',
  'limit',
  'join',
  'union',
  'having',
  'regexp',
  'rlike',
]);

/** Niladic functions SQL writes without parentheses. */
const BARE_FUNCTIONS = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp']);

/**
 * Parses one `SELECT items FROM table [WHERE condition]` query (SeaTunnel's Sql transform
 * dialect) into a tree with positions. Anything else (joins, GROUP BY, ORDER BY, sub-queries)
 * is rejected with the position, as SeaTunnel rejects it.
 */
export function parseSelect(sql: string): SelectQuery {
  return new Parser(sql).query();
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;

  constructor(private readonly sql: string) {
    this.tokens = tokenize(sql);
  }

  query(): SelectQuery {
    this.expectWord('select');
    const items: SelectItem[] = [this.selectItem()];
    while (this.acceptOp(',')) items.push(this.selectItem());
    this.expectWord('from');
    const tableTok = this.peek();
    const parts = [this.identifier('a table name')];
    while (this.acceptOp('.')) parts.push(this.identifier('a table name'));
    let where: Expr | undefined;
    if (this.acceptWord('where')) where = this.expr();
    this.acceptOp(';');
    const t = this.peek();
    if (t.kind !== 'eof') {
      const w = t.text.toLowerCase();
      const what = ['group', 'order', 'limit', 'join', 'left', 'right', 'inner', 'union', 'having'].includes(w)
        ? `${w.toUpperCase()} is not supported by the Sql transform`
        : t.kind === 'ident' || t.kind === 'quoted'
          ? 'table aliases and joins are not supported by the Sql transform'
          : `unexpected '${t.text}'`;
      throw this.error(what, t);
    }
    return { items, table: parts.join('.'), tablePos: tableTok.pos, where };
  }

  private selectItem(): SelectItem {
    const t = this.peek();
    if (t.kind === 'op' && t.text === '*') {
      this.i++;
      return { kind: 'star', pos: t.pos };
    }
    const expr = this.expr();
    let alias: string | undefined;
    if (this.acceptWord('as')) alias = this.identifier('an alias');
    else {
      const a = this.peek();
      if (a.kind === 'quoted' || (a.kind === 'ident' && !RESERVED.has(a.text.toLowerCase()))) alias = this.identifier('an alias');
    }
    return { kind: 'expr', expr, alias, pos: t.pos };
  }

  // ------------------------------------------------------------ expressions, by precedence

  expr(): Expr {
    return this.or();
  }

  private or(): Expr {
    let left = this.and();
    while (this.acceptWord('or')) left = this.bin('or', left, this.and());
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.acceptWord('and')) left = this.bin('and', left, this.not());
    return left;
  }

  private not(): Expr {
    const t = this.peek();
    if (this.acceptWord('not')) {
      const operand = this.not();
      return { kind: 'unary', op: 'not', operand, pos: t.pos, end: operand.end };
    }
    return this.predicate();
  }

  private predicate(): Expr {
    const left = this.additive();
    const t = this.peek();
    if (t.kind === 'op' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(t.text)) {
      this.i++;
      const op = (t.text === '<>' ? '!=' : t.text) as BinaryOp;
      return this.bin(op, left, this.additive());
    }
    if (this.acceptWord('is')) {
      const not = this.acceptWord('not');
      const n = this.peek();
      this.expectWord('null');
      return { kind: 'isnull', operand: left, not, pos: left.pos, end: n.pos + n.text.length };
    }
    const save = this.i;
    const not = this.acceptWord('not');
    if (this.acceptWord('in')) {
      this.expectOp('(');
      const items = [this.expr()];
      while (this.acceptOp(',')) items.push(this.expr());
      const close = this.expectOp(')');
      return { kind: 'in', operand: left, items, not, pos: left.pos, end: close.pos + 1 };
    }
    if (this.acceptWord('between')) {
      const low = this.additive();
      this.expectWord('and');
      const high = this.additive();
      return { kind: 'between', operand: left, low, high, not, pos: left.pos, end: high.end };
    }
    const likeTok = this.peek();
    if (this.acceptWord('like') || this.acceptWord('regexp') || this.acceptWord('rlike')) {
      const pattern = this.additive();
      const regexp = likeTok.text.toLowerCase() !== 'like';
      return { kind: 'like', operand: left, pattern, not, regexp, pos: left.pos, end: pattern.end };
    }
    this.i = save;
    return left;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && (t.text === '+' || t.text === '-' || t.text === '||')) {
        this.i++;
        left = this.bin(t.text, left, this.multiplicative());
      } else return left;
    }
  }

  private multiplicative(): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'op' && (t.text === '*' || t.text === '/' || t.text === '%')) {
        this.i++;
        left = this.bin(t.text, left, this.unary());
      } else return left;
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'op' && (t.text === '-' || t.text === '+')) {
      this.i++;
      const operand = this.unary();
      if (operand.kind === 'literal' && t.text === '-' && (typeof operand.value === 'number' || typeof operand.value === 'bigint')) {
        return negateLiteral(operand, t.pos);
      }
      return { kind: 'unary', op: t.text, operand, pos: t.pos, end: operand.end };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.acceptOp('[')) {
        const index = this.expr();
        const close = this.expectOp(']');
        e = { kind: 'index', target: e, index, pos: e.pos, end: close.pos + 1 };
      } else if (this.peek().kind === 'op' && this.peek().text === '.' && e.kind !== 'literal') {
        this.i++;
        const nameTok = this.peek();
        const name = this.identifier('a field name');
        const key: Expr = { kind: 'literal', literal: 'string', value: name, pos: nameTok.pos, end: this.prevEnd() };
        e =
          e.kind === 'column'
            ? { ...e, path: [...e.path, name], end: this.prevEnd() }
            : { kind: 'index', target: e, index: key, pos: e.pos, end: this.prevEnd() };
      } else return e;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    if (t.kind === 'number') {
      this.i++;
      return numberLiteral(t);
    }
    if (t.kind === 'string') {
      this.i++;
      return { kind: 'literal', literal: 'string', value: t.text, pos: t.pos, end: this.prevEnd() };
    }
    if (t.kind === 'op' && t.text === '(') {
      this.i++;
      const e = this.expr();
      this.expectOp(')');
      return e;
    }
    if (t.kind === 'quoted') {
      this.i++;
      return { kind: 'column', path: [t.text], pos: t.pos, end: this.prevEnd() };
    }
    if (t.kind !== 'ident')
      throw this.error(t.kind === 'eof' ? 'the query ends where an expression should be' : `unexpected '${t.text}'`, t);
    const word = t.text.toLowerCase();
    if (word === 'null' || word === 'true' || word === 'false') {
      this.i++;
      return word === 'null'
        ? { kind: 'literal', literal: 'null', value: null, pos: t.pos, end: this.prevEnd() }
        : { kind: 'literal', literal: 'boolean', value: word === 'true', pos: t.pos, end: this.prevEnd() };
    }
    if (word === 'case') return this.caseExpr();
    const next = this.tokens[this.i + 1];
    const call = next.kind === 'op' && next.text === '(';
    if (word === 'cast' && call) return this.castExpr();
    if (word === 'extract' && call) return this.extractExpr();
    if (call) {
      this.i += 2;
      const args: Expr[] = [];
      if (!this.acceptOp(')')) {
        args.push(this.expr());
        while (this.acceptOp(',')) args.push(this.expr());
        this.expectOp(')');
      }
      return { kind: 'call', name: word, args, pos: t.pos, end: this.prevEnd() };
    }
    if (RESERVED.has(word)) throw this.error(`unexpected keyword '${t.text}'`, t);
    this.i++;
    if (BARE_FUNCTIONS.has(word)) return { kind: 'call', name: word, args: [], pos: t.pos, end: this.prevEnd() };
    return { kind: 'column', path: [t.text], pos: t.pos, end: this.prevEnd() };
  }

  private caseExpr(): Expr {
    const start = this.peek().pos;
    this.i++;
    let subject: Expr | undefined;
    if (!(this.peek().kind === 'ident' && this.peek().text.toLowerCase() === 'when')) subject = this.expr();
    const whens: { when: Expr; then: Expr }[] = [];
    while (this.acceptWord('when')) {
      const when = this.expr();
      this.expectWord('then');
      whens.push({ when, then: this.expr() });
    }
    if (whens.length === 0) throw this.error('CASE needs at least one WHEN', this.peek());
    const otherwise = this.acceptWord('else') ? this.expr() : undefined;
    this.expectWord('end');
    return { kind: 'case', subject, whens, otherwise, pos: start, end: this.prevEnd() };
  }

  private castExpr(): Expr {
    const start = this.peek().pos;
    this.i += 2;
    const value = this.expr();
    if (!this.acceptWord('as')) throw this.error("CAST needs 'AS <type>'", this.peek());
    const typeTok = this.peek();
    const name = this.identifier('a type name');
    const params: number[] = [];
    if (this.acceptOp('(')) {
      do {
        const p = this.peek();
        if (p.kind !== 'number' || !/^\d+$/.test(p.text)) throw this.error('a type parameter must be a whole number', p);
        this.i++;
        params.push(Number(p.text));
      } while (this.acceptOp(','));
      this.expectOp(')');
    }
    this.expectOp(')');
    const type: CastType = { name: name.toUpperCase(), params, pos: typeTok.pos };
    return { kind: 'cast', value, type, pos: start, end: this.prevEnd() };
  }

  private extractExpr(): Expr {
    const start = this.peek().pos;
    this.i += 2;
    const field = this.identifier('a date/time field').toUpperCase();
    this.expectWord('from');
    const value = this.expr();
    this.expectOp(')');
    return { kind: 'extract', field, value, pos: start, end: this.prevEnd() };
  }

  // ------------------------------------------------------------ token helpers

  private bin(op: BinaryOp, left: Expr, right: Expr): Expr {
    return { kind: 'binary', op, left, right, pos: left.pos, end: right.end };
  }

  private peek(): Token {
    return this.tokens[this.i];
  }

  private prevEnd(): number {
    const t = this.tokens[this.i - 1];
    return t.kind === 'string' || t.kind === 'quoted' ? this.tokenEnd(t) : t.pos + t.text.length;
  }

  private tokenEnd(t: Token): number {
    const next = this.tokens[this.i];
    // quoted tokens carry their text without quotes: find the closing quote from the source
    let end = next.pos;
    while (end > t.pos && /\s/.test(this.sql[end - 1])) end--;
    return end;
  }

  private acceptWord(w: string): boolean {
    const t = this.peek();
    if (t.kind === 'ident' && t.text.toLowerCase() === w) {
      this.i++;
      return true;
    }
    return false;
  }

  private expectWord(w: string): void {
    if (!this.acceptWord(w)) throw this.error(`expected ${w.toUpperCase()}`, this.peek());
  }

  private acceptOp(op: string): boolean {
    const t = this.peek();
    if (t.kind === 'op' && t.text === op) {
      this.i++;
      return true;
    }
    return false;
  }

  private expectOp(op: string): Token {
    const t = this.peek();
    if (!this.acceptOp(op)) throw this.error(`expected '${op}'`, t);
    return t;
  }

  private identifier(what: string): string {
    const t = this.peek();
    if (t.kind === 'quoted' || (t.kind === 'ident' && !RESERVED.has(t.text.toLowerCase()))) {
      this.i++;
      return t.text;
    }
    throw this.error(`expected ${what}`, t);
  }

  private error(message: string, t: Token): SqlError {
    return new SqlError(message, this.sql, t.pos);
  }
}

function numberLiteral(t: Token): Expr {
  const end = t.pos + t.text.length;
  if (/^\d+$/.test(t.text)) {
    const big = BigInt(t.text);
    // SeaTunnel types a whole-number literal as INT when it fits, else BIGINT
    if (big <= 2147483647n) return { kind: 'literal', literal: 'int', value: Number(big), pos: t.pos, end };
    return { kind: 'literal', literal: 'bigint', value: big, pos: t.pos, end };
  }
  return { kind: 'literal', literal: 'double', value: Number(t.text), pos: t.pos, end };
}

function negateLiteral(e: Extract<Expr, { kind: 'literal' }>, pos: number): Expr {
  if (e.literal === 'bigint') {
    const v = -(e.value as bigint);
    if (v >= -2147483648n) return { kind: 'literal', literal: 'int', value: Number(v), pos, end: e.end };
    return { ...e, value: v, pos };
  }
  return { ...e, value: -(e.value as number), pos };
}
