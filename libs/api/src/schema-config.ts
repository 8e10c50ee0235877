import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { Place } from '@tideway/common';
import type { CatalogTable, Column, ConstraintKey, PrimaryKey, TablePath } from './row.js';
import { formatTablePath, parseTablePath } from './row.js';
import type { DataType } from './types.js';
import { parseDataType, TypeSyntaxError } from './type-parser.js';

/**
 * SeaTunnel's `schema` option (docs/en/concept/schema-feature.md), shared by every connector
 * that declares its table in the job config (FakeSource, file sources, Assert's field types).
 */

/** Per-column attributes of `schema.columns` that a CatalogTable does not carry. */
export interface ColumnExtras {
  /** `columnLength` (FakeSource uses it as the length of generated strings). */
  readonly length?: number;
  /** `columnScale` (FakeSource rounds generated float/double values to it). */
  readonly scale?: number;
}

export interface ParsedSchema {
  readonly table: CatalogTable;
  /** Same order as `table.columns`. */
  readonly extras: readonly ColumnExtras[];
}

export interface SchemaParseOptions {
  /** CatalogTable.catalogName, e.g. the plugin name. */
  catalogName?: string;
  /** The table name to use when `schema.table` is absent (SeaTunnel: result_table_name). */
  fallbackTable?: string;
  /** Where the schema option is, for error messages. */
  place?: Place;
}

/** SeaTunnel's TablePath.DEFAULT. */
const DEFAULT_TABLE: TablePath = { database: 'default', schema: 'default', table: 'default' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function schemaError(place: Place | undefined, message: string): ConfigError {
  return new ConfigError(ErrorCode.SCHEMA, message, { place });
}

/**
 * A type as written in a config: a type text (`int`, `decimal(10, 2)`, `map<string, {a = int}>`)
 * or a HOCON object describing a row (`{ a = int, b = string }`). `name` is used in messages.
 */
export function parseTypeConfig(value: unknown, name: string, place?: Place): DataType {
  if (isObject(value)) {
    return { kind: 'row', fields: Object.entries(value).map(([f, t]) => ({ name: f, type: parseTypeConfig(t, `${name}.${f}`, place) })) };
  }
  if (typeof value !== 'string')
    throw schemaError(place, `the type of '${name}' must be a type name or an object of fields, got ${JSON.stringify(value)}`);
  try {
    return parseDataType(rowObjectsToRowTypes(value));
  } catch (err) {
    if (err instanceof TypeSyntaxError || err instanceof RowObjectSyntaxError) throw schemaError(place, `field '${name}': ${err.message}`);
    throw err;
  }
}

class RowObjectSyntaxError extends Error {}

/**
 * Rewrites the HOCON/JSON row objects SeaTunnel accepts inside type texts
 * (`map<string, {c_int = int, "c_s": "string"}>`) into `row<...>` so parseDataType reads them.
 */
export function rowObjectsToRowTypes(text: string): string {
  if (!text.includes('{')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '{') {
      const [row, next] = readRowObject(text, i);
      out += row;
      i = next;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

function readQuoted(text: string, i: number): [string, number] {
  const q = text[i];
  let s = '';
  let j = i + 1;
  while (j < text.length && text[j] !== q) {
    if (text[j] === '\\' && j + 1 < text.length) j++;
    s += text[j];
    j++;
  }
  if (j >= text.length) throw new RowObjectSyntaxError(`unterminated quote in type '${text}'`);
  return [s, j + 1];
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

function readRowObject(text: string, start: number): [string, number] {
  const fields: string[] = [];
  let i = start + 1;
  for (;;) {
    i = skipSpace(text, i);
    while (text[i] === ',') i = skipSpace(text, i + 1);
    if (i >= text.length) throw new RowObjectSyntaxError(`unclosed '{' in type '${text}'`);
    if (text[i] === '}') return [`row<${fields.join(', ')}>`, i + 1];
    let key: string;
    if (text[i] === '"' || text[i] === "'") [key, i] = readQuoted(text, i);
    else {
      const s = i;
      while (i < text.length && !/[\s=:]/.test(text[i])) i++;
      key = text.slice(s, i);
    }
    i = skipSpace(text, i);
    if (text[i] !== '=' && text[i] !== ':') throw new RowObjectSyntaxError(`expected '=' after field '${key}' in type '${text}'`);
    i = skipSpace(text, i + 1);
    let typeText: string;
    if (text[i] === '{') [typeText, i] = readRowObject(text, i);
    else if (text[i] === '"' || text[i] === "'") {
      let quoted: string;
      [quoted, i] = readQuoted(text, i);
      typeText = rowObjectsToRowTypes(quoted);
    } else {
      const s = i;
      let depth = 0;
      while (i < text.length) {
        const ch = text[i];
        if (ch === '<' || ch === '(' || ch === '{') depth++;
        else if (depth > 0 && (ch === '>' || ch === ')' || ch === '}')) depth--;
        else if (depth === 0 && (ch === ',' || ch === '}' || ch === '\n')) break;
        i++;
      }
      typeText = rowObjectsToRowTypes(text.slice(s, i).trim());
    }
    fields.push(`\`${key}\` ${typeText}`);
  }
}

function optionalString(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return v === undefined || v === null ? undefined : textOf(v);
}

function stringList(v: unknown, what: string, place: Place | undefined): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  throw schemaError(place, `${what} must be a list of column names`);
}

function parseColumns(schema: Record<string, unknown>, place: Place | undefined): { columns: Column[]; extras: ColumnExtras[] } {
  const columns: Column[] = [];
  const extras: ColumnExtras[] = [];
  if (schema.columns !== undefined) {
    if (!Array.isArray(schema.columns)) throw schemaError(place, 'schema.columns must be a list of column objects');
    schema.columns.forEach((c, idx) => {
      if (!isObject(c)) throw schemaError(place, `schema.columns[${idx}] must be an object with name and type`);
      const name = optionalString(c, 'name');
      if (name === undefined) throw schemaError(place, `schema.columns[${idx}] needs option 'name'`);
      if (c.type === undefined) throw schemaError(place, `schema.columns[${idx}] ('${name}') needs option 'type'`);
      const col: Column = {
        name,
        type: parseTypeConfig(c.type, name, place),
        nullable: c.nullable === undefined ? true : c.nullable === true || c.nullable === 'true',
      };
      if (c.defaultValue !== undefined && c.defaultValue !== null) col.defaultValue = c.defaultValue;
      const comment = optionalString(c, 'comment');
      if (comment !== undefined) col.comment = comment;
      columns.push(col);
      extras.push({
        length: c.columnLength === undefined ? undefined : Number(c.columnLength),
        scale: c.columnScale === undefined ? undefined : Number(c.columnScale),
      });
    });
  } else if (isObject(schema.fields)) {
    for (const [name, t] of Object.entries(schema.fields)) {
      columns.push({ name, type: parseTypeConfig(t, name, place), nullable: true });
      extras.push({});
    }
  } else {
    throw schemaError(place, "schema needs 'columns' (a list of columns) or 'fields' (an object of name = type)");
  }
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c.name)) throw schemaError(place, `schema declares column '${c.name}' twice`);
    seen.add(c.name);
  }
  return { columns, extras };
}

