import type {
  CatalogTable,
  PluginContext,
  PluginOptions,
  Sink,
  SinkAggregatedCommitter,
  SinkFactory,
  SinkWriter,
  SinkWriterContext,
} from '@tideway/api';
import { substituteTablePlaceholders } from '@tideway/connector-file-common';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { CommitConflict, formatIdent, type IcebergCatalog, type TableIdent } from './catalog.js';
import { JOB_ID_PROPERTY } from './committer.js';
import { layoutOf } from './layout.js';
import { currentSnapshot, newSnapshotId, newTableMetadata, type PartitionSpec, withSnapshot } from './metadata.js';
import { ICEBERG_SINK_SPEC, type IcebergSinkSettings, openCatalog, settingsOf } from './options.js';
import { type IcebergField, icebergSchemaOf, lastColumnId, typeText } from './schema.js';
import { transformRefusal } from './transforms.js';
import { avroFile, MANIFEST_FILE_SCHEMA } from './avro.js';
import { joinLocation } from './catalog.js';
import { type IcebergCommitInfo, IcebergWriter } from './writer.js';
import { IcebergTablesCommitter, type IcebergTablesCommitInfo, IcebergTablesWriter, type TableTarget } from './tables.js';

/** A partition key of iceberg.table.partition-keys: a column (identity), or `day(col)`, `truncate[4](col)` and the like. */
function parsePartitionKey(key: string): { column: string; transform: string; name: string } {
  const m = /^\s*(year|month|day|hour|truncate\[\d+\]|bucket\[\d+\]|[a-z_]+)\s*\(\s*([^()]+?)\s*\)\s*$/i.exec(key);
  if (!m) return { column: key, transform: 'identity', name: key };
  const transform = m[1].toLowerCase();
  const suffix = transform.startsWith('truncate') ? 'trunc' : transform.startsWith('bucket') ? 'bucket' : transform;
  return { column: m[2], transform, name: `${m[2]}_${suffix}` };
}

