/**
 * `format = COMPATIBLE_DEBEZIUM_JSON` of the CDC sources: each change becomes a row of
 * (topic, key, value) strings carrying Debezium's own record, as Kafka Connect's JsonConverter
 * writes it (with `schema` and `payload` unless key/value.converter.schemas.enable = false;
 * decimals as numbers, as SeaTunnel configures it). The topic is Debezium's
 * `<server>.<database or schema>.<table>`; the key is the primary key's struct; the value is the
 * envelope {before, after, source, op, ts_ms, transaction}. See decision 0089 for what differs
 * from a Debezium 1.9 connector's output.
 */
import { RowKind, type CatalogTable, type DataType, type Row } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';

/** SeaTunnel's table of these rows (its DEBEZIUM_DATA_ROW_TYPE, table default.default). */
export const COMPATIBLE_DEBEZIUM_TABLE: CatalogTable = {
  tableId: 'default.default',
  path: { database: 'default', table: 'default' },
  columns: ['topic', 'key', 'value'].map((name) => ({ name, type: { kind: 'string' }, nullable: true })),
};

/** The Debezium release SeaTunnel 2.3.8's CDC connectors embed, named in each record's source block. */
const DEBEZIUM_VERSION = '1.9.8.Final';

/** A JSON number written as its text (bigints, decimals), so no precision is lost. */
class JsonNumber {
  constructor(readonly text: string) {}
}

