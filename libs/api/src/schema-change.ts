import type { CatalogTable, Column } from './row.js';
import { formatType, typesEqual } from './types.js';

/**
 * Schema evolution: a source that sees a table change (a DDL statement in the binlog, a new
 * relation message in logical replication) emits a SchemaChangeEvent through its Collector
 * between the rows before and after the change. The engine passes it down the chain in order
 * with the rows: transforms re-derive their output tables from the changed input, sinks change
 * their target before any row that needs the change. Events are plain data (they cross threads,
 * shuffles and checkpoints).
 */

/** What a column definition says beyond its SeaTunnel type, in the source database's own words. */
export interface NativeColumn {
  /** The dialect the texts below are in: `mysql` or `postgresql`. */
  readonly dialect: string;
  /** The type as the source spells it, e.g. `varchar(64)`, `int unsigned`, `character varying(64)`. */
  readonly type: string;
  /** The default as an SQL expression of that dialect (`'yy'`, `1`, `current_timestamp()`), absent: none. */
  readonly defaultExpression?: string;
}

/** A column as a schema change defines it: its SeaTunnel form plus the source's definition. */
export interface ChangedColumn extends Column {
  readonly native?: NativeColumn;
}

/** One change to a table's columns. Positions: `after` names the column it follows; `first`: at the front. */
export type ColumnChange =
  | { readonly kind: 'add'; readonly column: ChangedColumn; readonly after?: string; readonly first?: boolean }
  | { readonly kind: 'drop'; readonly name: string }
  | { readonly kind: 'rename'; readonly from: string; readonly to: string }
  | { readonly kind: 'modify'; readonly name: string; readonly column: ChangedColumn; readonly after?: string; readonly first?: boolean };

/** A change of one table: its column changes, in order, and the table as it is after them. */
export interface SchemaChangeEvent {
  readonly type: 'schema-change';
  readonly tableId: string;
  readonly changes: readonly ColumnChange[];
  /** The table after the changes (row fields follow its column order from here on). */
  readonly table: CatalogTable;
  /**
   * Set when the engine replays a table's schema after a restore: every change up to it was
   * applied downstream before the checkpoint was taken, so nothing is to be changed, only learnt.
   */
  readonly restored?: boolean;
  /**
   * The table is new to the job: created at the source while the job runs and matching its
   * table-pattern / database-pattern (`changes` is empty, `table` is all of it). Transforms
   * derive their output for it, sinks create their target for it (their save mode) before its
   * first row. An event for a table the job knows already (a replay) changes nothing but the
   * schema, and a sink still makes sure its target exists.
   */
  readonly created?: boolean;
}

/** Whether a value a Collector emitted or a batch carries is a SchemaChangeEvent. */
export function isSchemaChangeEvent(v: unknown): v is SchemaChangeEvent {
  return typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'schema-change';
}

/** One change in words, for messages: `ADD COLUMN c int`, `RENAME COLUMN a TO b`. */
export function describeColumnChange(c: ColumnChange): string {
  switch (c.kind) {
    case 'add':
      return `ADD COLUMN ${c.column.name} ${c.column.native?.type ?? formatType(c.column.type)}`;
    case 'drop':
      return `DROP COLUMN ${c.name}`;
    case 'rename':
      return `RENAME COLUMN ${c.from} TO ${c.to}`;
    case 'modify':
      return `MODIFY COLUMN ${c.name} ${c.column.native?.type ?? formatType(c.column.type)}`;
  }
}

/** The changes of an event in words, for messages. */
export function describeSchemaChange(e: SchemaChangeEvent): string {
  if (e.created) return `CREATE TABLE ${e.tableId}`;
  return e.changes.length === 0 ? `the schema of ${e.tableId}` : e.changes.map(describeColumnChange).join(', ');
}

/**
 * Applies column changes to a table (the source side: the table after a DDL). Throws an Error
 * naming the change when it does not fit the table (a dropped column it lacks, a duplicate).
 */
