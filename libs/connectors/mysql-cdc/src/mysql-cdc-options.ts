import type { OptionDef, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { CDC_COMMON_OPTIONS, compileCdcCommon, type CdcCommonConfig } from '@tideway/connector-cdc-common';
import { connectionSettings, parseJdbcUrl, resolveTableRef, type ConnectionSettings, type TableRef } from '@tideway/connector-jdbc';

/** MySQL-CDC's options, after SeaTunnel's docs/en/connector-v2/source/MySQL-CDC.md. */
export const MYSQL_CDC_OPTIONS: readonly OptionDef[] = [
  ...CDC_COMMON_OPTIONS,
  {
    name: 'server-id',
    type: 'string',
    description:
      "Replica server id of this client ('5400'), or a range ('5400-5408') whose first id is used; default: random in 6500..2147483647.",
  },
  { name: 'startup.specific-offset.file', type: 'string', description: 'Binlog file to start from (startup.mode = specific).' },
  { name: 'startup.specific-offset.pos', type: 'long', min: 4, description: 'Binlog position to start from (startup.mode = specific).' },
  {
    name: 'startup.timestamp',
    type: 'long',
    min: 0,
    description:
      "Start time in epoch milliseconds (startup.mode = timestamp): the binlog is read from its oldest file and transactions that began before this time (at the binlog's one-second resolution) are skipped; no snapshot.",
  },
  {
    name: 'stop.mode',
    type: 'enum',
    values: ['never', 'latest', 'specific', 'timestamp'],
    default: 'never',
    description: 'When to stop; only never is supported (the source is unbounded).',
  },
  { name: 'stop.specific-offset.file', type: 'string', description: 'Binlog file to stop at (stop.mode = specific; not supported).' },
  { name: 'stop.specific-offset.pos', type: 'long', description: 'Binlog position to stop at (stop.mode = specific; not supported).' },
  { name: 'stop.timestamp', type: 'long', description: 'Stop time (stop.mode = timestamp; not supported).' },
  {
    name: 'schema-changes.enabled',
    type: 'boolean',
    default: false,
    description:
      'Schema evolution: ADD/DROP/RENAME/CHANGE/MODIFY COLUMN in the binlog flow down the job as schema changes (sinks alter their tables before the rows that need it); debezium include.schema.changes = true does the same. Off: a column change of a captured table fails the job.',
  },
  {
    name: 'catalog',
    type: 'map',
    description:
      "SeaTunnel's deprecated catalog of the captured tables, `{ factory = Mysql }`: the tables' schemas are read from the server the source captures, as they are without it. Another factory or key is refused.",
  },
];

export const MYSQL_CDC_SPEC: PluginSpec = { options: MYSQL_CDC_OPTIONS };

export interface MySqlCdcConfig extends CdcCommonConfig {
  readonly settings: ConnectionSettings;
  /** The tables of table-names; with table-pattern / database-pattern, found when the source is prepared. */
  readonly tables: readonly MySqlTableRef[];
  readonly serverId: number;
  readonly specific?: { file: string; pos: number };
  /** startup.mode = timestamp: transactions that began before this time are skipped. */
  readonly startupTimestampMs?: number;
  /** schema-changes.enabled (or debezium include.schema.changes): follow column changes. */
  readonly schemaChanges: boolean;
  readonly place: Place;
}

/** A captured table's reference, with its database and the name as written. */
export type MySqlTableRef = TableRef & { database: string; text: string };

/** Resolves db.table names (a bare name in the url's database), each in database-names when given. */
export function mysqlTableRefs(
  names: readonly string[],
  urlDatabase: string | undefined,
  databaseNames: readonly string[] | undefined,
  place: Place,
): MySqlTableRef[] {
  return names.map((text) => {
    const ref = resolveTableRef('mysql', text, urlDatabase, place);
    const database = ref.database!;
    if (databaseNames && !databaseNames.includes(database)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table-names names ${text}, whose database '${database}' is not in database-names [${databaseNames.join(', ')}]`,
        { place },
      );
    }
    return { ...ref, database, text };
  });
}

function unsupported(options: PluginOptions, name: string, why: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${name} ${why}`, { place: options.place(name) });
}

export function compileMySqlCdcOptions(options: PluginOptions): MySqlCdcConfig {
  const common = compileCdcCommon(options, 'MySQL-CDC', ['include.schema.changes']);
  const target = parseJdbcUrl(options.get<string>('base-url'), options.place('base-url'));
  for (const [k, v] of Object.entries(options.get<Record<string, unknown> | undefined>('catalog') ?? {})) {
    if (k !== 'factory') throw unsupported(options, 'catalog', `key '${k}' is not supported (only factory = Mysql)`);
    if (String(v).toLowerCase() !== 'mysql')
      throw unsupported(
        options,
        'catalog',
        `factory = ${String(v)} is not supported: MySQL-CDC reads its tables from MySQL (factory = Mysql)`,
      );
  }
  if (target.dialect !== 'mysql')
    throw unsupported(
      options,
      'base-url',
      `must be a jdbc:mysql:// or jdbc:mariadb:// URL for MySQL-CDC, not jdbc:${target.subprotocol}://`,
    );
  let startupTimestampMs: number | undefined;
  if (common.startupMode === 'timestamp') {
    if (!options.has('startup.timestamp'))
      throw unsupported(options, 'startup.mode', 'timestamp needs startup.timestamp (epoch milliseconds)');
    startupTimestampMs = Number(options.get('startup.timestamp'));
  }
  if (options.get<string>('stop.mode') !== 'never')
    throw unsupported(
      options,
      'stop.mode',
      `${options.get<string>('stop.mode')} is not supported: MySQL-CDC streams until the job is cancelled (stop.mode = never)`,
    );
  let specific: MySqlCdcConfig['specific'];
  if (common.startupMode === 'specific') {
    if (!options.has('startup.specific-offset.file') || !options.has('startup.specific-offset.pos')) {
      throw unsupported(options, 'startup.mode', 'specific needs startup.specific-offset.file and startup.specific-offset.pos');
    }
    specific = { file: options.get<string>('startup.specific-offset.file'), pos: Number(options.get('startup.specific-offset.pos')) };
  }
  let serverId = 6500 + Math.floor(Math.random() * (2_147_483_647 - 6500));
  if (options.has('server-id')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(options.get<string>('server-id'));
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 4_294_967_295 || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) {
      throw unsupported(
        options,
        'server-id',
        `'${options.get<string>('server-id')}' is not a server id (1..4294967295) or a range like 5400-5408`,
      );
    }
    serverId = Number(m[1]);
  }
  const tables = mysqlTableRefs(common.tableNames, target.database, common.databaseNames, options.place('table-names'));
  const tz = common.serverTimeZone.trim().toUpperCase() === 'UTC' ? '+00:00' : common.serverTimeZone;
  const settings = connectionSettings(
    target,
    { user: common.username, password: common.password },
    undefined,
    30,
    options.place('base-url'),
  );
  return {
    ...common,
    settings: {
      ...settings,
      connectTimeoutMs: common.connectTimeoutMs,
      sessionSql: [...settings.sessionSql, `SET time_zone = '${tz.replace(/'/g, "''")}'`],
    },
    tables,
    serverId,
    specific,
    schemaChanges: options.get<boolean>('schema-changes.enabled') || /^true$/i.test(common.debezium['include.schema.changes'] ?? ''),
    ...(startupTimestampMs !== undefined ? { startupTimestampMs } : {}),
    place: options.place(),
  };
}
