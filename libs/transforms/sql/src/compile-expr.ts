import { Types, formatType, type CatalogTable, type DataType, type RowField } from '@tideway/api';
import type { Expr } from './ast.js';
import { arithmetic } from './arithmetic.js';
import { castFunction, castTargetType } from './cast.js';
import { comparatorFor } from './compare.js';
import type { Compiled, Evaluator } from './compiled.js';
import { compileCase, compileIn, compileLike } from './compile-predicates.js';
import { lookupFunction } from './functions/index.js';
import { argFits } from './functions/registry.js';
import { SqlError } from './sql-error.js';
import { arithmeticType, comparable, isNull, isNumeric } from './sql-types.js';

/** What compiling needs: the query text (positions), the input table and the names FROM may use. */
export interface CompileScope {
  readonly sql: string;
  readonly table: CatalogTable;
  readonly tableNames: readonly string[];
}

/** Compiles an expression tree into a typed closure; type errors throw SqlError with the position. */
export function compileExpr(e: Expr, s: CompileScope): Compiled {
  const text = s.sql.slice(e.pos, e.end);
  switch (e.kind) {
    case 'literal': {
      const value = e.value;
      const type: DataType =
        e.literal === 'null'
          ? Types.NULL
          : e.literal === 'string'
            ? Types.STRING
            : e.literal === 'boolean'
              ? Types.BOOLEAN
              : e.literal === 'int'
                ? Types.INT
                : e.literal === 'bigint'
                  ? Types.BIGINT
                  : Types.DOUBLE;
      return { type, nullable: value === null, ev: () => value, text, constant: { value } };
    }
    case 'column':
      return compileColumn(e, s, text);
    case 'index':
      return compileIndex(e, s, text);
    case 'call': {
      const fn = lookupFunction(e.name);
      if (!fn) throw new SqlError(`unknown function ${e.name.toUpperCase()}`, s.sql, e.pos);
      if (e.args.length < fn.minArgs || e.args.length > fn.maxArgs) {
        const want =
          fn.minArgs === fn.maxArgs
            ? `${fn.minArgs}`
            : fn.maxArgs === Infinity
              ? `at least ${fn.minArgs}`
              : `${fn.minArgs} to ${fn.maxArgs}`;
        throw new SqlError(`${e.name.toUpperCase()} takes ${want} argument(s), not ${e.args.length}`, s.sql, e.pos);
      }
      const args = e.args.map((a) => compileExpr(a, s));
      args.forEach((a, i) => {
        const kind = fn.args[Math.min(i, fn.args.length - 1)] ?? 'any';
        if (!argFits(kind, a.type))
          throw new SqlError(
            `argument ${i + 1} of ${e.name.toUpperCase()} must be ${kind}, not ${formatType(a.type)}`,
            s.sql,
            e.args[i].pos,
          );
      });
      const type = fn.resultType(args);
      if (typeof type === 'string') throw new SqlError(`${e.name.toUpperCase()}: ${type}`, s.sql, e.pos);
      return {
        type,
        nullable: fn.nullableResult === true || args.some((a) => a.nullable) || fn.minArgs === 0,
        ev: fn.build(args, type),
        text,
      };
    }
    case 'cast': {
      const to = castTargetType(e.type);
      if (!to) throw new SqlError(`unknown CAST type ${e.type.name}`, s.sql, e.type.pos);
      const v = compileExpr(e.value, s);
      const conv = castFunction(v.type, to);
      const ev = v.ev;
      return {
        type: to,
        nullable: v.nullable,
        ev: (f) => {
          const x = ev(f);
          return x === null || x === undefined ? null : conv(x);
        },
        text,
      };
    }
    case 'extract': {
      const fn = lookupFunction('extract')!;
      const v = compileExpr(e.value, s);
      const field: Compiled = { type: Types.STRING, nullable: false, ev: () => e.field, text: e.field, constant: { value: e.field } };
      const args = [v, field];
      const type = fn.resultType(args);
      if (typeof type === 'string') throw new SqlError(`EXTRACT: ${type}`, s.sql, e.pos);
      return { type, nullable: v.nullable, ev: fn.build(args, type), text };
    }
    case 'unary': {
      const v = compileExpr(e.operand, s);
      const ev = v.ev;
      if (e.op === 'not') {
        if (v.type.kind !== 'boolean' && !isNull(v.type))
          throw new SqlError(`NOT needs a boolean, not ${formatType(v.type)}`, s.sql, e.pos);
        return {
          type: Types.BOOLEAN,
          nullable: v.nullable,
          ev: (f) => {
            const x = ev(f);
            return x === null || x === undefined ? null : !x;
          },
          text,
        };
      }
      if (!isNumeric(v.type) && !isNull(v.type))
        throw new SqlError(`unary ${e.op} needs a number, not ${formatType(v.type)}`, s.sql, e.pos);
      if (e.op === '+') return { ...v, text };
      const neg = arithmetic('-', v.type.kind === 'tinyint' || v.type.kind === 'smallint' ? Types.INT : v.type);
      const zero = v.type.kind === 'bigint' ? 0n : v.type.kind === 'decimal' ? '0' : 0;
      return {
        type: v.type,
        nullable: v.nullable,
        ev: (f) => {
          const x = ev(f);
          return x === null || x === undefined ? null : neg(zero, x);
        },
        text,
      };
    }
    case 'binary':
      return compileBinary(e, s, text);
    case 'isnull': {
      const ev = compileExpr(e.operand, s).ev;
      const not = e.not;
      return {
        type: Types.BOOLEAN,
        nullable: false,
        ev: (f) => {
          const x = ev(f);
          return (x === null || x === undefined) !== not;
        },
        text,
      };
    }
    case 'between': {
      const v = compileExpr(e.operand, s);
      const lo = compileExpr(e.low, s);
      const hi = compileExpr(e.high, s);
      for (const b of [lo, hi])
        if (!comparable(v.type, b.type))
          throw new SqlError(`cannot compare ${formatType(v.type)} with ${formatType(b.type)}`, s.sql, e.pos);
      const c1 = comparatorFor(v.type, lo.type);
      const c2 = comparatorFor(v.type, hi.type);
      const [ev, el, eh, not] = [v.ev, lo.ev, hi.ev, e.not];
      return {
        type: Types.BOOLEAN,
        nullable: false,
        ev: (f) => {
          const x = ev(f),
            a = el(f),
            b = eh(f);
          if (x == null || a == null || b == null) return false;
          return (c1(x, a) >= 0 && c2(x, b) <= 0) !== not;
        },
        text,
      };
    }
    case 'in':
      return compileIn(e, s, text);
    case 'like':
      return compileLike(e, s, text);
    case 'case':
      return compileCase(e, s, text);
  }
}