function parsePrimaryKey(v: unknown, columns: Column[], place: Place | undefined): PrimaryKey {
  if (!isObject(v)) throw schemaError(place, 'schema.primaryKey must be an object with name and columnNames');
  const name = optionalString(v, 'name');
  if (name === undefined) throw schemaError(place, "schema.primaryKey needs option 'name'");
  const raw = v.columnNames ?? v.columns;
  if (raw === undefined) throw schemaError(place, "schema.primaryKey needs option 'columnNames'");
  const cols = stringList(raw, 'schema.primaryKey.columnNames', place);
  for (const c of cols)
    if (!columns.some((col) => col.name === c))
      throw schemaError(place, `schema.primaryKey names column '${c}', which the schema does not declare`);
  return { name, columns: cols };
}

const CONSTRAINT_TYPES: Record<string, ConstraintKey['type']> = {
  KEY: 'INDEX_KEY',
  INDEX_KEY: 'INDEX_KEY',
  UNIQUE_KEY: 'UNIQUE_KEY',
  UNIQUE: 'UNIQUE_KEY',
  FOREIGN_KEY: 'FOREIGN_KEY',
};

/** Parses one constraint type name as SeaTunnel writes it (KEY/INDEX_KEY, UNIQUE_KEY, FOREIGN_KEY). */
export function parseConstraintType(text: string): ConstraintKey['type'] | undefined {
  return CONSTRAINT_TYPES[text.toUpperCase()];
}

function parseConstraintKeys(v: unknown, place: Place | undefined): ConstraintKey[] {
  if (!Array.isArray(v)) throw schemaError(place, 'schema.constraintKeys must be a list');
  return v.map((k, idx) => {
    if (!isObject(k)) throw schemaError(place, `schema.constraintKeys[${idx}] must be an object`);
    const name = optionalString(k, 'constraintName');
    if (name === undefined) throw schemaError(place, `schema.constraintKeys[${idx}] needs option 'constraintName'`);
    const typeText = optionalString(k, 'constraintType') ?? 'INDEX_KEY';
    const type = parseConstraintType(typeText);
    if (!type)
      throw schemaError(
        place,
        `schema.constraintKeys[${idx}].constraintType '${typeText}' is not one of INDEX_KEY, UNIQUE_KEY, FOREIGN_KEY`,
      );
    if (!Array.isArray(k.constraintColumns)) throw schemaError(place, `schema.constraintKeys[${idx}] needs a list 'constraintColumns'`);
    const columns = k.constraintColumns.map((c) => (isObject(c) ? String(c.columnName) : String(c)));
    return { name, type, columns };
  });
}

/**
 * Builds the CatalogTable that a `schema` option describes: `table` (with `schema_first`),
 * `comment`, `columns` or the deprecated `fields`, `primaryKey`, `constraintKeys`.
 */
export function parseSchemaConfig(schema: unknown, opts: SchemaParseOptions = {}): ParsedSchema {
  const place = opts.place;
  if (!isObject(schema)) throw schemaError(place, "option 'schema' must be an object with 'fields' or 'columns'");
  const { columns, extras } = parseColumns(schema, place);
  let path: TablePath;
  const tableText = optionalString(schema, 'table');
  if (tableText !== undefined && tableText !== '') {
    path = parseTablePath(tableText);
    const schemaFirst = schema.schema_first === true || schema.schema_first === 'true';
    // `schema_first`: a two-part name is schema.table rather than database.table.
    if (schemaFirst && path.schema === undefined && path.database !== undefined) path = { schema: path.database, table: path.table };
  } else if (opts.fallbackTable) {
    path = parseTablePath(opts.fallbackTable);
  } else {
    path = DEFAULT_TABLE;
  }
  const table: CatalogTable = { tableId: formatTablePath(path), path, columns };
  if (opts.catalogName !== undefined) table.catalogName = opts.catalogName;
  if (schema.primaryKey !== undefined) table.primaryKey = parsePrimaryKey(schema.primaryKey, columns, place);
  if (schema.constraintKeys !== undefined) table.constraintKeys = parseConstraintKeys(schema.constraintKeys, place);
  const comment = optionalString(schema, 'comment');
  if (comment !== undefined) table.comment = comment;
  return { table, extras };
}
