import { type Column, COMMON_OPTIONS, type JobMode, type PluginOptions, type PluginSpec, parseSchemaConfig } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { catalogConfigProblem } from './options.js';

/**
 * SeaTunnel's Iceberg source options (connector-iceberg's SourceConfig and CommonConfig,
 * docs/en/connector-v2/source/Iceberg.md), and `filter`, a Tideway extension. What Tideway does
 * not do is refused by name.
 */

export const STREAM_SCAN_STRATEGIES = [
  'TABLE_SCAN_THEN_INCREMENTAL',
  'FROM_LATEST_SNAPSHOT',
  'FROM_EARLIEST_SNAPSHOT',
  'FROM_SNAPSHOT_ID',
  'FROM_SNAPSHOT_TIMESTAMP',
] as const;
export type StreamScanStrategy = (typeof STREAM_SCAN_STRATEGIES)[number];

const SNAPSHOT_ID_OPTIONS = ['start_snapshot_id', 'end_snapshot_id', 'use_snapshot_id'] as const;

export const ICEBERG_SOURCE_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    {
      name: 'catalog_name',
      type: 'string',
      default: 'default',
      description: "The catalog's name (the sql catalog's `catalog_name` column).",
    },
    {
      name: 'iceberg.catalog.config',
      type: 'map',
      required: true,
      description:
        'The catalog, with the keys of the Iceberg sink: `type` = hadoop (a local folder `warehouse`), jdbc/sql (tables in PostgreSQL at `uri`, with `jdbc.user`/`jdbc.password`) or rest (`uri`, `warehouse`, `token` or `credential`); files of sql and rest tables may be on S3 (s3.endpoint, s3.access-key-id, s3.secret-access-key, s3.session-token, s3.path-style-access, client.region). hive and glue catalogs are refused.',
    },
    { name: 'namespace', type: 'string', default: 'default', description: "The table's namespace (levels separated by dots)." },
    { name: 'table', type: 'string', required: true, description: "The table's name." },
    {
      name: 'schema',
      type: 'object',
      description:
        "The columns to read (`fields` or `columns`), a projection of the table's: each must be a column of the table, read as its own type or as a wider one (int as bigint, float as double, a decimal of more precision, timestamptz as timestamp, anything as string). Default: every column of the table.",
    },
    {
      name: 'case_sensitive',
      type: 'boolean',
      default: false,
      description: "Match the `schema`'s and the `filter`'s column names to the table's case-sensitively.",
    },
    {
      name: 'use_snapshot_id',
      type: 'string',
      description: 'BATCH: read the table as of this snapshot (time travel); the snapshot must be in the table.',
    },
    {
      name: 'use_snapshot_timestamp',
      type: 'long',
      description:
        'BATCH: read the table as of this time (epoch ms): the latest snapshot of the current history committed at or before it.',
    },
    {
      name: 'start_snapshot_id',
      type: 'string',
      description:
        'BATCH: read the data files appended after this snapshot (exclusive) up to end_snapshot_id, or the current snapshot (an incremental append scan: deletes and overwrites are not part of it). STREAMING with FROM_SNAPSHOT_ID: the first snapshot whose appends are read (inclusive).',
    },
    {
      name: 'end_snapshot_id',
      type: 'string',
      description: 'BATCH: the last snapshot (inclusive) of the incremental range; default the current snapshot.',
    },
    {
      name: 'start_snapshot_timestamp',
      type: 'long',
      description: 'STREAMING with FROM_SNAPSHOT_TIMESTAMP: appends of the snapshots committed at or after this time (epoch ms) are read.',
    },
    {
      name: 'stream_scan_strategy',
      type: 'enum',
      values: STREAM_SCAN_STRATEGIES,
      default: 'FROM_LATEST_SNAPSHOT',
      description:
        'STREAMING: where reading starts: the current snapshot read whole and then what is appended after it (TABLE_SCAN_THEN_INCREMENTAL), or the appends from the current snapshot on (FROM_LATEST_SNAPSHOT), from the oldest (FROM_EARLIEST_SNAPSHOT), from start_snapshot_id or from start_snapshot_timestamp on. Then the table is polled every increment.scan-interval for appended snapshots.',
    },
    {
      name: 'increment.scan-interval',
      type: 'long',
      default: 2000,
      min: 1,
      description: 'STREAMING: milliseconds between two looks at the table for new snapshots.',
    },
    {
      name: 'filter',
      type: 'string',
      description:
        "Tideway extension: only rows matching this condition are read, comparisons of a column with literals joined by AND (`id >= 100 AND region IN ('eu', 'us') AND note IS NOT NULL`). Manifests, data files and Parquet row groups that cannot hold a matching row are skipped by partition values and column statistics.",
    },
    {
      name: 'hadoop.config',
      type: 'map',
      description: 'Hadoop configuration: not supported (Tideway reads local folders without Hadoop; refused when set).',
    },
    {
      name: 'iceberg.hadoop-conf-path',
      type: 'string',
      description: 'Hadoop configuration files: not supported (Tideway reads local folders without Hadoop; refused when set).',
    },
  ],
  validate: (o) => {
    const catalogProblem = catalogConfigProblem(o.get<Record<string, unknown>>('iceberg.catalog.config'));
    if (catalogProblem) return catalogProblem;
    for (const name of ['hadoop.config', 'iceberg.hadoop-conf-path']) {
      if (o.has(name))
        return `option '${name}' is not supported by Tideway's Iceberg source (it reads local folders and PostgreSQL catalogs without Hadoop)`;
    }
    for (const name of SNAPSHOT_ID_OPTIONS) {
      if (o.has(name) && !/^-?\d+$/.test(o.get<string>(name).trim()))
        return `option '${name}' = ${o.get<string>(name)} is not a snapshot id (an integer)`;
    }
    if (o.has('use_snapshot_id') && o.has('use_snapshot_timestamp'))
      return "options 'use_snapshot_id' and 'use_snapshot_timestamp' cannot both be set";
    const timeTravel = o.has('use_snapshot_id') || o.has('use_snapshot_timestamp');
    if (timeTravel && (o.has('start_snapshot_id') || o.has('end_snapshot_id')))
      return "option 'use_snapshot_id'/'use_snapshot_timestamp' (one snapshot) cannot be set with 'start_snapshot_id'/'end_snapshot_id' (a range)";
    return undefined;
  },
};

