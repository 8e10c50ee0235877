import { Types, formatType, type DataType } from '@tideway/api';
import type { Expr } from './ast.js';
import { comparatorFor } from './compare.js';
import { SqlValueError, type Compiled, type Evaluator } from './compiled.js';
import { coerce } from './cast.js';
import { compileExpr, type CompileScope } from './compile-expr.js';
import { memo } from './functions/registry.js';
import { SqlError } from './sql-error.js';
import { commonType, comparable } from './sql-types.js';
import { valueText } from './value-text.js';

/** `x [NOT] IN (a, b, ...)` with SeaTunnel's semantics: a null x is never in (nor not in) a list. */
export function compileIn(e: Extract<Expr, { kind: 'in' }>, s: CompileScope, text: string): Compiled {
  const v = compileExpr(e.operand, s);
  const items = e.items.map((i) => compileExpr(i, s));
  items.forEach((it, i) => {
    if (!comparable(v.type, it.type))
      throw new SqlError(`cannot compare ${formatType(v.type)} with ${formatType(it.type)}`, s.sql, e.items[i].pos);
  });
  const cmps = items.map((it) => comparatorFor(v.type, it.type));
  const evs = items.map((it) => it.ev);
  const ev = v.ev;
  const not = e.not;
  return {
    type: Types.BOOLEAN,
    nullable: false,
    ev: (f) => {
      const x = ev(f);
      for (let i = 0; i < evs.length; i++) {
        const y = evs[i](f);
        if (x == null) {
          if (y == null) return true;
          return false;
        }
        if (y != null && cmps[i](x, y) === 0) return !not;
      }
      return not;
    },
    text,
  };
}

/** A LIKE pattern (`%` any run, `_` one character) as an anchored regex. */
export function likeRegex(pattern: string): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '%') re += '[\\s\\S]*';
    else if (ch === '_') re += '[\\s\\S]';
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** `x [NOT] LIKE p` and `x [NOT] REGEXP p`: a null x or pattern gives false either way (as SeaTunnel). */
export function compileLike(e: Extract<Expr, { kind: 'like' }>, s: CompileScope, text: string): Compiled {
  const v = compileExpr(e.operand, s);
  const p = compileExpr(e.pattern, s);
  if (p.type.kind !== 'string' && p.type.kind !== 'null')
    throw new SqlError(`a ${e.regexp ? 'REGEXP' : 'LIKE'} pattern must be a string, not ${formatType(p.type)}`, s.sql, e.pattern.pos);
  const toRegex = memo((pat: string) => {
    if (!e.regexp) return likeRegex(pat);
    try {
      return new RegExp(pat);
    } catch (err) {
      throw new SqlValueError(`invalid regular expression '${pat}': ${(err as Error).message}`);
    }
  });
  if (p.constant && typeof p.constant.value === 'string') toRegex(p.constant.value); // bad constant patterns fail on the first row; valid ones are cached
  const [ev, ep, not] = [v.ev, p.ev, e.not];
  return {
    type: Types.BOOLEAN,
    nullable: false,
    ev: (f) => {
      const x = ev(f);
      if (x == null) return false;
      const pat = ep(f);
      if (pat == null) return false;
      const hit = toRegex(pat as string).test(valueText(x));
      return hit !== not;
    },
    text,
  };
}

/**
 * CASE: searched (`CASE WHEN cond THEN ...`) or simple (`CASE x WHEN v THEN ...`). The result
 * type is the common type of the branches and each branch is cast to it, as SeaTunnel does.
 */
export function compileCase(e: Extract<Expr, { kind: 'case' }>, s: CompileScope, text: string): Compiled {
  const subject = e.subject ? compileExpr(e.subject, s) : undefined;
  const whens = e.whens.map((w) => compileExpr(w.when, s));
  const thens = e.whens.map((w) => compileExpr(w.then, s));
  const otherwise = e.otherwise ? compileExpr(e.otherwise, s) : undefined;
  let type: DataType = Types.NULL;
  const branches = otherwise ? [...thens, otherwise] : thens;
  const branchExprs = e.otherwise ? [...e.whens.map((w) => w.then), e.otherwise] : e.whens.map((w) => w.then);
  branches.forEach((b, i) => {
    const t = commonType(type, b.type);
    if (!t)
      throw new SqlError(`CASE branches have incompatible types ${formatType(type)} and ${formatType(b.type)}`, s.sql, branchExprs[i].pos);
    type = t;
  });
  if (type.kind === 'null') type = Types.STRING;
  const thenEvs = thens.map((t) => coerce(t, type));
  const elseEv = otherwise ? coerce(otherwise, type) : undefined;
  let conds: Evaluator[];
  if (subject) {
    conds = whens.map((w, i) => {
      if (!comparable(subject.type, w.type))
        throw new SqlError(`cannot compare ${formatType(subject.type)} with ${formatType(w.type)}`, s.sql, e.whens[i].when.pos);
      const cmp = comparatorFor(subject.type, w.type);
      const [es, ew] = [subject.ev, w.ev];
      return (f) => {
        const a = es(f);
        const b = ew(f);
        return a != null && b != null && cmp(a, b) === 0;
      };
    });
  } else {
    whens.forEach((w, i) => {
      if (w.type.kind !== 'boolean' && w.type.kind !== 'null')
        throw new SqlError(`a WHEN condition must be boolean, not ${formatType(w.type)}`, s.sql, e.whens[i].when.pos);
    });
    conds = whens.map((w) => w.ev);
  }
  const n = conds.length;
  return {
    type,
    nullable: true,
    ev: (f) => {
      for (let i = 0; i < n; i++) if (conds[i](f) === true) return thenEvs[i](f);
      return elseEv ? elseEv(f) : null;
    },
    text,
  };
}
