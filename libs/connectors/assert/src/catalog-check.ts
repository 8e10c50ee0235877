import type { CatalogTable, Column } from '@tideway/api';
import { formatTablePath, formatType, parseConstraintType } from '@tideway/api';
import { ErrorCode, TidewayError, textOf } from '@tideway/common';
import type { CatalogTableRule, ColumnRule } from './rules.js';

/**
 * catalog_table_rule, checked against an input table when the sink is created, as
 * SeaTunnel's AssertCatalogTableRule: primary key (name, and columns as a set), constraint
 * keys and columns (as collections, order ignored), table identifier.
 */

function failed(table: CatalogTable, message: string): TidewayError {
  return new TidewayError(ErrorCode.ASSERT_FAILED, `Assert catalog_table_rule failed for table ${table.tableId}: ${message}`);
}

/** Multiset equality, as commons-collections isEqualCollection. */
function sameCollection(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const count = new Map<string, number>();
  for (const x of a) count.set(x, (count.get(x) ?? 0) + 1);
  for (const x of b) {
    const n = count.get(x);
    if (!n) return false;
    count.set(x, n - 1);
  }
  return true;
}

const list = (xs: readonly string[]): string => `[${xs.join(', ')}]`;

function columnKey(c: Pick<Column, 'name' | 'type' | 'nullable' | 'defaultValue' | 'comment'>): string {
  const dv = c.defaultValue === undefined || c.defaultValue === null ? 'null' : textOf(c.defaultValue);
  return `${c.name} ${formatType(c.type)} nullable=${c.nullable} default=${dv} comment=${c.comment ?? 'null'}`;
}

function checkColumns(table: CatalogTable, rule: readonly ColumnRule[]): void {
  if (table.columns.length === 0) throw failed(table, 'columns is null');
  const actual = table.columns.map(columnKey);
  const expected = rule.map(columnKey);
  if (rule.length > 0 && !sameCollection(actual, expected))
    throw failed(table, `columns: ${list(actual)} is not equal to ${list(expected)}`);
}

/** Throws ASSERT_FAILED naming the first difference. */
export function checkCatalogTable(table: CatalogTable, rule: CatalogTableRule): void {
  if (rule.primaryKey) {
    const pk = table.primaryKey;
    if (!pk) throw failed(table, 'primaryKey is null');
    if (rule.primaryKey.name !== undefined && rule.primaryKey.name !== pk.name)
      throw failed(table, `primaryKey: ${pk.name} is not equal to ${rule.primaryKey.name}`);
    if (rule.primaryKey.columns.length > 0 && !sameCollection(pk.columns, rule.primaryKey.columns)) {
      throw failed(table, `primaryKey columns: ${list(pk.columns)} is not equal to ${list(rule.primaryKey.columns)}`);
    }
  }
  if (rule.constraintKeys) {
    const keys = table.constraintKeys ?? [];
    if (keys.length === 0) throw failed(table, 'constraintKeys is null');
    // Tideway's ConstraintKey keeps no sort order, so columns compare by name only.
    const actual = keys.map((k) => `${k.name} ${k.type} (${k.columns.join(', ')})`);
    const expected = rule.constraintKeys.map(
      (k) => `${k.name} ${parseConstraintType(k.type) ?? k.type} (${k.columns.map((c) => c.name).join(', ')})`,
    );
    if (expected.length > 0 && !sameCollection(actual, expected))
      throw failed(table, `constraintKeys: ${list(actual)} is not equal to ${list(expected)}`);
  }
  if (rule.columns) checkColumns(table, rule.columns);
  if (rule.tableIdentifier) {
    const actual = `${table.catalogName ?? ''}.${formatTablePath(table.path)}`;
    const expected = `${rule.tableIdentifier.catalogName}.${rule.tableIdentifier.table}`;
    if (actual !== expected) throw failed(table, `tableIdentifier: ${actual} is not equal to ${expected}`);
  }
}
