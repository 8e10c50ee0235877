import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { connectionOf, describeConnection, execAll, openClient, type Command, type RedisClient, type RedisConnection } from './client.js';
import { REDIS_SINK_SPEC, type RedisDataType } from './options.js';
import {
  argText,
  commandName,
  fieldPiece,
  literalPiece,
  type ArgText,
  type CommandName,
  type CommandSink,
  type RespEncoder,
  type TextPiece,
} from './resp-encoder.js';
import { RespConnection, RespPipeline } from './resp-writer.js';
import { compileFieldPiece, compileRowWriter } from './values.js';

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

/** Puts the commands that write (or, for a delete, remove) one row into `out`. */
type RowPlan = (row: Row, out: CommandSink) => void;

/** ${table_name}, ${database_name}, ${schema_name} of the row's table (SeaTunnel's multi-table placeholders). */
function tableKey(key: string, table: CatalogTable): string {
  return key
    .replace(/\$\{database_name\}/g, table.path.database ?? '')
    .replace(/\$\{schema_name\}/g, table.path.schema ?? '')
    .replace(/\$\{table_name\}/g, table.path.table);
}

function columnPiece(table: CatalogTable, at: number): TextPiece {
  return fieldPiece(at, compileFieldPiece(table.columns[at].type));
}

/** A field's text when `name` is a column of the table, else the name itself (SeaTunnel's rule). */
function fieldOrLiteral(table: CatalogTable, name: string): ArgText {
  const at = table.columns.findIndex((c) => c.name === name);
  return argText([at < 0 ? literalPiece(name) : columnPiece(table, at)]);
}

function compileKey(s: SinkSettings, table: CatalogTable): ArgText {
  const key = tableKey(s.key, table);
  if (!s.customKey) return fieldOrLiteral(table, key);
  // Literal parts and field references, alternating: user:{id} and user:${id} both name `id`.
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const m of key.matchAll(/\$?\{([^{}]+)\}/g)) {
    const at = table.columns.findIndex((c) => c.name === m[1]);
    if (at < 0) continue;
    pieces.push(literalPiece(key.slice(last, m.index)), columnPiece(table, at));
    last = m.index + m[0].length;
  }
  pieces.push(literalPiece(key.slice(last)));
  return argText(pieces);
}

const SET = commandName('set');
const DEL = commandName('del');
const HSET = commandName('hset');
const HDEL = commandName('hdel');
const LPUSH = commandName('lpush');
const LREM = commandName('lrem');
const SADD = commandName('sadd');
const SREM = commandName('srem');
const ZADD = commandName('zadd');
const ZREM = commandName('zrem');
const EXPIRE = commandName('expire');

