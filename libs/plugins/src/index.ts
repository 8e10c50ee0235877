/**
 * The plugin registry: every connector and transform Tideway ships, looked up by SeaTunnel's
 * plugin name (case-insensitive, as SeaTunnel matches them).
 */
import { ErrorCode, ConfigError, type Place } from '@tideway/common';
import type { PluginFactory, PluginType } from '@tideway/api';
import { fakeSourceFactory } from '@tideway/connector-fake';
import { consoleSinkFactory } from '@tideway/connector-console';
import { assertSinkFactory } from '@tideway/connector-assert';
import { sqlTransformFactory } from '@tideway/transform-sql';
import { filterTransformFactory } from '@tideway/transform-filter';
import { fieldMapperTransformFactory } from '@tideway/transform-field-mapper';
import { replaceTransformFactory } from '@tideway/transform-replace';
import { copyTransformFactory } from '@tideway/transform-copy';
import { splitTransformFactory } from '@tideway/transform-split';
import { filterRowKindTransformFactory } from '@tideway/transform-filter-rowkind';
import { rowKindExtractorTransformFactory } from '@tideway/transform-rowkind-extractor';
import { jsonPathTransformFactory } from '@tideway/transform-json-path';
import { localFileSinkFactory, localFileSourceFactory } from '@tideway/connector-localfile';
import { sequenceSourceFactory } from '@tideway/connector-sequence';
import { jdbcSinkFactory, jdbcSourceFactory } from '@tideway/connector-jdbc';
import { faultInjectorTransformFactory } from '@tideway/transform-fault-injector';
import { postgresCdcSourceFactory } from '@tideway/connector-postgres-cdc';
import { mysqlCdcSourceFactory } from '@tideway/connector-mysql-cdc';

export class PluginRegistry {
  private readonly byKey = new Map<string, PluginFactory>();

  constructor(factories: readonly PluginFactory[]) {
    for (const f of factories) this.byKey.set(`${f.type}:${f.name.toLowerCase()}`, f);
  }

  /** The factory for a plugin, or undefined. */
  find(type: PluginType, name: string): PluginFactory | undefined {
    return this.byKey.get(`${type}:${name.toLowerCase()}`);
  }

  /** The factory for a plugin; a ConfigError naming the place and the known plugins otherwise. */
  get(type: PluginType, name: string, place?: Place): PluginFactory {
    const f = this.find(type, name);
    if (f) return f;
    const known = this.list(type).map((p) => p.name);
    throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_PLUGIN, `unknown ${type} plugin '${name}'; known ${type}s: ${known.join(', ')}`, { place });
  }

  list(type?: PluginType): PluginFactory[] {
    return [...this.byKey.values()].filter((f) => type === undefined || f.type === type).sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** Every plugin Tideway ships. */
export const builtinPlugins: readonly PluginFactory[] = [
  fakeSourceFactory,
  consoleSinkFactory,
  assertSinkFactory,
  sqlTransformFactory,
  filterTransformFactory,
  fieldMapperTransformFactory,
  replaceTransformFactory,
  copyTransformFactory,
  splitTransformFactory,
  filterRowKindTransformFactory,
  rowKindExtractorTransformFactory,
  jsonPathTransformFactory,
  localFileSinkFactory,
  localFileSourceFactory,
  sequenceSourceFactory,
  jdbcSourceFactory,
  jdbcSinkFactory,
  faultInjectorTransformFactory,
  postgresCdcSourceFactory,
  mysqlCdcSourceFactory,
];

export const registry = new PluginRegistry(builtinPlugins);

export * from './instantiate.js';