/** The partition spec of a new table from iceberg.table.partition-keys. */
function specOf(table: CatalogTable, keys: readonly string[], schemaFields: readonly IcebergField[], where: string): PartitionSpec {
  return {
    'spec-id': 0,
    fields: keys.map((k, i) => {
      const key = parsePartitionKey(k);
      const f = schemaFields.find((x) => x.name === key.column);
      if (!f) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${where}: partition key ${k} (iceberg.table.partition-keys) is not a column of the job's table ${table.tableId} (${table.columns.map((c) => c.name).join(', ')}).`,
        );
      }
      const refusal = transformRefusal(key.transform, typeText(f.type));
      if (refusal)
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: partition key ${k} (iceberg.table.partition-keys): ${refusal}.`);
      return { 'source-id': f.id, 'field-id': 1000 + i, name: key.name, transform: key.transform };
    }),
  };
}

/**
 * The settings of the Iceberg table `table` goes to: SeaTunnel's table placeholders (\${database_name},
 * \${schema_name}, \${table_name}) in namespace and table replaced with the input table's, and
 * iceberg.table.primary-keys = \${primary_key} made its primary key.
 */
export function tableSettings(s: IcebergSinkSettings, table: CatalogTable, o?: PluginOptions): IcebergSinkSettings {
  const replace = (option: 'namespace' | 'table', text: string): string => {
    const out = substituteTablePlaceholders(text, table.path);
    const left = /\$\{[^}]*\}/.exec(out);
    if (left) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `option '${option}' = '${text}': ${left[0]} is not a table placeholder the Iceberg sink replaces (\${database_name}, \${schema_name}, \${table_name}).`,
        o ? { place: o.place(option) } : undefined,
      );
    }
    if (out.trim() === '') {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `option '${option}' = '${text}' is empty for table ${table.tableId}.`,
        o ? { place: o.place(option) } : undefined,
      );
    }
    return out;
  };
  const namespace = replace('namespace', s.namespace.join('.')).split('.');
  const keys = s.primaryKeys.length === 1 && s.primaryKeys[0] === '${primary_key}' ? (table.primaryKey?.columns ?? []) : s.primaryKeys;
  return { ...s, namespace, table: replace('table', s.table), primaryKeys: keys };
}

/** One input table's Iceberg table: its checks, save modes and writer. */
class TableSink implements TableTarget {
  readonly ident: TableIdent;
  private readonly where: string;

  constructor(
    private readonly settings: IcebergSinkSettings,
    private readonly table: CatalogTable,
    private readonly jobId: string,
  ) {
    this.ident = { namespace: settings.namespace, name: settings.table };
    this.where = `Iceberg table ${formatIdent(this.ident)}`;
    const keys = this.keys();
    for (const k of keys) {
      if (!table.columns.some((c) => c.name === k)) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option 'iceberg.table.primary-keys': ${k} is not a column of the job's table ${table.tableId}.`,
        );
      }
    }
    // the table this job would create: refuses types and partition keys before anything is written
    const schema = icebergSchemaOf(table.columns, keys, this.where);
    specOf(table, settings.partitionKeys, schema.fields, this.where);
  }

  private keys(): readonly string[] {
    return this.settings.primaryKeys.length ? this.settings.primaryKeys : (this.table.primaryKey?.columns ?? []);
  }

  /** Save modes: create, recreate or check the table, and empty it (a snapshot without files) for DROP_DATA. */
  async prepare(catalog: IcebergCatalog): Promise<void> {
    await this.applySaveModes(catalog);
  }

  private async applySaveModes(catalog: IcebergCatalog): Promise<void> {
    const s = this.settings;
    let loaded = await catalog.load(this.ident);
    if (loaded && s.schemaSaveMode === 'RECREATE_SCHEMA') {
      await catalog.drop(this.ident);
      loaded = undefined;
    }
    if (!loaded) {
      if (s.schemaSaveMode === 'ERROR_WHEN_SCHEMA_NOT_EXIST') {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${this.where} does not exist in the ${catalog.description} (schema_save_mode ERROR_WHEN_SCHEMA_NOT_EXIST).`,
        );
      }
      if (s.schemaSaveMode === 'IGNORE') return;
      const schema = icebergSchemaOf(this.table.columns, this.keys(), this.where);
      const spec = specOf(this.table, s.partitionKeys, schema.fields, this.where);
      const metadata = newTableMetadata(catalog.defaultLocation(this.ident), schema, lastColumnId(schema), spec, { ...s.writeProps });
      try {
        loaded = await catalog.create(this.ident, metadata);
      } catch (err) {
        if (!(err instanceof CommitConflict)) throw err;
        loaded = await catalog.load(this.ident); // another job created it meanwhile
      }
      if (!loaded) throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `${this.where} could not be created in the ${catalog.description}.`);
    }
    layoutOf(this.table, loaded.metadata, this.keys(), s.caseSensitive, this.where); // the job's columns fit the table
    const current = currentSnapshot(loaded.metadata);
    const rows = Number(current?.summary['total-records'] ?? (current ? 1 : 0));
    if (s.dataSaveMode === 'ERROR_WHEN_DATA_EXISTS' && rows > 0) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${this.where} has rows already (data_save_mode ERROR_WHEN_DATA_EXISTS).`);
    }
    if (s.dataSaveMode === 'DROP_DATA' && current) await this.dropData(catalog, loaded);
  }

  /** Commits a snapshot with no files: the table reads empty; older snapshots keep their files for time travel. */
  private async dropData(catalog: IcebergCatalog, loaded: NonNullable<Awaited<ReturnType<IcebergCatalog['load']>>>): Promise<void> {
    const m = loaded.metadata;
    const id = newSnapshotId();
    const parent = currentSnapshot(m)!;
    const seq = m['last-sequence-number'] + 1;
    const listPath = joinLocation(m.location, `metadata/snap-${id}-${seq}-drop.avro`);
    await catalog.io.write(
      listPath,
      avroFile(MANIFEST_FILE_SCHEMA, [], {
        'snapshot-id': String(id),
        'parent-snapshot-id': String(parent['snapshot-id']),
        'sequence-number': String(seq),
        'format-version': '2',
      }),
    );
    const next = withSnapshot(
      m,
      {
        'snapshot-id': id,
        'parent-snapshot-id': parent['snapshot-id'],
        'sequence-number': seq,
        'timestamp-ms': Math.max(Date.now(), m['last-updated-ms']),
        'manifest-list': listPath,
        summary: {
          operation: 'delete',
          'total-records': '0',
          'total-data-files': '0',
          'total-delete-files': '0',
          [JOB_ID_PROPERTY]: `${this.jobId}-drop-data`,
        },
        'schema-id': m['current-schema-id'],
      },
      loaded.metadataLocation,
    );
    await catalog.commit(this.ident, loaded, next);
  }

  createWriter(catalog: IcebergCatalog, ctx: SinkWriterContext): SinkWriter<IcebergCommitInfo> {
    return new IcebergWriter(this.settings, this.table, catalog, this.ident, this.jobId, ctx);
  }
}

