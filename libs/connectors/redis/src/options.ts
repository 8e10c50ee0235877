import { COMMON_OPTIONS, type OptionDef, type PluginOptions, type PluginSpec } from '@tideway/api';

/**
 * SeaTunnel's Redis options (RedisConfig, docs/en/connector-v2/{source,sink}/Redis.md). Enum
 * values are matched case-insensitively, as SeaTunnel's enum options are.
 */

export const DATA_TYPES = ['key', 'string', 'hash', 'list', 'set', 'zset'] as const;
export type RedisDataType = (typeof DATA_TYPES)[number];

const CONNECTION_OPTIONS: readonly OptionDef[] = [
  { name: 'host', type: 'string', description: 'Redis host (single mode; in cluster mode one of the seed nodes besides `nodes`).' },
  { name: 'port', type: 'int', default: 6379, min: 1, max: 65535, description: 'Redis port of `host`.' },
  {
    name: 'mode',
    type: 'enum',
    values: ['single', 'cluster'],
    default: 'single',
    description:
      'single: one server; cluster: a Redis Cluster, reached through `host`/`port` and `nodes`, with MOVED and ASK redirections followed by the client.',
  },
  {
    name: 'nodes',
    type: 'list',
    description: 'Cluster nodes as host:port, e.g. ["10.0.0.1:7000", "10.0.0.2:7000"] (cluster mode).',
  },
  { name: 'user', type: 'string', description: 'ACL user name (Redis 6 and newer); sent with `auth` as AUTH user password.' },
  { name: 'auth', type: 'string', description: 'Password (requirepass, or the ACL user’s password with `user`).' },
  {
    name: 'db_num',
    type: 'int',
    default: 0,
    min: 0,
    description: 'Database index (SELECT) in single mode; a Redis Cluster has database 0 only.',
  },
  {
    name: 'data_type',
    type: 'enum',
    values: DATA_TYPES,
    required: true,
    description: 'The Redis type read or written: key (same as string), string, hash, list, set or zset.',
  },
  {
    name: 'batch_size',
    type: 'int',
    default: 10,
    min: 1,
    description:
      'Source: the COUNT hint of each SCAN call. Sink: rows per pipelined round trip, one batch in flight while the next is encoded; rows short of a batch are sent 5 ms after the last write, or at a checkpoint.',
  },
  {
    name: 'format',
    type: 'enum',
    values: ['json', 'text'],
    default: 'json',
    description:
      'How rows are put into Redis values: json (an object keyed by field name) or text (fields joined by `field_delimiter`). The source parses values by `schema` only when `format` is set.',
  },
  { name: 'field_delimiter', type: 'string', default: ',', description: 'Field delimiter of the text format.' },
];

function check(o: PluginOptions): string | undefined {
  const mode = o.get<string>('mode');
  if (mode === 'single' && !o.has('host')) return "option 'host' is required when mode is single";
  if (mode === 'cluster' && !o.has('host') && !o.has('nodes')) return "option 'nodes' (or 'host') is required when mode is cluster";
  if (mode === 'single' && o.has('nodes')) return "option 'nodes' applies to mode cluster only: set mode = cluster, or drop it";
  for (const node of o.get<string[] | undefined>('nodes') ?? []) {
    if (!/^[^:\s]+:\d{1,5}$/.test(node)) return `option 'nodes' has '${node}', which is not host:port`;
  }
  if (mode === 'cluster' && o.get<number>('db_num') !== 0)
    return "option 'db_num' must be 0 in cluster mode: a Redis Cluster has database 0 only";
  if (o.has('user') && !o.has('auth')) return "option 'user' needs option 'auth' (the user's password)";
  if (o.get<string>('field_delimiter') === '') return "option 'field_delimiter' must not be empty";
  return undefined;
}

export const REDIS_SOURCE_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    {
      name: 'keys',
      type: 'string',
      required: true,
      description: 'Glob pattern of the keys to read (SCAN MATCH), e.g. `user:*`; only keys of `data_type` are read.',
    },
    {
      name: 'hash_key_parse_mode',
      type: 'enum',
      values: ['all', 'kv'],
      default: 'all',
      description:
        'For data_type hash with `schema`: all reads a whole hash as one row (hash field names are column names); kv reads each hash field as a row: its name in the first column, its value (a JSON object) parsed into the others.',
    },
    {
      name: 'schema',
      type: 'object',
      description: 'The columns of the rows (with `format`); without `format` each value is one row of one string column `content`.',
    },
  ],
  validate: (o) => {
    const bad = check(o);
    if (bad) return bad;
    if (o.has('format') && !o.has('schema')) return "option 'schema' is required when option 'format' is set";
    if (o.has('schema') && !o.has('format')) return "option 'schema' takes effect only with option 'format' (json or text): set it";
    if (o.get<string>('hash_key_parse_mode') === 'kv' && o.get<string>('data_type') !== 'hash') {
      return "option 'hash_key_parse_mode' = kv applies to data_type hash only";
    }
    return undefined;
  },
};

export const REDIS_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    {
      name: 'key',
      type: 'string',
      required: true,
      description:
        'The Redis key: a field name (its value is the key), else the literal key; with support_custom_key a template such as user:{id} or user:${id}. ${table_name}, ${database_name} and ${schema_name} are replaced by each input table’s.',
    },
    {
      name: 'support_custom_key',
      type: 'boolean',
      default: false,
      description: 'Replace {field} and ${field} in `key` by the row’s field values (unknown names stay as written).',
    },
    {
      name: 'value_field',
      type: 'string',
      description: 'For key/string, list, set and zset: the field whose value is written (else the whole row in `format`).',
    },
    {
      name: 'hash_key_field',
      type: 'string',
      description: 'For hash: the field whose value names the hash field (else each row field becomes a hash field).',
    },
    {
      name: 'hash_value_field',
      type: 'string',
      description: 'For hash with hash_key_field: the field whose value is the hash value (else the whole row in `format`).',
    },
    {
      name: 'expire',
      type: 'long',
      default: -1,
      description: 'Seconds until each written key expires (EXPIRE after each write); 0 or less: no expiry.',
    },
  ],
  validate: (o) => {
    const bad = check(o);
    if (bad) return bad;
    const type = o.get<string>('data_type');
    if (o.has('value_field') && type === 'hash')
      return "option 'value_field' does not apply to data_type hash: use hash_key_field and hash_value_field";
    if ((o.has('hash_key_field') || o.has('hash_value_field')) && type !== 'hash') {
      return `options 'hash_key_field' and 'hash_value_field' apply to data_type hash only, not ${type}`;
    }
    if (o.has('hash_value_field') && !o.has('hash_key_field')) return "option 'hash_value_field' needs option 'hash_key_field'";
    if (type === 'hash' && !o.has('hash_key_field') && o.get<string>('format') === 'text') {
      return "data_type hash without 'hash_key_field' writes each field of the row as a hash field and needs format json, not text";
    }
    return undefined;
  },
};