function compileRowPlan(s: SinkSettings, table: CatalogTable): RowPlan {
  const keyText = compileKey(s, table);
  const serialize = compileRowWriter(table, s.format, s.fieldDelimiter);
  const seconds = String(s.expire);
  const expire = s.expire > 0 ? (out: CommandSink) => (out.begin(EXPIRE, 3), out.lastKey(), out.string(seconds)) : undefined;
  const removes = (row: Row) => row.kind === '-D' || row.kind === '-U';
  if (s.dataType === 'hash') {
    if (s.hashKeyField === undefined) {
      // Each field of the row is a hash field; null fields are removed from the hash.
      const names = table.columns.map((c) => c.name);
      const values = table.columns.map((_, i) => argText([columnPiece(table, i)]));
      return (row, out) => {
        const fields = row.fields;
        if (removes(row)) {
          out.begin(HDEL, 2 + names.length);
          out.key(keyText, row);
          for (const n of names) out.string(n);
          return;
        }
        let nulls = 0;
        for (let i = 0; i < names.length; i++) if (fields[i] === null || fields[i] === undefined) nulls++;
        const set = names.length - nulls;
        if (set > 0) {
          out.begin(HSET, 2 + 2 * set);
          out.key(keyText, row);
          for (let i = 0; i < names.length; i++) {
            if (fields[i] === null || fields[i] === undefined) continue;
            out.string(names[i]);
            out.text(values[i], row);
          }
        }
        if (nulls > 0) {
          out.begin(HDEL, 2 + nulls);
          if (set > 0) out.lastKey();
          else out.key(keyText, row);
          for (let i = 0; i < names.length; i++) if (fields[i] === null || fields[i] === undefined) out.string(names[i]);
        }
        expire?.(out);
      };
    }
    const hashKey = fieldOrLiteral(table, s.hashKeyField);
    const hashValue = s.hashValueField === undefined ? undefined : fieldOrLiteral(table, s.hashValueField);
    return (row, out) => {
      if (removes(row)) {
        out.begin(HDEL, 3);
        out.key(keyText, row);
        out.text(hashKey, row);
        return;
      }
      out.begin(HSET, 4);
      out.key(keyText, row);
      out.text(hashKey, row);
      if (hashValue) out.text(hashValue, row);
      else out.string(serialize(row.fields));
      expire?.(out);
    };
  }
  const valueText = s.valueField === undefined ? undefined : fieldOrLiteral(table, s.valueField);
  const value = (row: Row, out: CommandSink) => (valueText ? out.text(valueText, row) : out.string(serialize(row.fields)));
  // [command, argc, weight before the value] to add a row's value, and to remove it.
  const [add, remove]: [CommandName, number, string?][] = {
    key: [
      [SET, 3],
      [DEL, 2],
    ],
    string: [
      [SET, 3],
      [DEL, 2],
    ],
    list: [
      [LPUSH, 3],
      [LREM, 4, '1'],
    ],
    set: [
      [SADD, 3],
      [SREM, 3],
    ],
    zset: [
      [ZADD, 4, '1'], // SeaTunnel's weight: 1 for every member
      [ZREM, 3],
    ],
  }[s.dataType] as [CommandName, number, string?][];
  return (row, out) => {
    const rm = removes(row);
    const [name, argc, weight] = rm ? remove : add;
    out.begin(name, argc);
    out.key(keyText, row);
    if (weight !== undefined) out.string(weight);
    // DEL takes the key only.
    if (argc > 2) value(row, out);
    if (!rm) expire?.(out);
  };
}

/**
 * Whether an error reply is the row's own: WRONGTYPE (the row's key holds a value of another
 * type). Every other one is the server's or the connection's (OOM past maxmemory, READONLY,
 * NOAUTH, LOADING, MISCONF, BUSY, CLUSTERDOWN...): it fails the task, and the restore replays the
 * rows once the server is well again.
 */
export function isRowReply(message: string): boolean {
  return message.startsWith('WRONGTYPE');
}

/** Commands as argument lists (ioredis' cluster client). */
class CommandList implements CommandSink {
  readonly commands: Command[] = [];
  private current: Command = [''];
  private lastKeyText = '';

  begin(name: CommandName): void {
    this.current = [name.name];
    this.commands.push(this.current);
  }

  key(t: ArgText, row: Row): void {
    this.lastKeyText = t.text(row);
    this.current.push(this.lastKeyText);
  }

  lastKey(): void {
    this.current.push(this.lastKeyText);
  }

  text(t: ArgText, row: Row): void {
    this.current.push(t.text(row));
  }

  string(s: string): void {
    this.current.push(s);
  }
}

/**
 * Writes rows batch_size to a pipelined round trip. On a single server (RespPipeline) a batch
 * is encoded while the one before it is answered, at most one batch is in flight, and rows
 * short of a batch wait for the next write (LINGER_MS at most); a checkpoint barrier
 * (prepareCommit) and close wait for every reply, so every row of a completed checkpoint is in
 * Redis. A cluster (ioredis, slot routing and redirections) gets each batch within the call.
 */