/** The source's settings, plain data. */
export interface IcebergSourceSettings {
  readonly catalogName: string;
  readonly catalog: Readonly<Record<string, string>>;
  readonly namespace: readonly string[];
  readonly table: string;
  /** The `schema` option's columns, or undefined for every column of the table. */
  readonly columns?: readonly Column[];
  readonly caseSensitive: boolean;
  readonly filter?: string;
  readonly useSnapshotId?: bigint;
  readonly useSnapshotTimestamp?: number;
  readonly startSnapshotId?: bigint;
  readonly endSnapshotId?: bigint;
  readonly startSnapshotTimestamp?: number;
  readonly streamScanStrategy: StreamScanStrategy;
  readonly scanIntervalMs: number;
  readonly streaming: boolean;
  /** Where an option was written in the job config, for refusals. */
  readonly place: (option: string) => Place;
}

/** The settings of validated options for a job of `mode`; options that do not apply to the mode are refused by name. */
export function sourceSettingsOf(o: PluginOptions, mode: JobMode): IcebergSourceSettings {
  const id = (name: string): bigint | undefined => (o.has(name) ? BigInt(o.get<string>(name).trim()) : undefined);
  const streaming = mode === 'STREAMING';
  const only = (names: readonly string[], m: JobMode): void => {
    for (const name of names) {
      if (o.has(name) && mode !== m) {
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `it applies to ${m} jobs only (this job is ${mode}).`, {
          place: o.place(name),
        });
      }
    }
  };
  only(['use_snapshot_id', 'use_snapshot_timestamp', 'end_snapshot_id'], 'BATCH');
  only(['stream_scan_strategy', 'increment.scan-interval', 'start_snapshot_timestamp'], 'STREAMING');
  const strategy = o.get<StreamScanStrategy>('stream_scan_strategy');
  if (streaming && strategy === 'FROM_SNAPSHOT_ID' && !o.has('start_snapshot_id'))
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, "stream_scan_strategy FROM_SNAPSHOT_ID needs option 'start_snapshot_id'.", {
      place: o.place('stream_scan_strategy'),
    });
  if (streaming && strategy === 'FROM_SNAPSHOT_TIMESTAMP' && !o.has('start_snapshot_timestamp'))
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      "stream_scan_strategy FROM_SNAPSHOT_TIMESTAMP needs option 'start_snapshot_timestamp'.",
      {
        place: o.place('stream_scan_strategy'),
      },
    );
  if (streaming && o.has('start_snapshot_id') && strategy !== 'FROM_SNAPSHOT_ID')
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `it applies with stream_scan_strategy FROM_SNAPSHOT_ID in a STREAMING job (not ${strategy}).`,
      { place: o.place('start_snapshot_id') },
    );
  const catalog = Object.fromEntries(
    Object.entries(o.get<Record<string, unknown>>('iceberg.catalog.config')).map(([k, v]) => [k, String(v)]),
  );
  return {
    catalogName: o.get<string>('catalog_name'),
    catalog: { ...catalog, type: catalog.type.toLowerCase() },
    namespace: o.get<string>('namespace').split('.'),
    table: o.get<string>('table'),
    ...(o.has('schema')
      ? { columns: parseSchemaConfig(o.raw.schema, { catalogName: 'Iceberg', place: o.place('schema') }).table.columns }
      : {}),
    caseSensitive: o.get<boolean>('case_sensitive'),
    ...(o.has('filter') ? { filter: o.get<string>('filter') } : {}),
    useSnapshotId: id('use_snapshot_id'),
    useSnapshotTimestamp: o.get<number | undefined>('use_snapshot_timestamp'),
    startSnapshotId: id('start_snapshot_id'),
    endSnapshotId: id('end_snapshot_id'),
    startSnapshotTimestamp: o.get<number | undefined>('start_snapshot_timestamp'),
    streamScanStrategy: strategy,
    scanIntervalMs: o.get<number>('increment.scan-interval'),
    streaming,
    place: (option) => o.place(option),
  };
}
