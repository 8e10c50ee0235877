import type { CatalogTable, DataType } from '@tideway/api';
import { ConfigValueError, convertConfigValue, formatType, normalizeDecimal } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { FieldRule, ValueRule } from './rules.js';

/**
 * Field rules compiled against one input table (column index, type and `equals_to` converted
 * once), checked per row as SeaTunnel's AssertExecutor does: first the field_type check
 * (a null value passes only a `null` type), then each value rule; `equals_to` is compared
 * only for non-null values.
 */
export interface CompiledCheck {
  readonly fieldName: string;
  readonly index: number;
  /** Returns the name of the first failing rule, or undefined. */
  readonly failing: (value: unknown) => string | undefined;
}

const INT_BOUNDS: Partial<Record<DataType['kind'], [number, number]>> = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
};
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const TIME_RE = /^\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/;
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/;
const TIMESTAMP_TZ_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function decimalFits(v: string, precision: number, scale: number): boolean {
  const body = v.replace(/^[+-]/, '');
  const dot = body.indexOf('.');
  const valueScale = dot < 0 ? 0 : body.length - dot - 1;
  const digits = body.replace('.', '').replace(/^0+/, '');
  // BigDecimal: the scale must match exactly and the precision must not exceed the type's.
  return valueScale === scale && Math.max(digits.length, 1) <= precision;
}

/** Whether `value` is held as a value of `type` (SeaTunnel's checkType). */
export function hasType(value: unknown, type: DataType): boolean {
  if (value === null || value === undefined) return type.kind === 'null';
  switch (type.kind) {
    case 'null':
      return false;
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'tinyint':
    case 'smallint':
    case 'int': {
      const [lo, hi] = INT_BOUNDS[type.kind]!;
      return Number.isInteger(value) && (value as number) >= lo && (value as number) <= hi;
    }
    case 'bigint':
      return typeof value === 'bigint';
    case 'float':
    case 'double':
      return typeof value === 'number';
    case 'decimal':
      return typeof value === 'string' && normalizeDecimal(value) !== undefined && decimalFits(value, type.precision, type.scale);
    case 'bytes':
      return value instanceof Uint8Array;
    case 'date':
      return typeof value === 'string' && DATE_RE.test(value);
    case 'time':
      return typeof value === 'string' && TIME_RE.test(value);
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP_RE.test(value);
    case 'timestamp_tz':
      return typeof value === 'string' && TIMESTAMP_TZ_RE.test(value);
    case 'array':
      return Array.isArray(value) && value.every((v) => hasType(v, type.element));
    case 'map':
      if (!(value instanceof Map)) return false;
      for (const [k, v] of value) if (!hasType(k, type.key) || !hasType(v, type.value)) return false;
      return true;
    case 'row':
      return Array.isArray(value) && value.every((v, i) => i < type.fields.length && hasType(v, type.fields[i].type));
  }
}

/** Deep equality of two values of `type` (SeaTunnel's compareValue). */
export function valuesEqual(a: unknown, b: unknown, type: DataType): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  switch (type.kind) {
    case 'row': {
      const x = a as unknown[];
      const y = b as unknown[];
      return x.length === y.length && y.every((v, i) => valuesEqual(x[i], v, type.fields[i].type));
    }
    case 'array': {
      const x = a as unknown[];
      const y = b as unknown[];
      return x.length === y.length && y.every((v, i) => valuesEqual(x[i], v, type.element));
    }
    case 'map': {
      const x = a as Map<unknown, unknown>;
      const y = b as Map<unknown, unknown>;
      if (x.size !== y.size) return false;
      for (const [k, v] of y) if (!x.has(k) || !valuesEqual(x.get(k), v, type.value)) return false;
      return true;
    }
    case 'bytes':
      return Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array));
    case 'float':
      return Math.fround(a as number) === Math.fround(b as number);
    case 'decimal':
      return normalizeDecimal(a) === normalizeDecimal(b);
    default:
      return a === b;
  }
}

/** String.valueOf(value) for the length rules; null is the empty string. */
function lengthOf(value: unknown): number {
  return value === null || value === undefined ? 0 : textOf(value).length;
}

function numeric(value: unknown, type: DataType): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (type.kind === 'decimal' && typeof value === 'string') return Number(value);
  return undefined;
}

function ruleName(r: ValueRule): string {
  const parts = [r.ruleType ?? ''];
  if (r.ruleValue !== undefined) parts.push(`rule_value=${r.ruleValue}`);
  if (r.equalsTo !== undefined) parts.push(`equals_to=${JSON.stringify(r.equalsTo)}`);
  return parts.filter((p) => p !== '').join(' ');
}

function compileValueRule(rule: ValueRule, type: DataType, table: CatalogTable, field: string): (v: unknown) => boolean {
  let expected: unknown;
  if (rule.equalsTo !== undefined) {
    try {
      expected = convertConfigValue(rule.equalsTo, type, `equals_to of field '${field}'`);
    } catch (err) {
      if (err instanceof ConfigValueError)
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `Assert field rule for '${field}' of table ${table.tableId}: ${err.message}`, {
          place: { option: 'rules' },
        });
      throw err;
    }
  }
  const limit = rule.ruleValue ?? 0;
  const check = ((): ((v: unknown) => boolean) => {
    switch (rule.ruleType) {
      case 'NULL':
        return (v) => v === null || v === undefined;
      case 'NOT_NULL':
        return (v) => v !== null && v !== undefined;
      case 'MIN':
        return (v) => {
          const n = numeric(v, type);
          return n !== undefined && n >= limit;
        };
      case 'MAX':
        return (v) => {
          const n = numeric(v, type);
          return n !== undefined && n <= limit;
        };
      case 'MIN_LENGTH':
        return (v) => lengthOf(v) >= limit;
      case 'MAX_LENGTH':
        return (v) => lengthOf(v) <= limit;
      default:
        return () => true;
    }
  })();
  if (rule.equalsTo === undefined) return check;
  return (v) => check(v) && (v === null || v === undefined || valuesEqual(v, expected, type));
}

/** Compiles the field rules of one table; a rule naming a missing column is a config error. */
export function compileFieldRules(rules: readonly FieldRule[], table: CatalogTable): CompiledCheck[] {
  return rules.map((rule) => {
    const index = table.columns.findIndex((c) => c.name === rule.fieldName);
    if (index < 0) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `Assert field rule names field '${rule.fieldName}', which table ${table.tableId} does not have (columns: ${table.columns.map((c) => c.name).join(', ')})`,
        { place: { option: 'rules' } },
      );
    }
    const columnType = table.columns[index].type;
    const fieldType = rule.fieldType;
    const checks = rule.valueRules.map((r) => ({ name: ruleName(r), pass: compileValueRule(r, columnType, table, rule.fieldName) }));
    const typeName = fieldType ? `field_type ${formatType(fieldType)}` : '';
    return {
      fieldName: rule.fieldName,
      index,
      failing: (value) => {
        if (fieldType && !hasType(value, fieldType)) return typeName;
        for (const c of checks) if (!c.pass(value)) return c.name;
        return undefined;
      },
    };
  });
}