function compileBinary(e: Extract<Expr, { kind: 'binary' }>, s: CompileScope, text: string): Compiled {
  const l = compileExpr(e.left, s);
  const r = compileExpr(e.right, s);
  const [el, er] = [l.ev, r.ev];
  const nullable = l.nullable || r.nullable;
  switch (e.op) {
    case 'and':
    case 'or': {
      for (const [side, c] of [
        [e.left, l],
        [e.right, r],
      ] as const) {
        if (c.type.kind !== 'boolean' && !isNull(c.type))
          throw new SqlError(`${e.op.toUpperCase()} needs boolean operands, not ${formatType(c.type)}`, s.sql, side.pos);
      }
      // SeaTunnel's filters are two-valued: a null condition counts as false
      const ev: Evaluator = e.op === 'and' ? (f) => el(f) === true && er(f) === true : (f) => el(f) === true || er(f) === true;
      return { type: Types.BOOLEAN, nullable: false, ev, text };
    }
    case '||': {
      // SeaTunnel evaluates a || b as CONCAT(a, b)
      const concat = lookupFunction('concat')!;
      return { type: Types.STRING, nullable: false, ev: concat.build([l, r], Types.STRING), text };
    }
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if (!comparable(l.type, r.type)) throw new SqlError(`cannot compare ${formatType(l.type)} with ${formatType(r.type)}`, s.sql, e.pos);
      const cmp = comparatorFor(l.type, r.type);
      let ev: Evaluator;
      switch (e.op) {
        case '=':
          ev = (f) => {
            const a = el(f);
            if (a == null) return false;
            const b = er(f);
            return b != null && cmp(a, b) === 0;
          };
          break;
        case '!=':
          // SeaTunnel: null != x is true unless both are null
          ev = (f) => {
            const a = el(f);
            const b = er(f);
            if (a == null) return b != null;
            return b == null || cmp(a, b) !== 0;
          };
          break;
        case '<':
          ev = (f) => {
            const a = el(f);
            if (a == null) return false;
            const b = er(f);
            return b != null && cmp(a, b) < 0;
          };
          break;
        case '<=':
          ev = (f) => {
            const a = el(f);
            if (a == null) return false;
            const b = er(f);
            return b != null && cmp(a, b) <= 0;
          };
          break;
        case '>':
          ev = (f) => {
            const a = el(f);
            if (a == null) return false;
            const b = er(f);
            return b != null && cmp(a, b) > 0;
          };
          break;
        default:
          ev = (f) => {
            const a = el(f);
            if (a == null) return false;
            const b = er(f);
            return b != null && cmp(a, b) >= 0;
          };
      }
      return { type: Types.BOOLEAN, nullable: false, ev, text };
    }
    default: {
      const type = arithmeticType(l.type, r.type);
      if (!type) throw new SqlError(`cannot apply ${e.op} to ${formatType(l.type)} and ${formatType(r.type)}`, s.sql, e.pos);
      const op = arithmetic(e.op, type);
      return {
        type,
        nullable,
        ev: (f) => {
          const a = el(f);
          if (a == null) return null;
          const b = er(f);
          return b == null ? null : op(a, b);
        },
        text,
      };
    }
  }
}

