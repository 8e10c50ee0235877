import type { CatalogTable, PluginContext, Sink, SinkAggregatedCommitter, SinkFactory, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { CommitConflict, formatIdent, type IcebergCatalog, type TableIdent } from './catalog.js';
import { IcebergCommitter, JOB_ID_PROPERTY } from './committer.js';
import { layoutOf } from './layout.js';
import { currentSnapshot, newSnapshotId, newTableMetadata, type PartitionSpec, withSnapshot } from './metadata.js';
import { ICEBERG_SINK_SPEC, type IcebergSinkSettings, openCatalog, settingsOf } from './options.js';
import { type IcebergField, icebergSchemaOf, lastColumnId, typeText } from './schema.js';
import { transformRefusal } from './transforms.js';
import { avroFile, MANIFEST_FILE_SCHEMA } from './avro.js';
import { joinLocation } from './catalog.js';
import { type IcebergCommitInfo, IcebergWriter } from './writer.js';

/** The partition spec of a new table: identity partitions of `keys`. */
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

/** The source columns of a spec's fields. */
const specColumns = (spec: PartitionSpec, fields: readonly IcebergField[]): string[] =>
  spec.fields.map((p) => fields.find((f) => f.id === p['source-id'])!.name);

class IcebergSink implements Sink<IcebergCommitInfo, IcebergCommitInfo> {
  private readonly ident: TableIdent;
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
    const spec = specOf(table, settings.partitionKeys, schema.fields, this.where);
    if (keys.length) {
      for (const column of specColumns(spec, schema.fields)) {
        if (!keys.includes(column)) {
          throw new ConfigError(
            ErrorCode.CONFIG_BAD_VALUE,
            `option 'iceberg.table.partition-keys': ${column} must be one of the primary keys (iceberg.table.primary-keys): Iceberg's equality deletes are keyed within a partition.`,
          );
        }
      }
    }
    openCatalog(settings); // refuses a bad catalog address or warehouse before the job starts
  }

  private keys(): readonly string[] {
    return this.settings.primaryKeys.length ? this.settings.primaryKeys : (this.table.primaryKey?.columns ?? []);
  }

  /** Save modes: create, recreate or check the table, and empty it (a snapshot without files) for DROP_DATA. */
  async prepare(): Promise<void> {
    const catalog = openCatalog(this.settings);
    try {
      await this.applySaveModes(catalog);
    } finally {
      await catalog.close();
    }
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

  createWriter(ctx: SinkWriterContext): SinkWriter<IcebergCommitInfo> {
    return new IcebergWriter(this.settings, this.table, openCatalog(this.settings), this.ident, this.jobId, ctx);
  }

  createAggregatedCommitter(): SinkAggregatedCommitter<IcebergCommitInfo, IcebergCommitInfo> {
    return new IcebergCommitter(openCatalog(this.settings), this.ident, this.settings.branch);
  }
}

export const icebergSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Iceberg',
  description:
    'Writes an Apache Iceberg table (format version 2) in a hadoop (local folder), sql (PostgreSQL) or REST catalog: Parquet (the default), ORC or Avro data files (write.format.default), one snapshot per checkpoint committed exactly once, equality deletes for updates and deletes by primary key.',
  spec: ICEBERG_SINK_SPEC,
  create(ctx: PluginContext): Sink {
    if (ctx.inputTables.length !== 1) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `The Iceberg sink writes one table and receives ${ctx.inputTables.length} (${ctx.inputTables.map((t) => t.tableId).join(', ')}): multi-table jobs are not supported by it yet.`,
      );
    }
    return new IcebergSink(settingsOf(ctx.options), ctx.inputTables[0], ctx.jobId);
  },
};
