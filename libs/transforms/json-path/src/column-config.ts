import { TypeSyntaxError, parseDataType, type DataType, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';

/** How a data error is handled: fail the job, skip (null the column / drop the row), or drop the row. */
export type ErrorHandleWay = 'FAIL' | 'SKIP' | 'SKIP_ROW';

/** One entry of JsonPath's `columns`. */
export interface ColumnConfig {
  readonly srcField: string;
  readonly path: string;
  readonly destField: string;
  readonly destType: DataType;
  /** Overrides row_error_handle_way for this column when set. */
  readonly errorHandleWay?: ErrorHandleWay;
}

const KEYS = new Set(['src_field', 'path', 'dest_field', 'dest_type', 'column_error_handle_way']);
const WAYS: readonly ErrorHandleWay[] = ['FAIL', 'SKIP', 'SKIP_ROW'];

/** Reads and checks `columns` (docs/en/transform-v2/jsonpath.md): a ConfigError names the entry and key. */
export function readColumnConfigs(pluginName: string, options: PluginOptions): ColumnConfig[] {
  const place = options.place('columns');
  const list = options.get<unknown>('columns');
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigError(
      ErrorCode.CONFIG_MISSING_OPTION,
      `${pluginName} needs option 'columns' (a non-empty list of {src_field, path, dest_field})`,
      { place },
    );
  }
  const seen = new Set<string>();
  return list.map((entry: unknown, i): ColumnConfig => {
    const where = `${pluginName}: columns[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where} must be an object`, { place });
    }
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).find((k) => !KEYS.has(k));
    if (unknown !== undefined) {
      throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_OPTION, `${where} has unknown key '${unknown}' (known: ${[...KEYS].join(', ')})`, {
        place,
      });
    }
    const text = (key: string): string => {
      const v = e[key];
      if (typeof v !== 'string' || v.trim() === '')
        throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${where} needs '${key}' (a non-empty string)`, { place });
      return v;
    };
    const destField = text('dest_field');
    if (seen.has(destField))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: dest_field '${destField}' is used by an earlier column`, { place });
    seen.add(destField);
    let destType: DataType;
    const typeText = e.dest_type === undefined ? 'string' : text('dest_type');
    try {
      destType = parseDataType(typeText);
    } catch (err) {
      if (!(err instanceof TypeSyntaxError)) throw err;
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: dest_type '${typeText}' is not a type: ${err.message}`, { place });
    }
    let errorHandleWay: ErrorHandleWay | undefined;
    if (e.column_error_handle_way !== undefined) {
      const way = textOf(e.column_error_handle_way).toUpperCase();
      if (!(WAYS as readonly string[]).includes(way)) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${where}: column_error_handle_way must be one of ${WAYS.join(', ')}, got '${textOf(e.column_error_handle_way)}'`,
          { place },
        );
      }
      errorHandleWay = way as ErrorHandleWay;
    }
    return { srcField: text('src_field'), path: text('path'), destField, destType, errorHandleWay };
  });
}