/** JSON text of plain values, objects in insertion order, JsonNumber as written. */
function toJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${toJson(x)}`);
  return `{${parts.join(',')}}`;
}

/** A Kafka Connect schema as JsonConverter writes it (its keys in JsonConverter's order). */
interface ConnectSchema {
  type: string;
  fields?: ConnectSchema[];
  optional: boolean;
  name?: string;
  version?: number;
  parameters?: Record<string, string>;
  field?: string;
}

function schemaJson(s: ConnectSchema): Record<string, unknown> {
  return {
    type: s.type,
    fields: s.fields?.map(schemaJson),
    optional: s.optional,
    name: s.name,
    version: s.version,
    parameters: s.parameters,
    field: s.field,
  };
}

const DAY_MS = 86_400_000;

function daysOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Math.round(Date.UTC(y, m - 1, d) / DAY_MS);
}

/** 'HH:mm:ss[.f]' as microseconds of the day. */
function microsOfDay(time: string): bigint {
  const m = /^(\d+):(\d+):(\d+)(?:\.(\d+))?/.exec(time);
  if (!m) throw new Error(`'${time}' is not a time`);
  const frac = (m[4] ?? '').padEnd(6, '0').slice(0, 6);
  return BigInt(((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1_000_000) + BigInt(frac);
}

/** 'YYYY-MM-DDTHH:mm:ss[.f]' (no zone) as microseconds since the epoch. */
function epochMicros(ts: string): bigint {
  const [date, time = '00:00:00'] = ts.split(/[T ]/);
  return BigInt(daysOf(date)) * 86_400_000_000n + microsOfDay(time);
}

/** An ISO timestamp with offset in UTC, as Debezium's ZonedTimestamp writes it (ISO_OFFSET_DATE_TIME, Z). */
function utcText(ts: string): string {
  const m = /^(.+?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(ts.replace(' ', 'T'));
  if (!m) return ts;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  const base = new Date(ms).toISOString().slice(0, 19);
  const frac = (m[2] ?? '').replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

/** How one column is written: its Connect schema and its value's JSON. */
interface ColumnCodec {
  readonly schema: ConnectSchema;
  readonly value: (v: unknown) => unknown;
}

function codecOf(type: DataType, optional: boolean, field: string, connector: DebeziumConnector): ColumnCodec | string {
  const plain = (t: string, value: (v: unknown) => unknown = (v) => v): ColumnCodec => ({ schema: { type: t, optional, field }, value });
  const named = (t: string, name: string, value: (v: unknown) => unknown): ColumnCodec => ({
    schema: { type: t, optional, name, version: 1, field },
    value,
  });
  switch (type.kind) {
    case 'boolean':
      return plain('boolean');
    case 'tinyint':
    case 'smallint':
      return plain('int16');
    case 'int':
      return plain('int32');
    case 'bigint':
      return plain('int64', (v) => new JsonNumber(String(v)));
    case 'float':
      return plain('float');
    case 'double':
      return plain('double');
    case 'string':
      return plain('string');
    case 'bytes':
      return plain('bytes', (v) => Buffer.from(v as Uint8Array).toString('base64'));
    case 'decimal':
      return {
        schema: {
          type: 'bytes',
          optional,
          name: 'org.apache.kafka.connect.data.Decimal',
          version: 1,
          parameters: { scale: String(type.scale), 'connect.decimal.precision': String(type.precision) },
          field,
        },
        value: (v) => new JsonNumber(String(v)),
      };
    case 'date':
      return named('int32', 'io.debezium.time.Date', (v) => daysOf(String(v)));
    case 'time':
      return named('int64', 'io.debezium.time.MicroTime', (v) => new JsonNumber(String(microsOfDay(String(v)))));
    case 'timestamp':
      return named('int64', 'io.debezium.time.MicroTimestamp', (v) => new JsonNumber(String(epochMicros(String(v)))));
    case 'timestamp_tz':
      return named('string', 'io.debezium.time.ZonedTimestamp', (v) => utcText(String(v)));
    default:
      return `its type ${type.kind} has no ${connector} Debezium encoding here`;
  }
}

export type DebeziumConnector = 'mysql' | 'postgresql';

/** What the source block says of a change besides the table: where the log stood (MySQL file, pos and server id; PostgreSQL lsn). */
export interface SourcePosition {
  readonly file?: string;
  readonly pos?: number;
  readonly server_id?: number;
  readonly lsn?: bigint;
}

/** The options of the format (the `debezium` map's converter and server name keys). */
export interface DebeziumEnvelopeOptions {
  readonly connector: DebeziumConnector;
  readonly serverName: string;
  readonly keySchemas: boolean;
  readonly valueSchemas: boolean;
}

/** The debezium keys the format reads. */
export const COMPATIBLE_DEBEZIUM_KEYS = ['key.converter.schemas.enable', 'value.converter.schemas.enable', 'database.server.name'];

/** The format's options from the source's `debezium` map (SeaTunnel's defaults: schemas on; its fixed server names). */
export function envelopeOptions(
  connector: DebeziumConnector,
  debezium: Readonly<Record<string, string>>,
  place?: Place,
): DebeziumEnvelopeOptions {
  const flag = (k: string): boolean => {
    const v = debezium[k];
    if (v === undefined) return true;
    if (!/^(true|false)$/i.test(v))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `debezium '${k}' must be true or false, not '${v}'`, { place });
    return /^true$/i.test(v);
  };
  return {
    connector,
    serverName: debezium['database.server.name'] ?? (connector === 'mysql' ? 'mysql_binlog_source' : 'postgres_cdc_source'),
    keySchemas: flag('key.converter.schemas.enable'),
    valueSchemas: flag('value.converter.schemas.enable'),
  };
}

/** Debezium's topic of a table's records: `<server>.<database (MySQL) or schema (PostgreSQL)>.<table>`. */
export function debeziumTopic(opts: DebeziumEnvelopeOptions, path: CatalogTable['path']): string {
  const middle = opts.connector === 'mysql' ? (path.database ?? '') : (path.schema ?? 'public');
  return `${opts.serverName}.${middle}.${path.table}`;
}

/** One table's compiled record writer. */
interface TableEnvelope {
  readonly topic: string;
  readonly db: string;
  readonly schemaName?: string;
  readonly table: string;
  readonly columns: readonly ColumnCodec[];
  readonly keyIndexes: readonly number[];
  readonly keySchema?: Record<string, unknown>;
  readonly valueSchema: Record<string, unknown>;
}

function sourceSchema(connector: DebeziumConnector): ConnectSchema {
  const f = (type: string, field: string, optional = false, name?: string): ConnectSchema => ({ type, optional, name, field });
  const snapshot: ConnectSchema = {
    type: 'string',
    optional: true,
    name: 'io.debezium.data.Enum',
    version: 1,
    parameters: { allowed: 'true,last,false,incremental' },
    field: 'snapshot',
  };
  const head = [
    f('string', 'version'),
    f('string', 'connector'),
    f('string', 'name'),
    f('int64', 'ts_ms'),
    snapshot,
    f('string', 'db'),
    f('string', 'sequence', true),
  ];
  const rest =
    connector === 'mysql'
      ? [
          f('string', 'table', true),
          f('int64', 'server_id'),
          f('string', 'gtid', true),
          f('string', 'file'),
          f('int64', 'pos'),
          f('int32', 'row'),
          f('int64', 'thread', true),
          f('string', 'query', true),
        ]
      : [f('string', 'schema'), f('string', 'table'), f('int64', 'txId', true), f('int64', 'lsn', true), f('int64', 'xmin', true)];
  return {
    type: 'struct',
    fields: [...head, ...rest],
    optional: false,
    name: `io.debezium.connector.${connector}.Source`,
    field: 'source',
  };
}

/** Turns a CDC source's changes into SeaTunnel's compatible_debezium_json rows. */
export class DebeziumEnvelope {
  private readonly tables = new Map<string, TableEnvelope>();
  private readonly source: ConnectSchema;

  constructor(private readonly opts: DebeziumEnvelopeOptions) {
    this.source = sourceSchema(opts.connector);
  }

  /** Why a table cannot be written in the format (a column type without an encoding), or undefined. */
  problem(table: CatalogTable): string | undefined {
    for (const c of table.columns) {
      const codec = codecOf(c.type, c.nullable, c.name, this.opts.connector);
      if (typeof codec === 'string') return `column ${c.name} of table ${table.tableId}: ${codec}`;
    }
    return undefined;
  }

  /** Learns a table's columns (its first time, and after each schema change). */
  setTable(table: CatalogTable): void {
    const problem = this.problem(table);
    if (problem) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `format COMPATIBLE_DEBEZIUM_JSON cannot write ${problem}`);
    const db = table.path.database ?? '';
    const topic = debeziumTopic(this.opts, table.path);
    const columns = table.columns.map((c) => codecOf(c.type, c.nullable, c.name, this.opts.connector) as ColumnCodec);
    const keyNames = table.primaryKey?.columns ?? [];
    const keyIndexes = keyNames.map((k) => table.columns.findIndex((c) => c.name === k)).filter((i) => i >= 0);
    const struct = (suffix: string, fields: ConnectSchema[], optional: boolean, field?: string): ConnectSchema => ({
      type: 'struct',
      fields,
      optional,
      name: `${topic}.${suffix}`,
      field,
    });
    const valueStruct = (field: string) =>
      struct(
        'Value',
        columns.map((c) => c.schema),
        true,
        field,
      );
    const envelope: ConnectSchema = struct(
      'Envelope',
      [
        valueStruct('before'),
        valueStruct('after'),
        this.source,
        { type: 'string', optional: false, field: 'op' },
        { type: 'int64', optional: true, field: 'ts_ms' },
        {
          type: 'struct',
          fields: [
            { type: 'string', optional: false, field: 'id' },
            { type: 'int64', optional: false, field: 'total_order' },
            { type: 'int64', optional: false, field: 'data_collection_order' },
          ],
          optional: true,
          field: 'transaction',
        },
      ],
      false,
    );
    this.tables.set(table.tableId, {
      topic,
      db,
      schemaName: table.path.schema,
      table: table.path.table,
      columns,
      keyIndexes,
      // A key column's schema is not optional (it is the primary key's).
      keySchema:
        keyIndexes.length > 0
          ? schemaJson(
              struct(
                'Key',
                keyIndexes.map((i) => ({ ...columns[i].schema, optional: false })),
                false,
              ),
            )
          : undefined,
      valueSchema: schemaJson(envelope),
    });
  }

  has(tableId: string): boolean {
    return this.tables.has(tableId);
  }

  /**
   * The row of one change: op r (a snapshot read), c, u or d, with the change's source block
   * (its commit time and log position; `snapshot` for snapshot reads).
   */
  row(
    tableId: string,
    op: 'r' | 'c' | 'u' | 'd',
    before: readonly unknown[] | null,
    after: readonly unknown[] | null,
    at: { tsMs: number; snapshot: boolean; position: SourcePosition },
  ): Row {
    const t = this.tables.get(tableId);
    if (!t) throw new Error(`compatible_debezium_json: table ${tableId} was never described`);
    const struct = (fields: readonly unknown[] | null) => {
      if (!fields) return null;
      const out: Record<string, unknown> = {};
      t.columns.forEach((c, i) => {
        const v = fields[i];
        out[c.schema.field as string] = v === null || v === undefined ? null : c.value(v);
      });
      return out;
    };
    const keyRow = after ?? before;
    let key: string | null = null;
    const keyPayload =
      t.keyIndexes.length > 0 && keyRow
        ? Object.fromEntries(
            t.keyIndexes.map((i) => [t.columns[i].schema.field as string, keyRow[i] === null ? null : t.columns[i].value(keyRow[i])]),
          )
        : null;
    if (this.opts.keySchemas) key = toJson({ schema: t.keySchema ?? null, payload: keyPayload });
    else if (keyPayload) key = toJson(keyPayload);
    const pos = at.position;
    // Debezium's source block: the fields both connectors share first, then each one's own, in its order.
    const shared = {
      version: DEBEZIUM_VERSION,
      connector: this.opts.connector,
      name: this.opts.serverName,
      ts_ms: new JsonNumber(String(at.tsMs)),
      snapshot: at.snapshot ? 'true' : 'false',
      db: t.db,
      sequence: null,
    };
    const source =
      this.opts.connector === 'mysql'
        ? {
            ...shared,
            table: t.table,
            server_id: new JsonNumber(String(pos.server_id ?? 0)),
            gtid: null,
            file: pos.file ?? '',
            pos: new JsonNumber(String(pos.pos ?? 0)),
            row: 0,
            thread: null,
            query: null,
          }
        : {
            ...shared,
            schema: t.schemaName ?? 'public',
            table: t.table,
            txId: null,
            lsn: pos.lsn === undefined ? null : new JsonNumber(String(pos.lsn)),
            xmin: null,
          };
    const payload = {
      before: struct(before),
      after: struct(after),
      source,
      op,
      ts_ms: new JsonNumber(String(Date.now())),
      transaction: null,
    };
    const value = this.opts.valueSchemas ? toJson({ schema: t.valueSchema, payload }) : toJson(payload);
    return { kind: RowKind.INSERT, tableId: COMPATIBLE_DEBEZIUM_TABLE.tableId, fields: [t.topic, key, value] };
  }
}
