import { type CatalogTable, type Column } from '@tideway/api';
import type { SelectQuery } from './ast.js';
import type { Evaluator } from './compiled.js';
import { compileExpr, type CompileScope } from './compile-expr.js';
import { SqlError } from './sql-error.js';

/** One output column: either a copy of an input field or a computed expression. */
export type Projection = { kind: 'copy'; index: number; text: string } | { kind: 'expr'; ev: Evaluator; text: string };

/** A query compiled against one input table: the filter, the projections and the output table. */
export interface CompiledQuery {
  readonly where?: Evaluator;
  readonly whereText?: string;
  readonly projections: readonly Projection[];
  readonly output: CatalogTable;
}

/**
 * Compiles a parsed query against one input table. The output table keeps the input's id;
 * columns are named by alias, column name (last part of a dotted path) or expression text;
 * a column copied straight from the input keeps its nullability, default and comment, a
 * computed one is nullable (as SeaTunnel declares it). The primary key and constraint keys
 * survive when every one of their columns passes through unchanged under its own name.
 */
export function compileQuery(q: SelectQuery, sql: string, table: CatalogTable, tableNames: readonly string[]): CompiledQuery {
  if (!tableNames.some((n) => n.toLowerCase() === q.table.toLowerCase())) {
    throw new SqlError(
      `unknown table '${q.table}': the query must read from ${tableNames.map((n) => `'${n}'`).join(' or ')}`,
      sql,
      q.tablePos,
    );
  }
  const scope: CompileScope = { sql, table, tableNames };
  let where: Evaluator | undefined;
  if (q.where) {
    const w = compileExpr(q.where, scope);
    if (w.type.kind !== 'boolean' && w.type.kind !== 'null')
      throw new SqlError(`WHERE needs a condition, not a value of type ${w.type.kind}`, sql, q.where.pos);
    where = w.ev;
  }
  const projections: Projection[] = [];
  const columns: Column[] = [];
  /** Output name -> input column it copies unchanged. */
  const passthrough = new Map<string, string>();
  const seen = new Map<string, number>();
  const add = (name: string, pos: number, col: Omit<Column, 'name'>, p: Projection) => {
    if (seen.has(name)) throw new SqlError(`the output column '${name}' appears twice; give one an alias`, sql, pos);
    seen.set(name, pos);
    columns.push({ ...col, name });
    projections.push(p);
  };
  for (const item of q.items) {
    if (item.kind === 'star') {
      table.columns.forEach((c, index) => {
        add(c.name, item.pos, c, { kind: 'copy', index, text: c.name });
        passthrough.set(c.name, c.name);
      });
      continue;
    }
    const e = item.expr;
    const text = sql.slice(e.pos, e.end);
    const c = compileExpr(e, scope);
    const name = item.alias ?? (e.kind === 'column' ? e.path[e.path.length - 1] : text.trim());
    const direct =
      e.kind === 'column' && e.path.length === 1
        ? table.columns.findIndex((col) => col.name === e.path[0] || col.name.toLowerCase() === e.path[0].toLowerCase())
        : -1;
    if (direct >= 0) {
      const src = table.columns[direct];
      add(name, item.pos, { ...src, type: src.type }, { kind: 'copy', index: direct, text });
      if (name === src.name) passthrough.set(name, src.name);
    } else {
      add(name, item.pos, { type: c.type, nullable: true }, { kind: 'expr', ev: c.ev, text });
    }
  }
  const keeps = (cols: readonly string[]) => cols.every((n) => passthrough.get(n) === n);
  const output: CatalogTable = {
    ...table,
    columns,
    primaryKey:
      table.primaryKey && keeps(table.primaryKey.columns) ? { ...table.primaryKey, columns: [...table.primaryKey.columns] } : undefined,
    constraintKeys: table.constraintKeys?.filter((k) => keeps(k.columns)).map((k) => ({ ...k, columns: [...k.columns] })),
  };
  if (output.primaryKey === undefined) delete output.primaryKey;
  if (output.constraintKeys === undefined) delete output.constraintKeys;
  return { where, whereText: q.where ? sql.slice(q.where.pos, q.where.end) : undefined, projections, output };
}
