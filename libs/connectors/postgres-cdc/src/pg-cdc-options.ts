import type { OptionDef, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { CDC_COMMON_OPTIONS, compileCdcCommon, type CdcCommonConfig } from '@tideway/connector-cdc-common';
import { connectionSettings, parseJdbcUrl, resolveTableRef, type ConnectionSettings, type TableRef } from '@tideway/connector-jdbc';

/** Postgres-CDC's options, after SeaTunnel's docs/en/connector-v2/source/PostgreSQL-CDC.md. */
export const PG_CDC_OPTIONS: readonly OptionDef[] = [
  ...CDC_COMMON_OPTIONS,
  { name: 'schema-names', type: 'list', description: 'Schemas to capture; every table-names entry must lie in one of them.' },
  {
    name: 'slot.name',
    type: 'string',
    default: 'seatunnel',
    description: 'Logical replication slot to stream from; created when missing.',
  },
  {
    name: 'decoding.plugin.name',
    type: 'string',
    default: 'pgoutput',
    description:
      'Logical decoding plugin of the slot: pgoutput (built into PostgreSQL 10+; changes of the tables in the publication) or decoderbufs (Protocol Buffers messages, the postgresql-NN-decoderbufs package, loadable as an output plugin; no publication, every table is decoded and the captured ones kept; timetz and money columns are refused, as it sends them without their offset or currency form).',
  },
  {
    name: 'startup.specific-offset.pos',
    type: 'long',
    min: 0,
    description:
      "WAL position to start streaming from (startup.mode = specific), as Debezium's PostgreSQL offset records it: the LSN as a number (X/Y is X * 2^32 + Y); commits before it are skipped, no snapshot. It must not lie before the slot's confirmed position.",
  },
  {
    name: 'startup.specific-offset.file',
    type: 'string',
    description: 'Binlog file (MySQL-CDC only): PostgreSQL positions are one LSN, given in startup.specific-offset.pos.',
  },
  {
    name: 'stop.mode',
    type: 'enum',
    values: ['never', 'latest', 'specific', 'timestamp'],
    default: 'never',
    description: 'When to stop; only never is supported, as in SeaTunnel (the source streams until the job is cancelled).',
  },
  {
    name: 'schema-changes.enabled',
    type: 'boolean',
    default: false,
    description:
      "Schema evolution: columns added, dropped, renamed or retyped (seen in pgoutput's relation messages) flow down the job as schema changes; debezium include.schema.changes = true does the same. Off: a column change of a captured table fails the job.",
  },
];

export const PG_CDC_SPEC: PluginSpec = { options: PG_CDC_OPTIONS };

/** Debezium properties with a meaning here. */
const DEBEZIUM_KEYS = ['publication.name', 'include.schema.changes'];

/** Postgres-CDC's options, checked. */
export interface PgCdcConfig extends CdcCommonConfig {
  readonly settings: ConnectionSettings;
  readonly database: string;
  /** The tables of table-names; with table-pattern / database-pattern, found when the source is prepared. */
  readonly tables: readonly PgTableRef[];
  readonly schemaNames?: readonly string[];
  readonly slot: string;
  /** decoding.plugin.name: the slot's output plugin. */
  readonly decodingPlugin: 'pgoutput' | 'decoderbufs';
  /** The pgoutput publication (decoderbufs has none). */
  readonly publication: string;
  /** schema-changes.enabled (or debezium include.schema.changes): follow column changes. */
  readonly schemaChanges: boolean;
  /** startup.mode = specific: the LSN streaming starts at. */
  readonly specificLsn?: bigint;
  readonly place: Place;
}

/** A captured table's reference, with its schema and the name as written. */
export type PgTableRef = TableRef & { schema: string; text: string };

/** Resolves db.schema.table names in `database`, each in one of `schemas` when given. */
export function pgTableRefs(
  names: readonly string[],
  database: string,
  schemas: readonly string[] | undefined,
  place: Place,
): PgTableRef[] {
  return names.map((text) => {
    const ref = resolveTableRef('postgresql', text, database, place);
    const schema = ref.schema ?? 'public';
    if (schemas && !schemas.includes(schema)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${text} is in schema '${schema}', which schema-names [${schemas.join(', ')}] does not include`,
        { place },
      );
    }
    return { ...ref, schema, database, text };
  });
}

export function compilePgCdcOptions(options: PluginOptions): PgCdcConfig {
  const common = compileCdcCommon(options, 'Postgres-CDC', DEBEZIUM_KEYS);
  const place = options.place();
  const target = parseJdbcUrl(options.get<string>('base-url'), options.place('base-url'));
  if (target.dialect !== 'postgresql') {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `base-url must be a jdbc:postgresql:// URL for Postgres-CDC, not jdbc:${target.subprotocol}://`,
      { place: options.place('base-url') },
    );
  }
  const plugin = options.get<string>('decoding.plugin.name');
  if (plugin !== 'pgoutput' && plugin !== 'decoderbufs') {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `decoding.plugin.name '${plugin}' is not supported: Postgres-CDC decodes pgoutput (built into PostgreSQL 10+) and decoderbufs`,
      { place: options.place('decoding.plugin.name') },
    );
  }
  if (common.startupMode === 'timestamp') {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      'startup.mode timestamp is not supported by Postgres-CDC: the WAL records no commit times to search (use initial, earliest, latest or specific with an LSN)',
      { place: options.place('startup.mode') },
    );
  }
  if (options.has('startup.specific-offset.file')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      'startup.specific-offset.file is not supported by Postgres-CDC: a PostgreSQL position is one LSN, given as a number in startup.specific-offset.pos',
      { place: options.place('startup.specific-offset.file') },
    );
  }
  if (common.startupMode === 'specific' && !options.has('startup.specific-offset.pos')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      'startup.mode specific needs startup.specific-offset.pos (the LSN to start at, as a number)',
      { place: options.place('startup.mode') },
    );
  }
  if (common.startupMode !== 'specific' && options.has('startup.specific-offset.pos')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `startup.specific-offset.pos applies only with startup.mode = specific, not ${common.startupMode}`,
      { place: options.place('startup.specific-offset.pos') },
    );
  }
  if (options.get<string>('stop.mode') !== 'never') {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `stop.mode ${options.get<string>('stop.mode')} is not supported: Postgres-CDC streams until the job is cancelled (stop.mode = never, the only mode SeaTunnel's Postgres-CDC offers)`,
      { place: options.place('stop.mode') },
    );
  }
  const database = target.database ?? common.databaseNames?.[0];
  if (database === undefined) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      'base-url names no database and database-names is empty: Postgres-CDC needs the database to capture',
      { place: options.place('base-url') },
    );
  }
  if (common.databaseNames && !common.databaseNames.includes(database)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `database-names [${common.databaseNames.join(', ')}] does not include the database of base-url, '${database}'`,
      { place: options.place('database-names') },
    );
  }
  const schemas = options.has('schema-names') ? options.get<string[]>('schema-names') : undefined;
  const tables = pgTableRefs(common.tableNames, database, schemas, options.place('table-names'));
  const tz = common.serverTimeZone.replace(/'/g, "''");
  const settings = connectionSettings(
    { ...target, database },
    { user: common.username, password: common.password },
    undefined,
    30,
    options.place('base-url'),
  );
  const slot = options.get<string>('slot.name');
  if (!/^[a-z0-9_]{1,63}$/.test(slot)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `slot.name '${slot}' is not a valid replication slot name (lower-case letters, digits and underscores, at most 63)`,
      { place: options.place('slot.name') },
    );
  }
  return {
    ...common,
    settings: { ...settings, connectTimeoutMs: common.connectTimeoutMs, sessionSql: [...settings.sessionSql, `SET TimeZone = '${tz}'`] },
    database,
    tables,
    ...(schemas ? { schemaNames: schemas } : {}),
    slot,
    decodingPlugin: plugin,
    publication: common.debezium['publication.name'] ?? `${slot}_publication`,
    schemaChanges: options.get<boolean>('schema-changes.enabled') || /^true$/i.test(common.debezium['include.schema.changes'] ?? ''),
    ...(common.startupMode === 'specific' ? { specificLsn: BigInt(String(options.get('startup.specific-offset.pos'))) } : {}),
    place,
  };
}