/**
 * The Iceberg sink: each input table into its own Iceberg table (namespace and table with
 * SeaTunnel's table placeholders), one snapshot per table and checkpoint, committed exactly once.
 */
class IcebergSink implements Sink<IcebergTablesCommitInfo, IcebergTablesCommitInfo> {
  private readonly targets = new Map<string, TableSink>();

  constructor(
    private readonly settings: IcebergSinkSettings,
    tables: readonly CatalogTable[],
    private readonly jobId: string,
    o: PluginOptions,
  ) {
    const byIdent = new Map<string, string>();
    for (const table of tables) {
      const target = new TableSink(tableSettings(settings, table, o), table, jobId);
      const name = formatIdent(target.ident);
      const other = byIdent.get(name);
      if (other !== undefined) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option 'table': the input tables ${other} and ${table.tableId} both go to Iceberg table ${name}; name each its own with \${table_name} (or \${database_name}, \${schema_name}) in namespace or table.`,
          { place: o.place('table') },
        );
      }
      byIdent.set(name, table.tableId);
      this.targets.set(table.tableId, target);
    }
    openCatalog(settings); // refuses a bad catalog address or warehouse before the job starts
  }

  /** Save modes of every input table's Iceberg table, one table after the other. */
  async prepare(): Promise<void> {
    const catalog = openCatalog(this.settings);
    try {
      for (const t of this.targets.values()) await t.prepare(catalog);
    } finally {
      await catalog.close();
    }
  }

  createWriter(ctx: SinkWriterContext): SinkWriter<IcebergTablesCommitInfo> {
    return new IcebergTablesWriter(
      this.targets,
      openCatalog(this.settings),
      this.jobId,
      ctx,
      (table) => new TableSink(tableSettings(this.settings, table), table, this.jobId),
    );
  }

  createAggregatedCommitter(): SinkAggregatedCommitter<IcebergTablesCommitInfo, IcebergTablesCommitInfo> {
    const only = this.targets.size === 1 ? [...this.targets.values()][0].ident : undefined;
    return new IcebergTablesCommitter(openCatalog(this.settings), this.settings.branch, only);
  }
}

export const icebergSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Iceberg',
  description:
    'Writes Apache Iceberg tables (format version 2) in a hadoop (local folder), sql (PostgreSQL) or REST catalog: Parquet (the default), ORC or Avro data files (write.format.default), one snapshot per table and checkpoint committed exactly once, equality deletes for updates and deletes by primary key. A multi-table job writes each input table to its own table (${database_name}, ${schema_name}, ${table_name} in namespace and table).',
  spec: ICEBERG_SINK_SPEC,
  create(ctx: PluginContext): Sink {
    if (ctx.inputTables.length === 0) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'The Iceberg sink has no input table.', {
        place: ctx.options.place('plugin_input'),
      });
    }
    return new IcebergSink(settingsOf(ctx.options), ctx.inputTables, ctx.jobId, ctx.options);
  },
};
