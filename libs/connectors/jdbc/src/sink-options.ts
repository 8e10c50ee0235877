import type { OptionDef, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { CONNECTION_OPTIONS, compileConnection, type CompiledConnection } from './connection-options.js';
import { checkXaDataSource, type JdbcTarget } from './jdbc-url.js';

export const SCHEMA_SAVE_MODES = ['RECREATE_SCHEMA', 'CREATE_SCHEMA_WHEN_NOT_EXIST', 'ERROR_WHEN_SCHEMA_NOT_EXIST', 'IGNORE'] as const;
export const DATA_SAVE_MODES = ['DROP_DATA', 'APPEND_DATA', 'CUSTOM_PROCESSING', 'ERROR_WHEN_DATA_EXISTS'] as const;
export type SchemaSaveMode = (typeof SCHEMA_SAVE_MODES)[number];
export type DataSaveMode = (typeof DATA_SAVE_MODES)[number];
export type FieldIde = 'ORIGINAL' | 'UPPERCASE' | 'LOWERCASE';

/** The Jdbc sink's options, after SeaTunnel's docs/en/connector-v2/sink/Jdbc.md. */
export const SINK_OPTIONS: readonly OptionDef[] = [
  ...CONNECTION_OPTIONS,
  {
    name: 'query',
    type: 'string',
    description:
      'Statement run for every row, with `?` for the fields in order, e.g. `insert into t(a, b) values(?, ?)`, or named parameters `:field` for the fields of those names, in any order and more than once, e.g. `insert into t(b, a) values(:b, :a)`.',
  },
  { name: 'database', type: 'string', description: 'Database of the table the sink generates its SQL for (supports ${database_name}).' },
  {
    name: 'table',
    type: 'string',
    description: 'Table the sink generates its SQL for (supports ${table_name}, ${schema_name}); `schema.table` on PostgreSQL.',
  },
  {
    name: 'generate_sink_sql',
    type: 'boolean',
    default: false,
    description:
      'Generate insert/upsert/delete statements for database and table (table defaults to ${table_name}). With query too, as in SeaTunnel, rows are written by query and the save modes apply to database/table.',
  },
  {
    name: 'schema',
    type: 'string',
    description:
      "PostgreSQL: schema of every target table, replacing the one in table (supports ${schema_name}); SeaTunnel's JdbcCatalogOptions.",
  },
  {
    name: 'tablePrefix',
    type: 'string',
    description: "Put before every target table's name, around ${table_name} (multi-table sinks); SeaTunnel's JdbcCatalogOptions.",
  },
  {
    name: 'tableSuffix',
    type: 'string',
    description: "Put after every target table's name, around ${table_name} (multi-table sinks); SeaTunnel's JdbcCatalogOptions.",
  },
  { name: 'primary_keys', type: 'list', description: 'Key columns: rows are upserted and deleted by them (supports ${primary_key}).' },
  {
    name: 'enable_upsert',
    type: 'boolean',
    default: true,
    description: 'Upsert by primary key; false writes by checking whether the key exists.',
  },
  {
    name: 'support_upsert_by_query_primary_key_exist',
    type: 'boolean',
    default: false,
    description: 'Insert or update by checking whether the key exists, instead of the upsert statement.',
  },
  { name: 'batch_size', type: 'int', default: 1000, min: 1, description: 'Rows buffered before they are written.' },
  {
    name: 'max_retries',
    type: 'int',
    default: 0,
    min: 0,
    description: 'Retries of a failed batch (outside transactions); a failed PostgreSQL COPY is written again whole.',
  },
  {
    name: 'auto_commit',
    type: 'boolean',
    default: true,
    description:
      'Commit every batch; false commits at checkpoints and at the end. PostgreSQL plain inserts stream batches into one COPY, committed at checkpoints, before other statements, and once it holds 16 MiB or is a second old (checked as batches arrive).',
  },
  {
    name: 'is_exactly_once',
    type: 'boolean',
    default: false,
    description: 'Write in XA / prepared transactions committed at checkpoints.',
  },
  {
    name: 'xa_data_source_class_name',
    type: 'string',
    description: 'XA data source class; required with is_exactly_once and checked against the url.',
  },
  { name: 'max_commit_attempts', type: 'int', default: 3, min: 1, description: 'Attempts to commit a prepared transaction.' },
  {
    name: 'transaction_timeout_sec',
    type: 'int',
    default: -1,
    description:
      "Seconds an open transaction may stay idle before the database ends it; -1 never. With is_exactly_once on PostgreSQL also how long a new transaction waits for the previous checkpoint's commit (60 s when -1).",
  },
  {
    name: 'field_ide',
    type: 'enum',
    values: ['ORIGINAL', 'UPPERCASE', 'LOWERCASE'],
    description: 'Case of generated table and column names.',
  },
  {
    name: 'schema_save_mode',
    type: 'enum',
    values: SCHEMA_SAVE_MODES,
    default: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
    description:
      'What to do about the target table before the job starts; also for a table a CDC source adds while the job runs (created by CREATE_SCHEMA_WHEN_NOT_EXIST and RECREATE_SCHEMA when missing, never dropped mid-job; ERROR_WHEN_SCHEMA_NOT_EXIST fails when missing; IGNORE does nothing).',
  },
  {
    name: 'data_save_mode',
    type: 'enum',
    values: DATA_SAVE_MODES,
    default: 'APPEND_DATA',
    description: 'What to do about existing rows before the job starts.',
  },
  { name: 'custom_sql', type: 'string', description: 'SQL run before the job when data_save_mode is CUSTOM_PROCESSING.' },
  {
    name: 'use_copy_statement',
    type: 'boolean',
    default: false,
    description: 'PostgreSQL: write every row with COPY FROM STDIN (no upserts or deletes).',
  },
  { name: 'create_index', type: 'boolean', default: true, description: 'Create the primary key when the sink creates the table.' },
];

export interface SinkConfig {
  readonly connection: CompiledConnection;
  readonly query?: string;
  readonly database?: string;
  readonly table?: string;
  /** Catalog options: the target schema (PostgreSQL), and what surrounds each table name. */
  readonly schema?: string;
  readonly tablePrefix: string;
  readonly tableSuffix: string;
  readonly primaryKeys?: readonly string[];
  readonly enableUpsert: boolean;
  readonly upsertByQuery: boolean;
  readonly batchSize: number;
  readonly maxRetries: number;
  readonly autoCommit: boolean;
  readonly exactlyOnce: boolean;
  readonly maxCommitAttempts: number;
  readonly transactionTimeoutSec: number;
  readonly fieldIde: FieldIde;
  readonly schemaSaveMode: SchemaSaveMode;
  readonly dataSaveMode: DataSaveMode;
  readonly customSql?: string;
  readonly useCopy: boolean;
  readonly createIndex: boolean;
}

/** What a SQLite target cannot do, refused by option name (decision 0051). */
/** SQLite and Firebird sinks: no XA here, no idle-transaction timeout, one database per url. */
function checkSinkWithoutXa(options: PluginOptions, target: JdbcTarget, bad: (option: string, message: string) => ConfigError): void {
  const name = target.dialect === 'sqlite' ? 'SQLite' : 'Firebird';
  if (options.get<boolean>('is_exactly_once')) {
    const why =
      target.dialect === 'sqlite'
        ? 'it has no XA or prepared transactions'
        : 'this connector does not drive its two-phase commit (the Node client has no prepare and recover)';
    throw bad(
      'is_exactly_once',
      `is_exactly_once is not supported for ${name}: ${why} (give primary_keys for idempotent upserts: at-least-once delivery then ends with each row once)`,
    );
  }
  if (options.get<number>('transaction_timeout_sec') !== -1)
    throw bad('transaction_timeout_sec', `transaction_timeout_sec is not supported for ${name}: it has no idle transaction timeout`);
  if (options.has('database') && options.get<string>('database') !== target.database)
    throw bad(
      'database',
      `database '${options.get<string>('database')}' is not supported for ${name}: the url names the database (${target.database})`,
    );
}

/** Checks option combinations and builds the sink config. */
export function compileSinkOptions(options: PluginOptions): SinkConfig {
  const connection = compileConnection(options);
  const bad = (option: string, message: string) => new ConfigError(ErrorCode.CONFIG_BAD_VALUE, message, { place: options.place(option) });
  const query = options.get<string | undefined>('query');
  // SeaTunnel: query, when given, writes the rows; generate_sink_sql then still names the table
  // the save modes prepare (its table defaulting to ${table_name}, as SeaTunnel's factory does).
  const generate = options.get<boolean>('generate_sink_sql') || (options.has('table') && query === undefined);
  if (!generate && query === undefined) {
    throw new ConfigError(
      ErrorCode.CONFIG_MISSING_OPTION,
      'the Jdbc sink needs query, or generate_sink_sql = true with database and table',
      { place: options.place() },
    );
  }
  if (query !== undefined && options.has('table') && !options.get<boolean>('generate_sink_sql')) {
    throw bad(
      'table',
      'table without generate_sink_sql = true cannot be combined with query: the sink would run query and ignore table (set generate_sink_sql = true to have the save modes prepare table)',
    );
  }
  if (generate && connection.target.dialect === 'mysql' && !options.has('database') && connection.target.database === undefined) {
    throw bad('generate_sink_sql', 'generate_sink_sql needs the database option (or a database in the url)');
  }
  if (!generate) {
    for (const o of [
      'schema_save_mode',
      'data_save_mode',
      'primary_keys',
      'field_ide',
      'use_copy_statement',
      'schema',
      'tablePrefix',
      'tableSuffix',
    ]) {
      if (options.has(o))
        throw bad(o, `${o} applies only when the sink generates its SQL (generate_sink_sql with database and table), not with query`);
    }
  }
  if (query !== undefined && options.get<boolean>('use_copy_statement'))
    throw bad('use_copy_statement', 'use_copy_statement cannot be combined with query: rows are written by query');
  if (options.has('schema') && connection.target.dialect !== 'postgresql') {
    throw bad('schema', 'schema applies to PostgreSQL targets; MySQL and MariaDB tables live in a database (use database)');
  }
  const exactlyOnce = options.get<boolean>('is_exactly_once');
  if (connection.target.dialect === 'sqlite' || connection.target.dialect === 'firebird')
    checkSinkWithoutXa(options, connection.target, bad);
  if (exactlyOnce) {
    if (!options.has('xa_data_source_class_name')) throw bad('is_exactly_once', 'is_exactly_once needs xa_data_source_class_name');
    checkXaDataSource(connection.target, options.get<string>('xa_data_source_class_name'), options.place('xa_data_source_class_name'));
    if (options.has('auto_commit') && options.get<boolean>('auto_commit'))
      throw bad('auto_commit', 'auto_commit = true cannot be combined with is_exactly_once');
    if (options.get<boolean>('use_copy_statement') === true && connection.target.dialect !== 'postgresql')
      throw bad('use_copy_statement', 'use_copy_statement needs PostgreSQL');
  } else if (options.has('xa_data_source_class_name')) {
    throw bad('xa_data_source_class_name', 'xa_data_source_class_name needs is_exactly_once = true');
  }
  if (options.get<boolean>('use_copy_statement') && connection.target.dialect !== 'postgresql') {
    throw bad('use_copy_statement', 'use_copy_statement needs PostgreSQL (COPY FROM STDIN)');
  }
  const dataSaveMode = options.get<DataSaveMode>('data_save_mode');
  if (dataSaveMode === 'CUSTOM_PROCESSING' && !options.has('custom_sql'))
    throw bad('data_save_mode', 'data_save_mode CUSTOM_PROCESSING needs custom_sql');
  if (options.has('custom_sql') && dataSaveMode !== 'CUSTOM_PROCESSING')
    throw bad('custom_sql', 'custom_sql needs data_save_mode = CUSTOM_PROCESSING');
  const timeout = options.get<number>('transaction_timeout_sec');
  if (timeout !== -1 && timeout < 1)
    throw bad('transaction_timeout_sec', `transaction_timeout_sec must be -1 (never) or at least 1, not ${timeout}`);
  if (timeout !== -1 && !exactlyOnce && options.get<boolean>('auto_commit')) {
    throw bad(
      'transaction_timeout_sec',
      'transaction_timeout_sec needs is_exactly_once or auto_commit = false (there is no long transaction otherwise)',
    );
  }
  const pks = options.get<unknown[] | undefined>('primary_keys');
  return {
    connection,
    query,
    database: options.get<string | undefined>('database'),
    table: generate ? (options.get<string | undefined>('table') ?? '${table_name}') : undefined,
    schema: options.get<string | undefined>('schema'),
    tablePrefix: options.get<string | undefined>('tablePrefix') ?? '',
    tableSuffix: options.get<string | undefined>('tableSuffix') ?? '',
    primaryKeys: pks?.map(String),
    enableUpsert: options.get<boolean>('enable_upsert'),
    upsertByQuery: options.get<boolean>('support_upsert_by_query_primary_key_exist'),
    batchSize: options.get<number>('batch_size'),
    maxRetries: options.get<number>('max_retries'),
    autoCommit: exactlyOnce ? false : options.get<boolean>('auto_commit'),
    exactlyOnce,
    maxCommitAttempts: options.get<number>('max_commit_attempts'),
    transactionTimeoutSec: timeout,
    fieldIde: options.get<FieldIde | undefined>('field_ide') ?? 'ORIGINAL',
    schemaSaveMode: options.get<SchemaSaveMode>('schema_save_mode'),
    dataSaveMode,
    customSql: options.get<string | undefined>('custom_sql'),
    useCopy: options.get<boolean>('use_copy_statement'),
    createIndex: options.get<boolean>('create_index'),
  };
}

export const SINK_SPEC: PluginSpec = { options: SINK_OPTIONS };
