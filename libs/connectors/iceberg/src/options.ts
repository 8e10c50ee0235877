import { COMMON_OPTIONS, type PluginOptions, type PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { IcebergCatalog } from './catalog.js';
import { FORMAT_PROPS, formatPropProblem } from './data-format.js';
import { FileIO, S3_FILE_IO_KEYS } from './file-io.js';
import { HadoopCatalog } from './hadoop-catalog.js';
import { REST_CATALOG_KEYS, RestCatalog } from './rest-catalog.js';
import { pgConfigOf, SqlCatalog } from './sql-catalog.js';

/**
 * SeaTunnel's Iceberg sink options (connector-iceberg's IcebergSinkConfig, docs/en/connector-v2/sink/Iceberg.md).
 * What Tideway does not do is refused by name.
 */

export const SCHEMA_SAVE_MODES = ['RECREATE_SCHEMA', 'CREATE_SCHEMA_WHEN_NOT_EXIST', 'ERROR_WHEN_SCHEMA_NOT_EXIST', 'IGNORE'] as const;
export const DATA_SAVE_MODES = ['DROP_DATA', 'APPEND_DATA', 'ERROR_WHEN_DATA_EXISTS'] as const;

/** Iceberg's default target data file size (write.target-file-size-bytes). */
export const DEFAULT_TARGET_FILE_BYTES = 512 * 1024 * 1024;

const CATALOG_KEYS: Record<string, readonly string[]> = {
  hadoop: ['type', 'warehouse'],
  jdbc: ['type', 'warehouse', 'uri', 'jdbc.user', 'jdbc.password', ...S3_FILE_IO_KEYS],
  sql: ['type', 'warehouse', 'uri', 'jdbc.user', 'jdbc.password', ...S3_FILE_IO_KEYS],
  rest: REST_CATALOG_KEYS,
};

const WRITE_PROPS = ['write.target-file-size-bytes', ...FORMAT_PROPS];

/** What is wrong with option 'iceberg.catalog.config' (a sentence naming it), or undefined; shared by the sink and the source. */
export function catalogConfigProblem(catalog: Record<string, unknown>): string | undefined {
  const type = typeof catalog.type === 'string' ? catalog.type.toLowerCase() : '';
  if (!type) return "option 'iceberg.catalog.config' needs a 'type' (hadoop, jdbc, sql or rest)";
  const keys = CATALOG_KEYS[type];
  if (!keys) return `option 'iceberg.catalog.config' type '${type}' is not supported by Tideway (hadoop, jdbc, sql or rest)`;
  for (const k of Object.keys(catalog)) {
    if (!keys.includes(k)) return `option 'iceberg.catalog.config' key '${k}' is not supported for a ${type} catalog (${keys.join(', ')})`;
  }
  if (!catalog.warehouse && type !== 'rest') return `option 'iceberg.catalog.config' needs a 'warehouse' for a ${type} catalog`;
  if (type !== 'hadoop' && !catalog.uri) return `option 'iceberg.catalog.config' needs a 'uri' for a ${type} catalog`;
  return undefined;
}

export const ICEBERG_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    { name: 'catalog_name', type: 'string', required: true, description: "The catalog's name (the sql catalog's `catalog_name` column)." },
    {
      name: 'iceberg.catalog.config',
      type: 'map',
      required: true,
      description:
        "The catalog: `type` = hadoop (a local folder `warehouse`), jdbc/sql (tables in PostgreSQL at `uri`, jdbc:postgresql://host:port/db or postgresql://user:password@host:port/db, with `jdbc.user`/`jdbc.password`; data under `warehouse`) or rest (Iceberg's REST catalog protocol at `uri`, http(s)://host:port[/path]; `warehouse` is sent to its /v1/config, and the server places new tables; `token` a bearer token or `credential` client_id:client_secret for OAuth2 client credentials at `oauth2-server-uri` (default `uri`/v1/oauth/tokens) with `scope` (default catalog); `prefix` when /v1/config gives none). Files of sql and rest catalog tables may be on S3 (s3://bucket/path), with the keys s3.endpoint, s3.access-key-id, s3.secret-access-key, s3.session-token, s3.path-style-access and client.region; a hadoop catalog is local only (its commit needs an atomic create-if-absent, which S3 lacks). hive and glue catalogs are refused.",
    },
    {
      name: 'namespace',
      type: 'string',
      required: true,
      description:
        "The table's namespace (levels separated by dots); ${database_name}, ${schema_name} and ${table_name} are each input table's (a multi-table job writes each input table to its own Iceberg table).",
    },
    {
      name: 'table',
      type: 'string',
      required: true,
      description:
        "The table's name; ${database_name}, ${schema_name} and ${table_name} are each input table's. Two input tables may not go to one Iceberg table.",
    },
    {
      name: 'iceberg.table.write-props',
      type: 'map',
      description:
        'Write properties: write.format.default (parquet, the default, orc or avro), write.delete.format.default (the format of delete files; the data format by default), write.target-file-size-bytes (a data file is closed past this size; default 512 MiB), write.parquet.compression-codec (zstd, the default, snappy, gzip, brotli, lz4, uncompressed), write.orc.compression-codec (zlib, the default, snappy, lz4, zstd, none), write.avro.compression-codec (gzip, the default, snappy, zstd, uncompressed), and write.delete.<format>.compression-codec for delete files. They are also set as the properties of a table the sink creates; over an existing table they override its own properties for this job.',
    },
    {
      name: 'iceberg.table.primary-keys',
      type: 'string',
      description:
        "Comma-separated primary-key columns: the table's identifier fields, and the keys of the equality deletes that update and delete rows become (with the partition source columns added: Iceberg matches equality deletes within a partition, so a row's update-before or delete removes it from its own partition; in upsert mode an insert does not remove its key's row from another partition). Default, or ${primary_key}: each input table's primary key, if it has one. Rows of one key must reach one writer (parallelism 1, or a source that keeps a key on one reader).",
    },
    {
      name: 'iceberg.table.upsert-mode-enabled',
      type: 'boolean',
      default: false,
      description: 'With primary keys: an insert replaces the row of its key (each written key gets an equality delete first).',
    },
    {
      name: 'iceberg.table.partition-keys',
      type: 'string',
      description:
        "Comma-separated partition keys of a table the sink creates: a column name (an identity partition, as SeaTunnel writes), or, beyond SeaTunnel, year(col), month(col), day(col), hour(col), truncate[W](col) or bucket[N](col) (Iceberg's Murmur3 hash of the value, modulo N).",
    },
    {
      name: 'iceberg.table.schema-evolution-enabled',
      type: 'boolean',
      default: false,
      description:
        "Schema evolution: the table follows the source's schema changes (CDC sources with schema-changes.enabled): an added column becomes a new optional field (a new field id), a dropped one goes, a renamed one keeps its field id, and a column is widened as Iceberg allows (int to bigint, float to double, a wider decimal), each committed as a new schema before the rows after the change. Identifier and partition columns cannot be dropped. Off: a schema change fails the job.",
    },
    {
      name: 'iceberg.table.commit-branch',
      type: 'string',
      description:
        "The branch each checkpoint's snapshot is committed to (default main). A branch that does not exist yet is created at main's current snapshot; the table's current snapshot (main) does not move. Save modes look at main.",
    },
    {
      name: 'case_sensitive',
      type: 'boolean',
      default: false,
      description: "Match the job's columns to an existing table's columns case-sensitively.",
    },
    {
      name: 'schema_save_mode',
      type: 'enum',
      values: SCHEMA_SAVE_MODES,
      default: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
      description: 'Before the job writes: recreate the table, create it when missing, fail when missing, or nothing.',
    },
    {
      name: 'data_save_mode',
      type: 'enum',
      values: DATA_SAVE_MODES,
      default: 'APPEND_DATA',
      description: 'Rows already in the table: commit a snapshot that removes them all (DROP_DATA), keep them, or fail.',
    },
  ],
  validate: (o) => {
    const branch = o.get<string | undefined>('iceberg.table.commit-branch');
    if (branch !== undefined && !/^[^\s]+$/.test(branch)) return `option 'iceberg.table.commit-branch' = '${branch}' is not a branch name`;
    if (o.get<boolean>('iceberg.table.upsert-mode-enabled') && !o.has('iceberg.table.primary-keys')) {
      return "option 'iceberg.table.upsert-mode-enabled' needs option 'iceberg.table.primary-keys'";
    }
    const catalogProblem = catalogConfigProblem(o.get<Record<string, unknown>>('iceberg.catalog.config'));
    if (catalogProblem) return catalogProblem;
    for (const [k, v] of Object.entries(o.get<Record<string, unknown> | undefined>('iceberg.table.write-props') ?? {})) {
      if (!WRITE_PROPS.includes(k)) return `option 'iceberg.table.write-props' key '${k}' is not supported (${WRITE_PROPS.join(', ')})`;
      if (k === 'write.target-file-size-bytes' && !(Number(v) > 0))
        return `option 'iceberg.table.write-props' write.target-file-size-bytes = ${String(v)} is not a positive number`;
      const problem = formatPropProblem(k, String(v));
      if (problem) return `option 'iceberg.table.write-props' ${problem}`;
    }
    return undefined;
  },
};

