import type { PluginFactory, PluginType } from '@tideway/api';
import { PluginRegistry } from './plugin-registry.js';

/** One shipped plugin and how to load it (its package is imported only when needed). */
export interface CatalogEntry {
  readonly type: PluginType;
  /** SeaTunnel's plugin name (the factory's `name`; a test keeps them equal). */
  readonly name: string;
  /** The exported factory's name, for messages. */
  readonly factory: string;
  load(): Promise<PluginFactory>;
}

/** Every plugin Tideway ships. */
export const PLUGIN_CATALOG: readonly CatalogEntry[] = [
  {
    type: 'source',
    name: 'FakeSource',
    factory: 'fakeSourceFactory',
    load: () => import('@tideway/connector-fake').then((m) => m.fakeSourceFactory),
  },
  {
    type: 'sink',
    name: 'Console',
    factory: 'consoleSinkFactory',
    load: () => import('@tideway/connector-console').then((m) => m.consoleSinkFactory),
  },
  {
    type: 'sink',
    name: 'Assert',
    factory: 'assertSinkFactory',
    load: () => import('@tideway/connector-assert').then((m) => m.assertSinkFactory),
  },
  {
    type: 'transform',
    name: 'Sql',
    factory: 'sqlTransformFactory',
    load: () => import('@tideway/transform-sql').then((m) => m.sqlTransformFactory),
  },
  {
    type: 'transform',
    name: 'Filter',
    factory: 'filterTransformFactory',
    load: () => import('@tideway/transform-filter').then((m) => m.filterTransformFactory),
  },
  {
    type: 'transform',
    name: 'FieldMapper',
    factory: 'fieldMapperTransformFactory',
    load: () => import('@tideway/transform-field-mapper').then((m) => m.fieldMapperTransformFactory),
  },
  {
    type: 'transform',
    name: 'Replace',
    factory: 'replaceTransformFactory',
    load: () => import('@tideway/transform-replace').then((m) => m.replaceTransformFactory),
  },
  {
    type: 'transform',
    name: 'Copy',
    factory: 'copyTransformFactory',
    load: () => import('@tideway/transform-copy').then((m) => m.copyTransformFactory),
  },
  {
    type: 'transform',
    name: 'Split',
    factory: 'splitTransformFactory',
    load: () => import('@tideway/transform-split').then((m) => m.splitTransformFactory),
  },
  {
    type: 'transform',
    name: 'FilterRowKind',
    factory: 'filterRowKindTransformFactory',
    load: () => import('@tideway/transform-filter-rowkind').then((m) => m.filterRowKindTransformFactory),
  },
  {
    type: 'transform',
    name: 'RowKindExtractor',
    factory: 'rowKindExtractorTransformFactory',
    load: () => import('@tideway/transform-rowkind-extractor').then((m) => m.rowKindExtractorTransformFactory),
  },
  {
    type: 'transform',
    name: 'JsonPath',
    factory: 'jsonPathTransformFactory',
    load: () => import('@tideway/transform-json-path').then((m) => m.jsonPathTransformFactory),
  },
  {
    type: 'sink',
    name: 'LocalFile',
    factory: 'localFileSinkFactory',
    load: () => import('@tideway/connector-localfile').then((m) => m.localFileSinkFactory),
  },
  {
    type: 'source',
    name: 'LocalFile',
    factory: 'localFileSourceFactory',
    load: () => import('@tideway/connector-localfile').then((m) => m.localFileSourceFactory),
  },
  {
    type: 'sink',
    name: 'S3File',
    factory: 's3FileSinkFactory',
    load: () => import('@tideway/connector-s3file').then((m) => m.s3FileSinkFactory),
  },
  {
    type: 'source',
    name: 'S3File',
    factory: 's3FileSourceFactory',
    load: () => import('@tideway/connector-s3file').then((m) => m.s3FileSourceFactory),
  },
  {
    type: 'source',
    name: 'Sequence',
    factory: 'sequenceSourceFactory',
    load: () => import('@tideway/connector-sequence').then((m) => m.sequenceSourceFactory),
  },
  { type: 'sink', name: 'Jdbc', factory: 'jdbcSinkFactory', load: () => import('@tideway/connector-jdbc').then((m) => m.jdbcSinkFactory) },
  {
    type: 'source',
    name: 'Jdbc',
    factory: 'jdbcSourceFactory',
    load: () => import('@tideway/connector-jdbc').then((m) => m.jdbcSourceFactory),
  },
  {
    type: 'transform',
    name: 'FaultInjector',
    factory: 'faultInjectorTransformFactory',
    load: () => import('@tideway/transform-fault-injector').then((m) => m.faultInjectorTransformFactory),
  },
  {
    type: 'source',
    name: 'Postgres-CDC',
    factory: 'postgresCdcSourceFactory',
    load: () => import('@tideway/connector-postgres-cdc').then((m) => m.postgresCdcSourceFactory),
  },
  {
    type: 'source',
    name: 'MySQL-CDC',
    factory: 'mysqlCdcSourceFactory',
    load: () => import('@tideway/connector-mysql-cdc').then((m) => m.mysqlCdcSourceFactory),
  },
  {
    type: 'source',
    name: 'Kafka',
    factory: 'kafkaSourceFactory',
    load: () => import('@tideway/connector-kafka').then((m) => m.kafkaSourceFactory),
  },
  {
    type: 'sink',
    name: 'Kafka',
    factory: 'kafkaSinkFactory',
    load: () => import('@tideway/connector-kafka').then((m) => m.kafkaSinkFactory),
  },
];

/** A registry of every plugin (the coordinator's: it validates any config). */
export async function loadAllPlugins(): Promise<PluginRegistry> {
  return new PluginRegistry(await Promise.all(PLUGIN_CATALOG.map((e) => e.load())));
}

/**
 * A registry of just the plugins a job or task group names, loading only their packages: the
 * coordinator plans and a worker thread starts faster, with less memory, than with every
 * connector's dependencies. Names it does not know are reported against the whole catalog.
 */
export async function loadPluginsFor(wanted: ReadonlyArray<{ type: PluginType; name: string }>): Promise<PluginRegistry> {
  const keys = new Set(wanted.map((w) => `${w.type}:${w.name.toLowerCase()}`));
  const entries = PLUGIN_CATALOG.filter((e) => keys.has(`${e.type}:${e.name.toLowerCase()}`));
  return new PluginRegistry(await Promise.all(entries.map((e) => e.load())), PLUGIN_CATALOG);
}