export function applyColumnChanges(table: CatalogTable, changes: readonly ColumnChange[]): CatalogTable {
  let columns: Column[] = [...table.columns];
  let key = table.primaryKey ? [...table.primaryKey.columns] : undefined;
  const find = (name: string): number => columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  const place = (col: Column, after: string | undefined, first: boolean | undefined): void => {
    if (first) columns.unshift(col);
    else if (after !== undefined) {
      const i = find(after);
      if (i < 0) throw new Error(`${table.tableId} has no column ${after} to put a column after`);
      columns.splice(i + 1, 0, col);
    } else columns.push(col);
  };
  for (const c of changes) {
    switch (c.kind) {
      case 'add':
        if (find(c.column.name) >= 0) throw new Error(`${table.tableId} already has a column ${c.column.name}`);
        place(c.column, c.after, c.first);
        break;
      case 'drop': {
        const i = find(c.name);
        if (i < 0) throw new Error(`${table.tableId} has no column ${c.name} to drop`);
        columns.splice(i, 1);
        key = key?.filter((k) => k.toLowerCase() !== c.name.toLowerCase());
        break;
      }
      case 'rename': {
        const i = find(c.from);
        if (i < 0) throw new Error(`${table.tableId} has no column ${c.from} to rename`);
        columns[i] = { ...columns[i], name: c.to };
        key = key?.map((k) => (k.toLowerCase() === c.from.toLowerCase() ? c.to : k));
        break;
      }
      case 'modify': {
        const i = find(c.name);
        if (i < 0) throw new Error(`${table.tableId} has no column ${c.name} to modify`);
        if (c.after !== undefined || c.first) {
          columns.splice(i, 1);
          place(c.column, c.after, c.first);
        } else columns[i] = c.column;
        break;
      }
    }
  }
  columns = columns.map((c) => ({ ...c }));
  const out: CatalogTable = { ...table, columns };
  if (table.primaryKey) out.primaryKey = { ...table.primaryKey, columns: key ?? [] };
  return out;
}

/**
 * The column changes that turn `before` into `after`, by column name: what a transform's
 * re-derived output table passes on. `renames` (from the input change) lets a dropped column
 * and an added one of the same type read as a rename. Order changes alone produce nothing.
 */
export function diffTables(before: CatalogTable, after: CatalogTable, renames: ReadonlyMap<string, string> = new Map()): ColumnChange[] {
  const out: ColumnChange[] = [];
  const beforeNames = new Set(before.columns.map((c) => c.name));
  const afterNames = new Set(after.columns.map((c) => c.name));
  const renamedTo = new Set<string>();
  for (const c of before.columns) {
    if (afterNames.has(c.name)) continue;
    const to = renames.get(c.name);
    if (to !== undefined && afterNames.has(to) && !beforeNames.has(to)) {
      out.push({ kind: 'rename', from: c.name, to });
      renamedTo.add(to);
    } else out.push({ kind: 'drop', name: c.name });
  }
  after.columns.forEach((c, i) => {
    if (renamedTo.has(c.name)) {
      const old = before.columns.find((b) => renames.get(b.name) === c.name)!;
      if (!typesEqual(old.type, c.type) || old.nullable !== c.nullable) out.push({ kind: 'modify', name: c.name, column: c });
      return;
    }
    const old = before.columns.find((b) => b.name === c.name);
    if (!old) {
      const prev = i > 0 ? after.columns[i - 1].name : undefined;
      out.push(prev === undefined ? { kind: 'add', column: c, first: true } : { kind: 'add', column: c, after: prev });
    } else if (
      !typesEqual(old.type, c.type) ||
      old.nullable !== c.nullable ||
      (old as ChangedColumn).native?.type !== (c as ChangedColumn).native?.type
    ) {
      out.push({ kind: 'modify', name: c.name, column: c });
    }
  });
  return out;
}