function findField(fields: readonly { name: string }[], name: string): number {
  const exact = fields.findIndex((c) => c.name === name);
  if (exact >= 0) return exact;
  const lower = name.toLowerCase();
  const matches = fields.flatMap((c, i) => (c.name.toLowerCase() === lower ? [i] : []));
  return matches.length === 1 ? matches[0] : -1;
}

function compileColumn(e: Extract<Expr, { kind: 'column' }>, s: CompileScope, text: string): Compiled {
  let path = e.path;
  let idx = findField(s.table.columns, path[0]);
  if (idx < 0 && path.length > 1 && s.tableNames.some((t) => t.toLowerCase() === path[0].toLowerCase())) {
    // `fake.id`: the table name may prefix a column
    path = path.slice(1);
    idx = findField(s.table.columns, path[0]);
  }
  if (idx < 0) {
    const names = s.table.columns.map((c) => c.name).join(', ');
    throw new SqlError(`unknown column '${path[0]}' in table ${s.table.tableId} (columns: ${names})`, s.sql, e.pos);
  }
  const col = s.table.columns[idx];
  let type: DataType = col.type;
  let nullable = col.nullable;
  let ev: Evaluator = (f) => f[idx];
  for (let i = 1; i < path.length; i++) {
    const part = path[i];
    if (type.kind === 'row') {
      const fi = findField(type.fields, part);
      if (fi < 0)
        throw new SqlError(
          `row field '${path.slice(0, i).join('.')}' has no field '${part}' (fields: ${type.fields.map((x: RowField) => x.name).join(', ')})`,
          s.sql,
          e.pos,
        );
      const prev = ev;
      ev = (f) => {
        const r = prev(f) as unknown[] | null;
        return r == null ? null : r[fi];
      };
      type = type.fields[fi].type;
    } else if (type.kind === 'map') {
      if (i < path.length - 1)
        throw new SqlError(`a map key must be the last part of '${path.join('.')}': nested maps cannot be queried this way`, s.sql, e.pos);
      const prev = ev;
      const key = part;
      ev = (f) => {
        const m = prev(f) as Map<unknown, unknown> | null;
        if (m == null) return null;
        const v = m.get(key);
        return v === undefined ? null : v;
      };
      type = type.value;
      nullable = true;
    } else {
      throw new SqlError(`'${path.slice(0, i).join('.')}' is ${formatType(type)}, it has no field '${part}'`, s.sql, e.pos);
    }
    if (type.kind !== 'map') nullable = true;
  }
  return { type, nullable, ev, text };
}

function compileIndex(e: Extract<Expr, { kind: 'index' }>, s: CompileScope, text: string): Compiled {
  const t = compileExpr(e.target, s);
  const k = compileExpr(e.index, s);
  const [et, ek] = [t.ev, k.ev];
  if (t.type.kind === 'array') {
    if (!argFits('integer', k.type)) throw new SqlError(`an array index must be an integer, not ${formatType(k.type)}`, s.sql, e.index.pos);
    // zero-based, as SeaTunnel's arrays (Java arrays) are; out of range gives null
    return {
      type: t.type.element,
      nullable: true,
      ev: (f) => {
        const a = et(f) as unknown[] | null;
        const i = ek(f);
        if (a == null || i == null) return null;
        const v = a[Number(i)];
        return v === undefined ? null : v;
      },
      text,
    };
  }
  if (t.type.kind === 'map') {
    const keyIsBig = t.type.key.kind === 'bigint';
    return {
      type: t.type.value,
      nullable: true,
      ev: (f) => {
        const m = et(f) as Map<unknown, unknown> | null;
        const key = ek(f);
        if (m == null || key == null) return null;
        const v = m.get(keyIsBig && typeof key === 'number' ? BigInt(key) : key);
        return v === undefined ? null : v;
      },
      text,
    };
  }
  if (t.type.kind === 'row' && k.constant && typeof k.constant.value === 'string') {
    const fields = t.type.fields;
    const fi = findField(fields, k.constant.value);
    if (fi < 0) throw new SqlError(`row has no field '${k.constant.value}'`, s.sql, e.index.pos);
    return {
      type: fields[fi].type,
      nullable: true,
      ev: (f) => {
        const r = et(f) as unknown[] | null;
        return r == null ? null : r[fi];
      },
      text,
    };
  }
  throw new SqlError(`${formatType(t.type)} cannot be indexed`, s.sql, e.pos);
}