class RedisSinkWriter implements SinkWriter {
  private pipeline?: RespPipeline;
  private cluster?: RedisClient;
  private readonly plans = new Map<string, RowPlan>();
  /** env.sink_error_handler: where the rows Redis refuses for themselves go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;

  constructor(
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.plans.set(t.tableId, compileRowPlan(s, t));
  }

  private planOf(tableId: string): RowPlan {
    const plan = this.plans.get(tableId);
    if (!plan) throw new TidewayError(ErrorCode.CONNECTOR_IO, `Redis sink got a row of table '${tableId}', which is not one of its inputs`);
    return plan;
  }

  /**
   * Row-level errors: a row whose command Redis answers WRONGTYPE (its key holds another type)
   * is handed to `reject` and the others are written; a row's other commands still run (a hash
   * row's HDEL of its null fields, its EXPIRE, which then sets the existing key's time to live).
   * Replies are matched to rows by their place in the batch, so rows are reported within the
   * next write, the checkpoint's flush, or close.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  private refusal(row: Row, message: string): Error {
    return new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `${describeConnection(this.s.connection)} refused the row of ${row.tableId}: ${message}`,
    );
  }

  /** The refused rows of the batches answered so far, to `reject`. */
  private rejectRefused(): void {
    const reject = this.reject;
    if (!reject || !this.pipeline) return;
    for (const [row, message] of this.pipeline.takeRefused()) reject(row, this.refusal(row, message));
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (this.s.connection.mode === 'cluster') return this.writeCluster(rows);
    const pipeline = (this.pipeline ??= new RespPipeline(
      await RespConnection.open(this.s.connection),
      this.s.batchSize,
      this.reject ? isRowReply : undefined,
    ));
    let out: RespEncoder = await pipeline.begin();
    this.rejectRefused();
    let tableId: string | undefined;
    let plan: RowPlan | undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.tableId !== tableId) {
        plan = this.planOf(row.tableId);
        tableId = row.tableId;
      }
      plan!(row, out);
      if (pipeline.rowDone(row)) out = await pipeline.next();
    }
    pipeline.end();
  }

  private async writeCluster(rows: readonly Row[]): Promise<void> {
    this.cluster ??= await openClient(this.s.connection);
    const reject = this.reject;
    for (let i = 0; i < rows.length; i += this.s.batchSize) {
      const list = new CommandList();
      const batch = rows.slice(i, i + this.s.batchSize);
      const ends: number[] = [];
      for (const row of batch) {
        this.planOf(row.tableId)(row, list);
        ends.push(list.commands.length);
      }
      try {
        const results = await execAll(this.cluster, list.commands, reject ? (err) => isRowReply(err.message) : undefined);
        if (reject) {
          let r = 0;
          for (let c = 0; c < results.length; c++) {
            while (ends[r] <= c) r++;
            const result = results[c];
            if (!(result instanceof Error)) continue;
            reject(batch[r], this.refusal(batch[r], result.message));
            c = ends[r] - 1; // once per row
          }
        }
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

  /** A checkpoint barrier: every row written so far is sent and answered. */
  async prepareCommit(): Promise<undefined> {
    await this.pipeline?.flush();
    this.rejectRefused();
    return undefined;
  }

  /** A failed or cancelled task: rows not sent are dropped (the restore replays them) and the connection with them. */
  abortPrepare(): void {
    this.pipeline?.close();
    this.pipeline = undefined;
  }

  async close(): Promise<void> {
    const pipeline = this.pipeline;
    const cluster = this.cluster;
    this.pipeline = undefined;
    this.cluster = undefined;
    try {
      await pipeline?.flush();
      if (pipeline && this.reject) {
        for (const [row, message] of pipeline.takeRefused()) this.reject(row, this.refusal(row, message));
      }
    } finally {
      pipeline?.close();
      if (cluster) await cluster.quit().catch(() => cluster.disconnect());
    }
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
