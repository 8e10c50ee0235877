import {
  parseSchemaConfig,
  type CatalogTable,
  type Collector,
  type DataType,
  type PluginContext,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SplitEnumerator,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError, ValueConversionError } from '@tideway/common';
import { compileJsonLineParser, compileJsonValueParser, compileTextFieldParsers } from '@tideway/connector-file-common/formats';
import type { Cluster, Redis } from 'ioredis';
import { clusterMasters, connectionOf, execAll, isCluster, openClient, type RedisClient, type RedisConnection } from './client.js';
import { REDIS_SOURCE_SPEC, type RedisDataType } from './options.js';

/**
 * One keyspace to SCAN: the server's (single mode) or one cluster master's (`node`), with the
 * cursor of the next SCAN call. A restored split resumes at its cursor: SCAN returns every key
 * present the whole time at least once, so a key may come twice only when Redis rehashed it.
 */
export interface RedisSplit {
  splitId: string;
  node?: string;
  cursor: string;
}

interface SourceSettings {
  readonly connection: RedisConnection;
  readonly pattern: string;
  readonly dataType: RedisDataType;
  readonly count: number;
  readonly table: CatalogTable;
  /** Turns one Redis value (or hash) into rows; undefined for the one-column `content` table. */
  readonly parse?: ValueParser;
}

type ValueParser = (value: string | Record<string, string>, key: string) => unknown[][];

/** SeaTunnel's TYPE names for SCAN ... TYPE. */
const SCAN_TYPE: Record<RedisDataType, string> = { key: 'string', string: 'string', hash: 'hash', list: 'list', set: 'set', zset: 'zset' };
const READ_COMMAND: Record<RedisDataType, (key: string) => [string, ...(string | number)[]]> = {
  key: (k) => ['get', k],
  string: (k) => ['get', k],
  hash: (k) => ['hgetall', k],
  list: (k) => ['lrange', k, 0, -1],
  set: (k) => ['smembers', k],
  zset: (k) => ['zrange', k, 0, -1],
};

function isComplex(t: DataType): boolean {
  return t.kind === 'array' || t.kind === 'map' || t.kind === 'row';
}

/** Parses the text of one field: scalars as text, arrays, maps and rows as JSON. */
function fieldParsers(columns: CatalogTable['columns']): ((text: string | undefined) => unknown)[] {
  const scalar = compileTextFieldParsers(columns, ',');
  return columns.map((c, i) => {
    if (!isComplex(c.type)) return scalar[i];
    const json = compileJsonValueParser(c.type);
    return (text) => (text === undefined || text === '' ? null : json(text));
  });
}

function compileParser(table: CatalogTable, format: string, delimiter: string, dataType: RedisDataType, hashMode: string): ValueParser {
  const cols = table.columns;
  const parseLine = (columns: CatalogTable['columns']): ((text: string) => unknown[]) => {
    if (format === 'json') return compileJsonLineParser(columns);
    const parsers = compileTextFieldParsers(columns, delimiter);
    return (text) => {
      const parts = text.split(delimiter);
      return parsers.map((p, i) => p(parts[i]));
    };
  };
  if (dataType !== 'hash') {
    const line = parseLine(cols);
    return (v) => [line(v as string)];
  }
  if (hashMode === 'kv') {
    // Each hash field is a row: its name in the first column, its value parsed into the rest.
    const rest = parseLine(cols.slice(1));
    const first = fieldParsers(cols.slice(0, 1))[0];
    return (v) => Object.entries(v as Record<string, string>).map(([f, text]) => [first(f), ...rest(text)]);
  }
  // The whole hash is one row, its field names the column names.
  const parsers = fieldParsers(cols);
  return (v) => {
    const h = v as Record<string, string>;
    return [cols.map((c, i) => parsers[i](h[c.name]))];
  };
}

class RedisEnumerator implements SplitEnumerator<RedisSplit, { assigned: string[] }> {
  private readonly assigned: Set<string>;
  private splits: RedisSplit[] = [];

  constructor(
    private readonly ctx: SplitEnumeratorContext<RedisSplit>,
    private readonly s: SourceSettings,
    restored?: { assigned: string[] },
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
  }

  async open(): Promise<void> {
    if (this.s.connection.mode === 'single') {
      this.splits = [{ splitId: 'redis', cursor: '0' }];
      return;
    }
    const client = (await openClient(this.s.connection)) as Cluster;
    try {
      this.splits = clusterMasters(client)
        .sort()
        .map((node) => ({ splitId: `redis-${node}`, node, cursor: '0' }));
    } finally {
      client.disconnect();
    }
  }

  run(): void {}

  registerReader(subtask: number): void {
    const mine = this.splits.filter((sp, i) => i % this.ctx.parallelism === subtask && !this.assigned.has(sp.splitId));
    if (mine.length > 0) this.ctx.assignSplits(subtask, mine);
    for (const sp of mine) this.assigned.add(sp.splitId);
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  addSplitsBack(splits: RedisSplit[]): void {
    for (const sp of splits) this.assigned.delete(sp.splitId);
  }

  snapshotState(): { assigned: string[] } {
    return { assigned: [...this.assigned] };
  }

  close(): void {}
}

class RedisReader implements SourceReader<RedisSplit> {
  private readonly splits: RedisSplit[] = [];
  private noMore = false;
  private client?: RedisClient;

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly s: SourceSettings,
  ) {}

