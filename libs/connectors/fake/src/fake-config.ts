import type { CatalogTable, ColumnExtras, PluginOptions, RowKind } from '@tideway/api';
import { parseRowKind, parseSchemaConfig, resolveTableItem, type OptionLookup } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { Place } from '@tideway/common';
import { TABLE_OPTIONS } from './spec.js';

/** What generates the values of one numeric type: a template list, or a [min, max) range. */
export interface NumericFake<T> {
  readonly template?: readonly T[];
  readonly min: T;
  readonly max: T;
}

/** An explicit row from the `rows` option, values still as written in the config. */
export interface RowSpec {
  readonly kind: RowKind;
  readonly fields: unknown;
}

/** Everything FakeSource needs for one of its tables. */
export interface FakeTableConfig {
  readonly table: CatalogTable;
  readonly extras: readonly ColumnExtras[];
  readonly rows?: readonly RowSpec[];
  readonly rowNum: number;
  readonly splitNum: number;
  readonly splitReadInterval: number;
  readonly mapSize: number;
  readonly arraySize: number;
  readonly bytesLength: number;
  readonly stringLength: number;
  readonly stringTemplate?: readonly string[];
  readonly tinyint: NumericFake<number>;
  readonly smallint: NumericFake<number>;
  readonly int: NumericFake<number>;
  readonly bigint: NumericFake<bigint>;
  readonly float: NumericFake<number>;
  readonly double: NumericFake<number>;
  readonly dateYear?: readonly number[];
  readonly dateMonth?: readonly number[];
  readonly dateDay?: readonly number[];
  readonly timeHour?: readonly number[];
  readonly timeMinute?: readonly number[];
  readonly timeSecond?: readonly number[];
}

function badValue(place: Place, option: string, message: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_BAD_VALUE, message, { place: { ...place, option } });
}

function nonEmptyList<T>(v: unknown, map: (x: unknown) => T): T[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v.map(map) : undefined;
}

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return BigInt(String(v));
}

function parseRows(v: unknown, place: Place): RowSpec[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw badValue(place, 'rows', "option 'rows' must be a list of { kind, fields } objects");
  return v.map((r: unknown, i) => {
    const item = r as Record<string, unknown>;
    const kindText = item.kind === undefined ? 'INSERT' : textOf(item.kind);
    const kind = parseRowKind(kindText);
    if (!kind) throw badValue(place, 'rows', `rows[${i}].kind '${kindText}' is not one of INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE`);
    return { kind, fields: item.fields };
  });
}

/** Builds one table's config from its option values; `fallbackTable` is plugin_output. */
export function buildTableConfig(get: OptionLookup, place: Place, fallbackTable?: string): FakeTableConfig {
  const schema = get('schema');
  if (schema === undefined)
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, "FakeSource needs option 'schema'", { place: { ...place, option: 'schema' } });
  const { table, extras } = parseSchemaConfig(schema, { catalogName: 'FakeSource', fallbackTable, place: { ...place, option: 'schema' } });
  const numeric = <T>(type: string, conv: (x: unknown) => T): NumericFake<T> => {
    const template = nonEmptyList(get(`${type}.template`), conv);
    if (get(`${type}.fake.mode`) === 'template' && !template)
      throw badValue(place, `${type}.template`, `${type}.fake.mode is template, so option '${type}.template' must be a non-empty list`);
    const min = conv(get(`${type}.min`));
    const max = conv(get(`${type}.max`));
    if (min > max)
      throw badValue(place, `${type}.min`, `option '${type}.min' (${String(min)}) is larger than '${type}.max' (${String(max)})`);
    return { template, min, max };
  };
  const stringTemplate = nonEmptyList(get('string.template'), String);
  if (get('string.fake.mode') === 'template' && !stringTemplate)
    throw badValue(place, 'string.template', "string.fake.mode is template, so option 'string.template' must be a non-empty list");
  const ints = (name: string): number[] | undefined => nonEmptyList(get(name), Number);
  return {
    table,
    extras,
    rows: parseRows(get('rows'), place),
    rowNum: Number(get('row.num')),
    splitNum: Number(get('split.num')),
    splitReadInterval: Number(get('split.read-interval')),
    mapSize: Number(get('map.size')),
    arraySize: Number(get('array.size')),
    bytesLength: Number(get('bytes.length')),
    stringLength: Number(get('string.length')),
    stringTemplate,
    tinyint: numeric('tinyint', Number),
    smallint: numeric('smallint', Number),
    int: numeric('int', Number),
    bigint: numeric('bigint', toBigInt),
    float: numeric('float', Number),
    double: numeric('double', Number),
    dateYear: ints('date.year.template'),
    dateMonth: ints('date.month.template'),
    dateDay: ints('date.day.template'),
    timeHour: ints('time.hour.template'),
    timeMinute: ints('time.minute.template'),
    timeSecond: ints('time.second.template'),
  };
}

/** The tables of one FakeSource: the top-level options, or each item of `tables_configs`. */
export function buildFakeConfigs(options: PluginOptions): FakeTableConfig[] {
  const place = options.place();
  const fallback = options.get<string | undefined>('plugin_output');
  let configs: FakeTableConfig[];
  if (options.has('tables_configs')) {
    const items = options.get<Record<string, unknown>[]>('tables_configs');
    if (!Array.isArray(items) || items.length === 0)
      throw badValue(place, 'tables_configs', "option 'tables_configs' must be a non-empty list of table configs");
    configs = items.map((item) => buildTableConfig(resolveTableItem(item, TABLE_OPTIONS, { ...place, option: 'tables_configs' }), place));
  } else {
    configs = [buildTableConfig((name) => options.get(name), place, fallback)];
  }
  const ids = configs.map((c) => c.table.tableId);
  if (new Set(ids).size !== ids.length)
    throw badValue(place, 'tables_configs', `FakeSource table names must be unique, got ${ids.join(', ')}`);
  return configs;
}
