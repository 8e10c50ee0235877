import type { OptionDef, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import type { ChunkingOptions } from './chunk-planner.js';
import { COMPATIBLE_DEBEZIUM_KEYS } from './debezium-envelope.js';

/** Options SeaTunnel's CDC sources share (docs/en/connector-v2/source/MySQL-CDC.md, PostgreSQL-CDC.md). */
export const CDC_COMMON_OPTIONS: readonly OptionDef[] = [
  {
    name: 'base-url',
    type: 'string',
    required: true,
    fallbackNames: ['url'],
    description:
      "JDBC URL of the database, e.g. jdbc:postgresql://host:5432/db or jdbc:mysql://host:3306/db (`url` is accepted too, as SeaTunnel's configs write it).",
  },
  { name: 'username', type: 'string', required: true, description: 'User name.' },
  { name: 'password', type: 'string', required: true, description: 'Password.' },
  { name: 'database-names', type: 'list', description: 'Databases to capture; every table-names entry must lie in one of them.' },
  {
    name: 'table-names',
    type: 'list',
    description:
      'Tables to capture, with their database (MySQL db.table, PostgreSQL db.schema.table); several in one job. Required unless table-pattern or database-pattern is given.',
  },
  {
    name: 'table-pattern',
    type: 'string',
    description:
      'Regular expression the whole qualified name of a table must match to be captured (MySQL db.table, PostgreSQL db.schema.table, e.g. "shop\\.orders_.*"), instead of table-names. A matching table created while the job runs joins it from its CREATE TABLE (MySQL-CDC, seen in the binlog) or its first row (Postgres-CDC, whose publication is then FOR ALL TABLES): a new table downstream, which the Jdbc sink creates by its schema_save_mode, its rows, kept across checkpoints and restores.',
  },
  {
    name: 'database-pattern',
    type: 'string',
    description:
      'Regular expression the whole database name must match for its tables to be captured, instead of table-names (PostgreSQL: the base-url database; schema-names narrows the schemas); with table-pattern both must match.',
  },
  {
    name: 'table-names-config',
    type: 'object-list',
    description:
      'Per-table settings: [{table = "db.t", primaryKeys = ["id"], snapshotSplitColumn = "id"}] for tables without a primary key.',
  },
  {
    name: 'startup.mode',
    type: 'enum',
    values: ['initial', 'earliest', 'latest', 'specific', 'timestamp'],
    default: 'initial',
    description:
      'initial: snapshot (its chunks read by every reader), then changes; earliest: changes from the oldest available position; latest: changes from now on; specific: from a given position (MySQL-CDC a binlog file and position, Postgres-CDC an LSN); timestamp: changes from a time (MySQL-CDC).',
  },
  { name: 'snapshot.split.size', type: 'int', default: 8096, min: 1, description: 'Rows per snapshot chunk.' },
  {
    name: 'snapshot.fetch.size',
    type: 'int',
    default: 1024,
    min: 1,
    description: 'Rows fetched per round trip while reading a chunk, and changes emitted per poll.',
  },
  { name: 'server-time-zone', type: 'string', default: 'UTC', description: 'Session time zone: zoned timestamps are rendered in it.' },
  { name: 'connect.timeout.ms', type: 'long', default: 30000, min: 1, description: 'Milliseconds to wait for a connection.' },
  { name: 'connect.max-retries', type: 'int', default: 3, min: 0, description: 'Times a failed connection attempt is retried.' },
  {
    name: 'connection.pool.size',
    type: 'int',
    default: 20,
    min: 1,
    description: 'Most connections the source may open; it needs two (one for chunks, one for the stream).',
  },
  {
    name: 'chunk-key.even-distribution.factor.upper-bound',
    type: 'double',
    default: 100,
    description: 'Highest (max - min + 1) / rows for which the key counts as evenly distributed.',
  },
  {
    name: 'chunk-key.even-distribution.factor.lower-bound',
    type: 'double',
    default: 0.05,
    description: 'Lowest (max - min + 1) / rows for which the key counts as evenly distributed.',
  },
  {
    name: 'sample-sharding.threshold',
    type: 'int',
    default: 1000,
    min: 1,
    description: 'Estimated chunk count above which an unevenly distributed key is chunked by sampling.',
  },
  { name: 'inverse-sampling.rate', type: 'int', default: 1000, min: 1, description: 'Sampling keeps one key in this many.' },
  {
    name: 'exactly_once',
    type: 'boolean',
    default: false,
    description: 'Exactly-once reading. The snapshot-to-stream hand-over here always de-duplicates, so both values read every change once.',
  },
  {
    name: 'format',
    type: 'enum',
    values: ['DEFAULT', 'COMPATIBLE_DEBEZIUM_JSON'],
    default: 'DEFAULT',
    description:
      "DEFAULT: typed rows of each captured table. COMPATIBLE_DEBEZIUM_JSON: one table default.default of (topic, key, value) strings holding Debezium's own record of each change (topic <server>.<database or schema>.<table>, key the primary key, value the envelope before/after/source/op/ts_ms/transaction, with its Kafka Connect schema unless debezium key/value.converter.schemas.enable = false; database.server.name names the server, default mysql_binlog_source / postgres_cdc_source), for the Kafka sink's format of the same name; snapshot rows are op r.",
  },
  {
    name: 'debezium',
    type: 'map',
    description:
      'Debezium properties; only those the connector documents as meaningful are accepted (with format COMPATIBLE_DEBEZIUM_JSON also key.converter.schemas.enable, value.converter.schemas.enable, database.server.name).',
  },
];

/** A name pattern: its text as written, and the whole-name expression. */
export interface NamePattern {
  readonly text: string;
  readonly re: RegExp;
}

/** A table's settings from table-names-config. */
export interface TableOverride {
  readonly primaryKeys?: readonly string[];
  readonly snapshotSplitColumn?: string;
}

/** The options both CDC sources read the same way, checked. */
export interface CdcCommonConfig {
  readonly username: string;
  readonly password: string;
  readonly tableNames: readonly string[];
  readonly databaseNames?: readonly string[];
  /** table-pattern / database-pattern as written, and anchored at both ends as Java's Pattern.matches is. */
  readonly tablePattern?: NamePattern;
  readonly databasePattern?: NamePattern;
  readonly overrides: ReadonlyMap<string, TableOverride>;
  readonly startupMode: 'initial' | 'earliest' | 'latest' | 'specific' | 'timestamp';
  readonly fetchSize: number;
  readonly chunking: ChunkingOptions;
  readonly serverTimeZone: string;
  readonly connectTimeoutMs: number;
  readonly connectRetries: number;
  readonly debezium: Readonly<Record<string, string>>;
  /** format COMPATIBLE_DEBEZIUM_JSON: Debezium's records as (topic, key, value) rows. */
  readonly compatibleDebeziumJson: boolean;
}

/** Reads the shared options; `plugin` names the connector in messages. */
export function compileCdcCommon(options: PluginOptions, plugin: string, ownKeys: readonly string[]): CdcCommonConfig {
  const compatibleDebeziumJson = options.get<string>('format').toUpperCase() === 'COMPATIBLE_DEBEZIUM_JSON';
  const debeziumKeys = compatibleDebeziumJson ? [...ownKeys, ...COMPATIBLE_DEBEZIUM_KEYS] : ownKeys;
  if (options.get<number>('connection.pool.size') < 2) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `connection.pool.size must be at least 2: ${plugin} holds one connection for snapshot chunks and one for the change stream`,
      { place: options.place('connection.pool.size') },
    );
  }
  const debezium: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.get<Record<string, unknown> | undefined>('debezium') ?? {})) {
    if (!debeziumKeys.includes(k)) {
      const known = debeziumKeys.length > 0 ? `supported: ${debeziumKeys.join(', ')}` : 'none are supported';
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `debezium property '${k}' has no meaning for ${plugin} here (${known})`, {
        place: options.place('debezium'),
      });
    }
    debezium[k] = String(v);
  }
  const overrides = new Map<string, TableOverride>();
  for (const entry of options.get<Record<string, unknown>[] | undefined>('table-names-config') ?? []) {
    const table = entry.table;
    if (typeof table !== 'string' || table === '') {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'every table-names-config entry needs a table (e.g. table = "db.t")', {
        place: options.place('table-names-config'),
      });
    }
    for (const k of Object.keys(entry)) {
      if (k !== 'table' && k !== 'primaryKeys' && k !== 'snapshotSplitColumn') {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `table-names-config entry for ${table} has unknown key '${k}' (table, primaryKeys, snapshotSplitColumn)`,
          { place: options.place('table-names-config') },
        );
      }
    }
    const pk = entry.primaryKeys;
    overrides.set(table, {
      primaryKeys: Array.isArray(pk) ? pk.map(String) : typeof pk === 'string' ? [pk] : undefined,
      snapshotSplitColumn: typeof entry.snapshotSplitColumn === 'string' ? entry.snapshotSplitColumn : undefined,
    });
  }
  const pattern = (name: string): NamePattern | undefined => {
    if (!options.has(name)) return undefined;
    const text = options.get<string>(name);
    try {
      return { text, re: new RegExp(`^(?:${text})$`) };
    } catch (err) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${name} '${text}' is not a regular expression: ${(err as Error).message}`, {
        place: options.place(name),
      });
    }
  };
  const tablePattern = pattern('table-pattern');
  const databasePattern = pattern('database-pattern');
  const byPattern = tablePattern !== undefined || databasePattern !== undefined;
  if (byPattern && options.has('table-names')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `table-names cannot be combined with ${tablePattern ? 'table-pattern' : 'database-pattern'}: name the tables, or match them`,
      { place: options.place('table-names') },
    );
  }
  if (!byPattern && !options.has('table-names')) {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${plugin} needs table-names, table-pattern or database-pattern`, {
      place: options.place(),
    });
  }
  // SeaTunnel's examples write one list element holding comma-separated names.
  const tableNames = byPattern
    ? []
    : options
        .get<string[]>('table-names')
        .flatMap((t) => String(t).split(','))
        .map((t) => t.trim())
        .filter((t) => t !== '');
  for (const t of byPattern ? [] : overrides.keys()) {
    if (!tableNames.includes(t)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table-names-config names table ${t}, which is not in table-names`, {
        place: options.place('table-names-config'),
      });
    }
  }
  return {
    username: options.get<string>('username'),
    password: options.get<string>('password'),
    tableNames,
    databaseNames: options.has('database-names') ? options.get<string[]>('database-names') : undefined,
    ...(tablePattern ? { tablePattern } : {}),
    ...(databasePattern ? { databasePattern } : {}),
    overrides,
    startupMode: options.get('startup.mode'),
    fetchSize: options.get<number>('snapshot.fetch.size'),
    chunking: {
      splitSize: options.get<number>('snapshot.split.size'),
      evenLower: options.get<number>('chunk-key.even-distribution.factor.lower-bound'),
      evenUpper: options.get<number>('chunk-key.even-distribution.factor.upper-bound'),
      sampleThreshold: options.get<number>('sample-sharding.threshold'),
      samplingRate: options.get<number>('inverse-sampling.rate'),
    },
    serverTimeZone: options.get<string>('server-time-zone'),
    connectTimeoutMs: Number(options.get('connect.timeout.ms')),
    connectRetries: options.get<number>('connect.max-retries'),
    debezium,
    compatibleDebeziumJson,
  };
}

/** Runs `open` up to 1 + retries times, for transient connection failures only. */
export async function withRetries<T>(retries: number, open: () => Promise<T>, retryable: (err: unknown) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      if (attempt >= retries || !retryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

/**
 * The qualified names of the tables table-pattern / database-pattern select now: `listSql` lists
 * the server's tables, `candidate` names one row (undefined: not capturable, e.g. outside
 * database-names), in name order; one sentence when none match.
 */
export async function matchedTableNames(
  session: { execute(sql: string): Promise<{ rows: unknown[][] }> },
  cfg: CdcCommonConfig,
  listSql: string,
  candidate: (row: unknown[]) => { readonly name: string; readonly database: string } | undefined,
  plugin: string,
  place: Place,
  wrap: (what: string, err: unknown) => Error,
): Promise<string[]> {
  let rows: unknown[][];
  try {
    rows = (await session.execute(listSql)).rows;
  } catch (err) {
    throw wrap('listing the tables table-pattern / database-pattern choose from', err);
  }
  const candidates = rows.map(candidate).filter((c) => c !== undefined);
  const names = candidates
    .filter((c) => (cfg.tablePattern?.re.test(c.name) ?? true) && (cfg.databasePattern?.re.test(c.database) ?? true))
    .map((c) => c.name)
    .sort();
  if (names.length === 0) {
    const parts = [
      cfg.tablePattern && `table-pattern '${cfg.tablePattern.text}'`,
      cfg.databasePattern && `database-pattern '${cfg.databasePattern.text}'`,
    ].filter(Boolean);
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${parts.join(' and ')} ${parts.length > 1 ? 'match' : 'matches'} no table ${plugin} can capture (${candidates.length} tables looked at)`,
      { place },
    );
  }
  for (const t of cfg.overrides.keys()) {
    if (!names.includes(t))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table-names-config names table ${t}, which the patterns do not match`, { place });
  }
  return names;
}
