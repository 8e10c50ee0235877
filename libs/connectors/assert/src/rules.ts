import type { DataType, PluginOptions } from '@tideway/api';
import { parseTypeConfig } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { Place } from '@tideway/common';

/**
 * Assert's `rules` option as SeaTunnel reads it (AssertSink, AssertRuleParser): row_rules,
 * field_rules, catalog_table_rule, table-names, and tables_configs (the same rules per
 * table_path). Keys SeaTunnel does not read are ignored, as SeaTunnel does.
 */

export const RULE_TYPES = ['NULL', 'NOT_NULL', 'MIN', 'MAX', 'MIN_LENGTH', 'MAX_LENGTH', 'MAX_ROW', 'MIN_ROW'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export interface ValueRule {
  readonly ruleType?: RuleType;
  readonly ruleValue?: number;
  /** `equals_to` as written; converted to the column's type when the sink is created. */
  readonly equalsTo?: unknown;
}

export interface FieldRule {
  readonly fieldName: string;
  readonly fieldType?: DataType;
  readonly valueRules: readonly ValueRule[];
}

export interface ColumnRule {
  readonly name: string;
  readonly type: DataType;
  readonly nullable: boolean;
  readonly defaultValue?: unknown;
  readonly comment?: string;
}

export interface CatalogTableRule {
  readonly primaryKey?: { readonly name?: string; readonly columns: readonly string[] };
  readonly constraintKeys?: readonly {
    readonly name: string;
    readonly type: string;
    readonly columns: readonly { name: string; sortType: string }[];
  }[];
  readonly columns?: readonly ColumnRule[];
  readonly tableIdentifier?: { readonly catalogName: string; readonly table: string };
}

export interface TableRules {
  readonly rowRules: readonly ValueRule[];
  readonly fieldRules: readonly FieldRule[];
  readonly catalogRule?: CatalogTableRule;
}

export interface AssertRules {
  /** Rules per table_path; without tables_configs one entry under ANY_TABLE. */
  readonly tables: ReadonlyMap<string, TableRules>;
  /** `table-names`: exactly these tables must appear in the data. */
  readonly tableNames?: readonly string[];
}

/** The key of rules written without tables_configs: they apply to every input table. */
export const ANY_TABLE = '*';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class RuleReader {
  constructor(private readonly place: Place) {}

  fail(path: string, message: string): never {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `rules.${path}: ${message}`, { place: { ...this.place, option: 'rules' } });
  }

  list(v: unknown, path: string): Obj[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every(isObject)) return this.fail(path, 'must be a list of objects');
    return v;
  }

  valueRule(o: Obj, path: string): ValueRule {
    let ruleType: RuleType | undefined;
    if (o.rule_type !== undefined) {
      const t = textOf(o.rule_type);
      if (!(RULE_TYPES as readonly string[]).includes(t)) this.fail(`${path}.rule_type`, `'${t}' is not one of ${RULE_TYPES.join(', ')}`);
      ruleType = t as RuleType;
    }
    let ruleValue: number | undefined;
    if (o.rule_value !== undefined) {
      ruleValue = Number(o.rule_value);
      if (Number.isNaN(ruleValue)) this.fail(`${path}.rule_value`, `${JSON.stringify(o.rule_value)} is not a number`);
    }
    if (ruleType && ['MIN', 'MAX', 'MIN_LENGTH', 'MAX_LENGTH', 'MIN_ROW', 'MAX_ROW'].includes(ruleType) && ruleValue === undefined) {
      this.fail(`${path}.rule_value`, `rule_type ${ruleType} needs a rule_value`);
    }
    return { ruleType, ruleValue, equalsTo: o.equals_to };
  }

  fieldRule(o: Obj, path: string): FieldRule {
    if (o.field_name === undefined) this.fail(`${path}.field_name`, 'is required');
    const fieldName = textOf(o.field_name);
    const fieldType =
      o.field_type === undefined
        ? undefined
        : parseTypeConfig(o.field_type, fieldName, { ...this.place, option: `rules.${path}.field_type` });
    const valueRules = this.list(o.field_value, `${path}.field_value`).map((r, i) => {
      const rule = this.valueRule(r, `${path}.field_value[${i}]`);
      if (rule.ruleType === 'MAX_ROW' || rule.ruleType === 'MIN_ROW')
        this.fail(`${path}.field_value[${i}].rule_type`, `${rule.ruleType} is a row rule: put it in row_rules`);
      return rule;
    });
    return { fieldName, fieldType, valueRules };
  }

  catalogRule(o: Obj, path: string): CatalogTableRule {
    const rule: { -readonly [K in keyof CatalogTableRule]: CatalogTableRule[K] } = {};
    if (isObject(o.primary_key_rule)) {
      const pk = o.primary_key_rule;
      rule.primaryKey = {
        name: pk.primary_key_name === undefined ? undefined : textOf(pk.primary_key_name),
        columns: Array.isArray(pk.primary_key_columns) ? pk.primary_key_columns.map(String) : [],
      };
    }
    if (o.constraint_key_rule !== undefined) {
      rule.constraintKeys = this.list(o.constraint_key_rule, `${path}.constraint_key_rule`).map((k) => ({
        name: String(k.constraint_key_name),
        type: String(k.constraint_key_type),
        columns: this.list(k.constraint_key_columns, `${path}.constraint_key_rule.constraint_key_columns`).map((c) => ({
          name: String(c.constraint_key_column_name),
          sortType: textOf(c.constraint_key_sort_type ?? 'ASC'),
        })),
      }));
    }
    if (o.column_rule !== undefined) {
      rule.columns = this.list(o.column_rule, `${path}.column_rule`).map((c, i) => {
        if (c.name === undefined || c.type === undefined) this.fail(`${path}.column_rule[${i}]`, 'needs name and type');
        const name = textOf(c.name);
        return {
          name,
          type: parseTypeConfig(c.type, name, { ...this.place, option: `rules.${path}.column_rule` }),
          nullable: c.nullable === undefined ? true : c.nullable === true || c.nullable === 'true',
          defaultValue: c.default_value ?? undefined,
          comment: c.comment === undefined || c.comment === null ? undefined : textOf(c.comment),
        };
      });
    }
    if (isObject(o.table_identifier_rule)) {
      const t = o.table_identifier_rule;
      rule.tableIdentifier = { catalogName: textOf(t.catalog_name ?? ''), table: textOf(t.table) };
    }
    return rule;
  }

  tableRules(o: Obj, path: string): TableRules {
    const prefix = path === '' ? '' : `${path}.`;
    return {
      rowRules: this.list(o.row_rules, `${prefix}row_rules`).map((r, i) => this.valueRule(r, `${prefix}row_rules[${i}]`)),
      fieldRules: this.list(o.field_rules, `${prefix}field_rules`).map((r, i) => this.fieldRule(r, `${prefix}field_rules[${i}]`)),
      catalogRule: isObject(o.catalog_table_rule) ? this.catalogRule(o.catalog_table_rule, `${prefix}catalog_table_rule`) : undefined,
    };
  }
}

