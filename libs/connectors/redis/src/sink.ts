import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { connectionOf, describeConnection, execAll, openClient, type Command, type RedisClient, type RedisConnection } from './client.js';
import { REDIS_SINK_SPEC, type RedisDataType } from './options.js';
import { RespWriter } from './resp-writer.js';
import { compileFieldText, compileRowWriter } from './values.js';

interface SinkSettings {
  readonly connection: RedisConnection;
  readonly dataType: RedisDataType;
  readonly key: string;
  readonly customKey: boolean;
  readonly valueField?: string;
  readonly hashKeyField?: string;
  readonly hashValueField?: string;
  readonly expire: number;
  readonly batchSize: number;
  readonly format: string;
  readonly fieldDelimiter: string;
}

/** The commands that write (or, for a delete, remove) one row. */
type RowCommands = (row: Row) => Command[];

/** ${table_name}, ${database_name}, ${schema_name} of the row's table (SeaTunnel's multi-table placeholders). */
function tableKey(key: string, table: CatalogTable): string {
  return key
    .replace(/\$\{database_name\}/g, table.path.database ?? '')
    .replace(/\$\{schema_name\}/g, table.path.schema ?? '')
    .replace(/\$\{table_name\}/g, table.path.table);
}

/** A field's text when `name` is a column of the table, else the name itself (SeaTunnel's rule). */
function fieldOrLiteral(table: CatalogTable, name: string): (row: Row) => string {
  const at = table.columns.findIndex((c) => c.name === name);
  if (at < 0) return () => name;
  const text = compileFieldText(table.columns[at].type);
  return (row) => text(row.fields[at]);
}

function compileKey(s: SinkSettings, table: CatalogTable): (row: Row) => string {
  const key = tableKey(s.key, table);
  if (!s.customKey) return fieldOrLiteral(table, key);
  // Literal parts and field references, alternating: user:{id} and user:${id} both name `id`.
  const parts: ((row: Row) => string)[] = [];
  let last = 0;
  for (const m of key.matchAll(/\$?\{([^{}]+)\}/g)) {
    const at = table.columns.findIndex((c) => c.name === m[1]);
    if (at < 0) continue;
    const literal = key.slice(last, m.index);
    const text = compileFieldText(table.columns[at].type);
    parts.push(
      () => literal,
      (row) => text(row.fields[at]),
    );
    last = m.index + m[0].length;
  }
  const tail = key.slice(last);
  parts.push(() => tail);
  return (row) => parts.map((p) => p(row)).join('');
}

function compileRowCommands(s: SinkSettings, table: CatalogTable): RowCommands {
  const keyOf = compileKey(s, table);
  const serialize = compileRowWriter(table, s.format, s.fieldDelimiter);
  const whole = (row: Row) => serialize(row.fields);
  const expire = (key: string): Command[] => (s.expire > 0 ? [['expire', key, s.expire]] : []);
  const removes = (row: Row) => row.kind === '-D' || row.kind === '-U';
  if (s.dataType === 'hash') {
    if (s.hashKeyField === undefined) {
      // Each field of the row is a hash field; null fields are removed from the hash.
      const names = table.columns.map((c) => c.name);
      const texts = table.columns.map((c) => compileFieldText(c.type));
      return (row) => {
        const key = keyOf(row);
        if (removes(row)) return [['hdel', key, ...names]];
        const set: Command = ['hset', key];
        const nulls: Command = ['hdel', key];
        row.fields.forEach((v, i) => {
          if (v === null || v === undefined) nulls.push(names[i]);
          else set.push(names[i], texts[i](v));
        });
        return [...(set.length > 2 ? [set] : []), ...(nulls.length > 2 ? [nulls] : []), ...expire(key)];
      };
    }
    const hashKey = fieldOrLiteral(table, s.hashKeyField);
    const hashValue = s.hashValueField === undefined ? whole : fieldOrLiteral(table, s.hashValueField);
    return (row) => {
      const key = keyOf(row);
      if (removes(row)) return [['hdel', key, hashKey(row)]];
      return [['hset', key, hashKey(row), hashValue(row)], ...expire(key)];
    };
  }
  const valueOf = s.valueField === undefined ? whole : fieldOrLiteral(table, s.valueField);
  const add = (k: string, v: string): Command => {
    switch (s.dataType) {
      case 'list':
        return ['lpush', k, v];
      case 'set':
        return ['sadd', k, v];
      case 'zset':
        return ['zadd', k, 1, v]; // SeaTunnel's weight: 1 for every member
      default:
        return ['set', k, v];
    }
  };
  const remove = (k: string, v: string): Command => {
    switch (s.dataType) {
      case 'list':
        return ['lrem', k, 1, v];
      case 'set':
        return ['srem', k, v];
      case 'zset':
        return ['zrem', k, v];
      default:
        return ['del', k];
    }
  };
  return (row) => {
    const key = keyOf(row);
    const value = valueOf(row);
    return removes(row) ? [remove(key, value)] : [add(key, value), ...expire(key)];
  };
}

