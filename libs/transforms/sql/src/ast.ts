/**
 * The syntax tree of SeaTunnel's SELECT dialect. Every node keeps `pos` (offset in the query)
 * and `end` so errors can point at it and run-time failures can quote the expression.
 */
export type Expr =
  | {
      kind: 'literal';
      pos: number;
      end: number;
      value: null | string | boolean | number | bigint;
      literal: 'null' | 'string' | 'boolean' | 'int' | 'bigint' | 'double';
    }
  | { kind: 'column'; pos: number; end: number; path: string[] }
  | { kind: 'index'; pos: number; end: number; target: Expr; index: Expr }
  | { kind: 'call'; pos: number; end: number; name: string; args: Expr[] }
  | { kind: 'cast'; pos: number; end: number; value: Expr; type: CastType }
  | { kind: 'extract'; pos: number; end: number; field: string; value: Expr }
  | { kind: 'unary'; pos: number; end: number; op: '-' | '+' | 'not'; operand: Expr }
  | { kind: 'binary'; pos: number; end: number; op: BinaryOp; left: Expr; right: Expr }
  | { kind: 'isnull'; pos: number; end: number; operand: Expr; not: boolean }
  | { kind: 'in'; pos: number; end: number; operand: Expr; items: Expr[]; not: boolean }
  | { kind: 'between'; pos: number; end: number; operand: Expr; low: Expr; high: Expr; not: boolean }
  | { kind: 'like'; pos: number; end: number; operand: Expr; pattern: Expr; not: boolean; regexp: boolean }
  | { kind: 'case'; pos: number; end: number; subject?: Expr; whens: { when: Expr; then: Expr }[]; otherwise?: Expr };

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '||' | '=' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or';

/** A CAST target as written: SeaTunnel's names (STRING, BYTES, DECIMAL(p,s), ...). */
export interface CastType {
  name: string;
  params: number[];
  pos: number;
}

export type SelectItem = { kind: 'star'; pos: number } | { kind: 'expr'; expr: Expr; alias?: string; pos: number };

export interface SelectQuery {
  items: SelectItem[];
  /** FROM's table name, dotted parts joined with '.'. */
  table: string;
  tablePos: number;
  where?: Expr;
}