/** Parses and checks the `rules` option. */
export function parseAssertRules(options: PluginOptions): AssertRules {
  const place = options.place('rules');
  const rules = options.get<unknown>('rules');
  const reader = new RuleReader(place);
  if (!isObject(rules)) return reader.fail('', 'must be an object');
  const tables = new Map<string, TableRules>();
  if (rules.tables_configs !== undefined) {
    reader.list(rules.tables_configs, 'tables_configs').forEach((item, i) => {
      if (item.table_path === undefined) reader.fail(`tables_configs[${i}].table_path`, 'is required');
      tables.set(String(item.table_path), reader.tableRules(item, `tables_configs[${i}]`));
    });
  } else {
    tables.set(ANY_TABLE, reader.tableRules(rules, ''));
  }
  const rawNames = rules['table-names'];
  const tableNames =
    rawNames === undefined
      ? undefined
      : Array.isArray(rawNames)
        ? rawNames.map(String)
        : reader.fail('table-names', 'must be a list of table names');
  const empty = [...tables.values()].every((t) => t.rowRules.length === 0 && t.fieldRules.length === 0 && !t.catalogRule);
  if (empty && (tableNames === undefined || tableNames.length === 0))
    reader.fail('', 'Assert rule config is empty, please add rule config.');
  return { tables, tableNames };
}