/**
 * Writes each batch the engine hands it before returning, batch_size rows per pipelined round
 * trip, so nothing is held across a checkpoint: every row of a completed checkpoint is in Redis.
 */
class RedisSinkWriter implements SinkWriter {
  /** A single server: RespWriter; a cluster: ioredis' Cluster client (slot routing, redirections). */
  private target?: RespWriter | RedisClient;
  private readonly plans = new Map<string, RowCommands>();

  constructor(
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.plans.set(t.tableId, compileRowCommands(s, t));
  }

  private async open(): Promise<RespWriter | RedisClient> {
    this.target ??= this.s.connection.mode === 'cluster' ? await openClient(this.s.connection) : await RespWriter.open(this.s.connection);
    return this.target;
  }

  async write(rows: readonly Row[]): Promise<void> {
    const target = await this.open();
    for (let i = 0; i < rows.length; i += this.s.batchSize) {
      const commands: Command[] = [];
      for (const row of rows.slice(i, i + this.s.batchSize)) {
        const plan = this.plans.get(row.tableId);
        if (!plan)
          throw new TidewayError(ErrorCode.CONNECTOR_IO, `Redis sink got a row of table '${row.tableId}', which is not one of its inputs`);
        commands.push(...plan(row));
      }
      try {
        if (target instanceof RespWriter) await target.run(commands);
        else await execAll(target, commands);
      } catch (err) {
        if (err instanceof TidewayError) throw err;
        throw new TidewayError(
          ErrorCode.CONNECTOR_IO,
          `writing to ${describeConnection(this.s.connection)} failed: ${(err as Error).message}`,
          {
            retryable: true,
            cause: err,
          },
        );
      }
    }
  }

  async close(): Promise<void> {
    const t = this.target;
    this.target = undefined;
    if (t instanceof RespWriter) t.close();
    else if (t) await t.quit().catch(() => t.disconnect());
  }
}

export const redisSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Redis',
  description:
    "SeaTunnel's Redis sink: writes rows as key/string, hash, list, set or zset values to one Redis server or a Redis Cluster; keys from a field, a literal or a {field} template, values as JSON or text rows or one field. Deletes remove what inserts add. Idempotent by key for key, hash, set and zset; lists are at-least-once.",
  spec: REDIS_SINK_SPEC,
  create: (ctx: PluginContext): Sink => {
    const o = ctx.options;
    const settings: SinkSettings = {
      connection: connectionOf(o),
      dataType: o.get<RedisDataType>('data_type'),
      key: o.get<string>('key'),
      customKey: o.get<boolean>('support_custom_key'),
      valueField: o.get<string | undefined>('value_field'),
      hashKeyField: o.get<string | undefined>('hash_key_field'),
      hashValueField: o.get<string | undefined>('hash_value_field'),
      expire: o.get<number>('expire'),
      batchSize: o.get<number>('batch_size'),
      format: o.get<string>('format'),
      fieldDelimiter: o.get<string>('field_delimiter'),
    };
    return { createWriter: () => new RedisSinkWriter(settings, ctx.inputTables) };
  },
};
