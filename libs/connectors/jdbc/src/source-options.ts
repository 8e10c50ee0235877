import type { OptionDef, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { CONNECTION_OPTIONS, compileConnection, type CompiledConnection } from './connection-options.js';

/** The Jdbc source's options, after SeaTunnel's docs/en/connector-v2/source/Jdbc.md. */
export const SOURCE_OPTIONS: readonly OptionDef[] = [
  ...CONNECTION_OPTIONS,
  { name: 'query', type: 'string', description: 'Query to read; with table_path, it filters or projects that table.' },
  {
    name: 'table_path',
    type: 'string',
    description: 'Table to read instead of a query: db.table (MySQL), db.schema.table or schema.table (PostgreSQL).',
  },
  {
    name: 'table_list',
    type: 'object-list',
    description: 'Several tables to read: entries with table_path and optionally query, partition_column, partition_num, split.size.',
  },
  {
    name: 'where_condition',
    type: 'string',
    description: 'Row filter for every table or query, starting with `where`, e.g. `where id > 100`.',
  },
  {
    name: 'partition_column',
    type: 'string',
    description: 'Column to split the reading by: numeric (ranges) or text (hash buckets, partition_num of them).',
  },
  { name: 'partition_lower_bound', type: 'any', description: 'Smallest partition_column value to read (default: the column minimum).' },
  { name: 'partition_upper_bound', type: 'any', description: 'Largest partition_column value to read (default: the column maximum).' },
  {
    name: 'partition_num',
    type: 'int',
    min: 1,
    description: 'Number of splits; default: split.size decides for tables, job parallelism for queries.',
  },
  {
    name: 'fetch_size',
    type: 'int',
    default: 0,
    min: 0,
    description:
      'Rows per batch a reader hands on (on MySQL also the rows buffered from the result stream; PostgreSQL streams with COPY); 0 means 1024.',
  },
  {
    name: 'split.size',
    type: 'int',
    default: 8096,
    min: 1,
    description:
      "Rows per split when tables are split automatically. The table's rows are counted with COUNT(*); a PostgreSQL table_path read whole (no where_condition, no query with WHERE) takes pg_class's estimate instead, as SeaTunnel does, so after large changes an ANALYZE keeps splits even.",
  },
  {
    name: 'split.even-distribution.factor.lower-bound',
    type: 'double',
    default: 0.05,
    description: 'Lowest (max - min + 1) / rows for which the key counts as evenly distributed.',
  },
  {
    name: 'split.even-distribution.factor.upper-bound',
    type: 'double',
    default: 100,
    description: 'Highest (max - min + 1) / rows for which the key counts as evenly distributed.',
  },
  {
    name: 'split.sample-sharding.threshold',
    type: 'int',
    default: 1000,
    min: 1,
    description: 'Estimated split count above which an unevenly distributed key is split by sampling.',
  },
  { name: 'split.inverse-sampling.rate', type: 'int', default: 1000, min: 1, description: 'Sampling keeps one key in this many.' },
  { name: 'decimal_type_narrowing', type: 'boolean', default: true, description: 'Oracle only in SeaTunnel; rejected when set here.' },
  { name: 'use_select_count', type: 'boolean', default: false, description: 'Oracle only in SeaTunnel; rejected when set here.' },
  { name: 'skip_analyze', type: 'boolean', default: false, description: 'Oracle only in SeaTunnel; rejected when set here.' },
];

const TABLE_LIST_KEYS = new Set(['table_path', 'query', 'partition_column', 'partition_num', 'split.size']);
const ORACLE_ONLY = ['decimal_type_narrowing', 'use_select_count', 'skip_analyze'];

/** One table (or query) to read, as configured. */
export interface SourceTableConfig {
  readonly tablePath?: string;
  readonly query?: string;
  readonly partitionColumn?: string;
  readonly partitionNum?: number;
  readonly splitSize: number;
  readonly place: Place;
}

/** The Jdbc source's options, compiled and checked. */
export interface SourceConfig {
  readonly connection: CompiledConnection;
  readonly tables: readonly SourceTableConfig[];
  readonly whereCondition?: string;
  readonly lowerBound?: string;
  readonly upperBound?: string;
  readonly fetchSize: number;
  readonly evenLower: number;
  readonly evenUpper: number;
  readonly sampleThreshold: number;
  readonly samplingRate: number;
}

function boundText(options: PluginOptions, name: string): string | undefined {
  if (!options.has(name)) return undefined;
  const v = options.get<unknown>(name);
  const text = typeof v === 'bigint' || typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^-?\d+(\.\d+)?$/.test(text)) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${name} must be a number, not ${JSON.stringify(v)}`, { place: options.place(name) });
  }
  return text;
}

/** Checks option combinations and builds the source config. */
export function compileSourceOptions(options: PluginOptions): SourceConfig {
  for (const name of ORACLE_ONLY) {
    if (options.has(name)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${name} applies to Oracle only; this connector reads PostgreSQL and MySQL/MariaDB`,
        {
          place: options.place(name),
        },
      );
    }
  }
  const connection = compileConnection(options);
  const splitSize = options.get<number>('split.size');
  const hasList = options.has('table_list');
  const hasPath = options.has('table_path');
  const hasQuery = options.has('query');
  if (hasList && (hasPath || hasQuery)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      'table_list cannot be combined with table_path or query (give each table its own entry)',
      {
        place: options.place('table_list'),
      },
    );
  }
  if (!hasList && !hasPath && !hasQuery) {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, 'one of query, table_path or table_list is required', {
      place: options.place(),
    });
  }
  const where = options.get<string | undefined>('where_condition');
  if (where !== undefined && !/^\s*where\s/i.test(where)) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `where_condition must start with 'where', e.g. 'where id > 100', not '${where}'`, {
      place: options.place('where_condition'),
    });
  }
  let tables: SourceTableConfig[];
  if (hasList) {
    const list = options.get<Record<string, unknown>[]>('table_list');
    if (list.length === 0) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'table_list is empty', { place: options.place('table_list') });
    if (options.has('partition_column')) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'partition_column applies to one table: set it inside the table_list entries', {
        place: options.place('partition_column'),
      });
    }
    tables = list.map((entry, i) => {
      const place = { ...options.place('table_list'), option: `table_list[${i}]` };
      for (const key of Object.keys(entry)) {
        if (!TABLE_LIST_KEYS.has(key))
          throw new ConfigError(
            ErrorCode.CONFIG_UNKNOWN_OPTION,
            `table_list entries take ${[...TABLE_LIST_KEYS].join(', ')}, not '${key}'`,
            { place },
          );
      }
      if (typeof entry.table_path !== 'string')
        throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, 'table_list entry needs a table_path', { place });
      return {
        tablePath: entry.table_path,
        query: typeof entry.query === 'string' ? entry.query : undefined,
        partitionColumn: typeof entry.partition_column === 'string' ? entry.partition_column : undefined,
        partitionNum: entry.partition_num !== undefined ? Number(entry.partition_num) : undefined,
        splitSize: entry['split.size'] !== undefined ? Number(entry['split.size']) : splitSize,
        place,
      };
    });
  } else {
    tables = [
      {
        tablePath: options.get<string | undefined>('table_path'),
        query: options.get<string | undefined>('query'),
        partitionColumn: options.get<string | undefined>('partition_column'),
        partitionNum: options.get<number | undefined>('partition_num'),
        splitSize,
        place: options.place(hasPath ? 'table_path' : 'query'),
      },
    ];
  }
  const lowerBound = boundText(options, 'partition_lower_bound');
  const upperBound = boundText(options, 'partition_upper_bound');
  if ((lowerBound !== undefined || upperBound !== undefined) && !options.has('partition_column')) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'partition_lower_bound and partition_upper_bound need partition_column', {
      place: options.place(lowerBound !== undefined ? 'partition_lower_bound' : 'partition_upper_bound'),
    });
  }
  const fetch = options.get<number>('fetch_size');
  return {
    connection,
    tables,
    whereCondition: where,
    lowerBound,
    upperBound,
    fetchSize: fetch > 0 ? fetch : 1024,
    evenLower: options.get<number>('split.even-distribution.factor.lower-bound'),
    evenUpper: options.get<number>('split.even-distribution.factor.upper-bound'),
    sampleThreshold: options.get<number>('split.sample-sharding.threshold'),
    samplingRate: options.get<number>('split.inverse-sampling.rate'),
  };
}

/** The Jdbc source's spec. */
export const SOURCE_SPEC: PluginSpec = { options: SOURCE_OPTIONS };