  open(): void {}

  /** The server holding a split's keys: the client itself, or the cluster master named. */
  private async serverOf(split: RedisSplit): Promise<Redis> {
    this.client ??= await openClient(this.s.connection);
    if (!isCluster(this.client)) return this.client;
    const node = this.client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === split.node);
    if (!node) {
      throw new TidewayError(ErrorCode.CONNECTOR_IO, `Redis Cluster master ${split.node} is gone: the cluster changed while it was read`, {
        retryable: true,
      });
    }
    return node;
  }

  async pollNext(output: Collector): Promise<void> {
    const split = this.splits[0];
    if (!split) {
      if (this.noMore) this.ctx.signalNoMoreElement();
      return;
    }
    const server = await this.serverOf(split);
    const [cursor, keys] = await server.scan(
      split.cursor,
      'MATCH',
      this.s.pattern,
      'COUNT',
      this.s.count,
      'TYPE',
      SCAN_TYPE[this.s.dataType],
    );
    if (keys.length > 0) {
      const values = await execAll(
        server,
        keys.map((k) => READ_COMMAND[this.s.dataType](k)),
      );
      const rows: Row[] = [];
      const tableId = this.s.table.tableId;
      keys.forEach((key, i) => {
        for (const fields of this.rowsOf(values[i], key)) rows.push({ kind: '+I', tableId, fields });
      });
      output.collectBatch(rows);
    }
    split.cursor = cursor;
    if (cursor === '0') this.splits.shift();
  }

  private rowsOf(value: unknown, key: string): unknown[][] {
    if (value === null || value === undefined) return []; // deleted between SCAN and read
    const parse = this.s.parse;
    const one = (v: string | Record<string, string>): unknown[][] => {
      if (!parse) return [[typeof v === 'string' ? v : JSON.stringify(v)]];
      try {
        return parse(v, key);
      } catch (err) {
        throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Redis key '${key}': ${(err as Error).message}`);
      }
    };
    if (this.s.dataType === 'hash') {
      const h = Array.isArray(value) ? Object.fromEntries(pairs(value as string[])) : (value as Record<string, string>);
      return Object.keys(h).length === 0 ? [] : one(h);
    }
    if (Array.isArray(value)) return (value as string[]).flatMap((v) => one(v));
    return one(value as string);
  }

  addSplits(splits: RedisSplit[]): void {
    this.splits.push(...splits.map((s) => ({ ...s })));
  }

  handleNoMoreSplits(): void {
    this.noMore = true;
  }

  snapshotState(): RedisSplit[] {
    return this.splits.map((s) => ({ ...s }));
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.quit().catch(() => c.disconnect());
  }
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** SeaTunnel's table of a source without `format`: TablePath.DEFAULT with one string column. */
const CONTENT_TABLE: CatalogTable = {
  tableId: 'default.default.default',
  catalogName: 'Redis',
  path: { database: 'default', schema: 'default', table: 'default' },
  columns: [{ name: 'content', type: { kind: 'string' }, nullable: true }],
};

export const redisSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Redis',
  description:
    "SeaTunnel's Redis source: SCANs the keys matching a pattern (every master of a Redis Cluster) and reads their string, hash, list, set or zset values as rows: one string column `content`, or by `schema` as json or text. Bounded; restores resume at the SCAN cursor.",
  spec: REDIS_SOURCE_SPEC,
  create: (ctx: PluginContext): Source<RedisSplit, { assigned: string[] }> => {
    const o = ctx.options;
    const dataType = o.get<RedisDataType>('data_type');
    let table = CONTENT_TABLE;
    let parse: ValueParser | undefined;
    if (o.has('format')) {
      table = parseSchemaConfig(o.raw.schema, { catalogName: 'Redis', place: o.place('schema') }).table;
      const mode = o.get<string>('hash_key_parse_mode');
      if (dataType === 'hash' && mode === 'kv' && table.columns.length < 2) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          'hash_key_parse_mode kv needs a schema with the hash field column first and at least one value column',
          {
            place: o.place('schema'),
          },
        );
      }
      parse = compileParser(table, o.get<string>('format'), o.get<string>('field_delimiter'), dataType, mode);
    }
    const settings: SourceSettings = {
      connection: connectionOf(o),
      pattern: o.get<string>('keys'),
      dataType,
      count: o.get<number>('batch_size'),
      table,
      parse,
    };
    return {
      boundedness: () => 'BOUNDED',
      catalogTables: () => [settings.table],
      createEnumerator: (ectx, restored) => new RedisEnumerator(ectx, settings, restored),
      createReader: (rctx) => new RedisReader(rctx, settings),
    };
  },
};