/** The sink's settings, plain data. */
export interface IcebergSinkSettings {
  readonly catalogName: string;
  readonly catalog: Readonly<Record<string, string>>;
  readonly namespace: readonly string[];
  readonly table: string;
  readonly writeProps: Readonly<Record<string, string>>;
  readonly primaryKeys: readonly string[];
  readonly upsert: boolean;
  readonly schemaEvolution: boolean;
  /** iceberg.table.commit-branch, main by default. */
  readonly branch: string;
  readonly partitionKeys: readonly string[];
  readonly caseSensitive: boolean;
  readonly schemaSaveMode: (typeof SCHEMA_SAVE_MODES)[number];
  readonly dataSaveMode: (typeof DATA_SAVE_MODES)[number];
  readonly targetFileBytes: number;
}

const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function settingsOf(o: PluginOptions): IcebergSinkSettings {
  const catalog = Object.fromEntries(
    Object.entries(o.get<Record<string, unknown>>('iceberg.catalog.config')).map(([k, v]) => [k, String(v)]),
  );
  const writeProps = Object.fromEntries(
    Object.entries(o.get<Record<string, unknown> | undefined>('iceberg.table.write-props') ?? {}).map(([k, v]) => [k, String(v)]),
  );
  return {
    catalogName: o.get<string>('catalog_name'),
    catalog: { ...catalog, type: catalog.type.toLowerCase() },
    namespace: o.get<string>('namespace').split('.'),
    table: o.get<string>('table'),
    writeProps,
    primaryKeys: listOf(o.get<string | undefined>('iceberg.table.primary-keys')),
    upsert: o.get<boolean>('iceberg.table.upsert-mode-enabled'),
    schemaEvolution: o.get<boolean>('iceberg.table.schema-evolution-enabled'),
    branch: o.get<string | undefined>('iceberg.table.commit-branch') ?? 'main',
    partitionKeys: listOf(o.get<string | undefined>('iceberg.table.partition-keys')),
    caseSensitive: o.get<boolean>('case_sensitive'),
    schemaSaveMode: o.get('schema_save_mode'),
    dataSaveMode: o.get('data_save_mode'),
    targetFileBytes: Number(writeProps['write.target-file-size-bytes'] ?? DEFAULT_TARGET_FILE_BYTES),
  };
}

/** A client of the settings' catalog (not connected yet). */
export function openCatalog(s: Pick<IcebergSinkSettings, 'catalog' | 'catalogName'>): IcebergCatalog {
  const c = s.catalog;
  if (c.type === 'hadoop') return new HadoopCatalog(c.warehouse);
  if (c.type === 'rest') return new RestCatalog(c);
  if (!/^(jdbc:postgresql|postgres)/i.test(c.uri)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `iceberg.catalog.config: uri ${c.uri} is not PostgreSQL: Tideway's ${c.type} catalog keeps its tables in PostgreSQL only.`,
    );
  }
  return new SqlCatalog(s.catalogName, c.warehouse, pgConfigOf(c.uri, c['jdbc.user'], c['jdbc.password']), new FileIO(c));
}
