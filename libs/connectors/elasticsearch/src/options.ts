import { COMMON_OPTIONS, type OptionDef, type PluginOptions, type PluginSpec } from '@tideway/api';

/** SeaTunnel's Elasticsearch options (EsClusterConnectionConfig, SinkConfig, SourceConfig). */
const CONNECTION_OPTIONS: readonly OptionDef[] = [
  {
    name: 'hosts',
    type: 'list',
    required: true,
    description: 'Cluster addresses, e.g. ["https://host:9200"] (http:// when no scheme is given).',
  },
  { name: 'username', type: 'string', description: 'Basic-auth user.' },
  { name: 'password', type: 'string', description: 'Basic-auth password.' },
  { name: 'tls_verify_certificate', type: 'boolean', default: true, description: 'Check the server certificate of an https host.' },
  { name: 'tls_verify_hostname', type: 'boolean', default: true, description: 'Check that the certificate names the host.' },
  {
    name: 'tls_keystore_path',
    type: 'string',
    description: 'Not supported: Java key stores; the certificate authority of the system is used.',
  },
  { name: 'tls_keystore_password', type: 'string', description: 'Not supported (see tls_keystore_path).' },
  {
    name: 'tls_truststore_path',
    type: 'string',
    description: 'Not supported: Java trust stores; the certificate authority of the system is used.',
  },
  { name: 'tls_truststore_password', type: 'string', description: 'Not supported (see tls_truststore_path).' },
];

function checkConnection(o: PluginOptions): string | undefined {
  for (const name of ['tls_keystore_path', 'tls_keystore_password', 'tls_truststore_path', 'tls_truststore_password'])
    if (o.has(name))
      return `option '${name}' is not supported: Java key and trust stores cannot be read here (the system's certificate authorities are trusted; tls_verify_certificate = false accepts any)`;
  const hosts = o.get<string[]>('hosts');
  if (hosts.length === 0) return "option 'hosts' is empty";
  for (const h of hosts) {
    try {
      new URL(/^https?:\/\//.test(h) ? h : `http://${h}`);
    } catch {
      return `option 'hosts' has '${h}', which is not host:port or a URL`;
    }
  }
  if (o.has('password') && !o.has('username')) return "option 'password' needs option 'username'";
  return undefined;
}

export const SCHEMA_SAVE_MODES = ['RECREATE_SCHEMA', 'CREATE_SCHEMA_WHEN_NOT_EXIST', 'ERROR_WHEN_SCHEMA_NOT_EXIST', 'IGNORE'] as const;
export const DATA_SAVE_MODES = ['APPEND_DATA', 'DROP_DATA', 'ERROR_WHEN_DATA_EXISTS'] as const;

export const ES_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    {
      name: 'index',
      type: 'string',
      required: true,
      description:
        'The index written: ${field} takes a field of the row, ${table_name} the input table’s name; lower-cased as the index names must be.',
    },
    {
      name: 'index_type',
      type: 'string',
      description:
        'The mapping type of Elasticsearch 6 and older; OpenSearch and Elasticsearch 7+ have none, and it is not sent (as SeaTunnel does for them).',
    },
    {
      name: 'primary_keys',
      type: 'list',
      description: 'Fields whose values, joined by key_delimiter, make the document _id: rows are upserted and deleted by it.',
    },
    { name: 'key_delimiter', type: 'string', default: '_', description: 'Joins the primary key values into the _id.' },
    { name: 'max_batch_size', type: 'int', default: 10, min: 1, description: 'Rows per _bulk request.' },
    {
      name: 'max_retry_count',
      type: 'int',
      default: 3,
      min: 0,
      description: 'Retries of a _bulk request, and of its items that failed with 429 or 5xx.',
    },
    {
      name: 'external_version',
      type: 'boolean',
      default: true,
      description:
        "Tideway's own: with primary_keys, a row that carries its source's log position (a streamed MySQL-CDC or Postgres-CDC change; pgoutput only) is written with it as an external version (version_type external_gte): an index of the whole row (replacing the document, as the update API takes no external version) or a delete, which the index refuses (409, skipped) when it holds a newer version, so a replayed or reordered older write cannot overwrite a newer document. Rows without a position (batch sources, CDC snapshot rows) are upserted as without this option. Turn it off when the source's log starts again (RESET MASTER, a new cluster).",
    },
    {
      name: 'schema_save_mode',
      type: 'enum',
      values: SCHEMA_SAVE_MODES,
      default: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
      description: 'What to do about the index before writing.',
    },
    {
      name: 'data_save_mode',
      type: 'enum',
      values: DATA_SAVE_MODES,
      default: 'APPEND_DATA',
      description: 'What to do about documents already in the index.',
    },
  ],
  validate: (o) =>
    checkConnection(o) ??
    (o.has('primary_keys') && o.get<string[]>('primary_keys').length === 0 ? "option 'primary_keys' is empty" : undefined),
};

export const ES_SOURCE_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    { name: 'index', type: 'string', required: true, description: 'The index (or pattern) read.' },
    {
      name: 'source',
      type: 'list',
      description:
        'The _source fields read, in this order; without `schema`, their types come from the index mapping (empty or unset: every field of the mapping).',
    },
    { name: 'schema', type: 'object', description: 'The row type; fields are read from _source by name.' },
    {
      name: 'array_column',
      type: 'object',
      description:
        'Without `schema`: fields that hold arrays, with their type, e.g. { c_array = "array<tinyint>" } (a mapping does not say which fields are arrays).',
    },
    { name: 'query', type: 'object', description: 'The query DSL, e.g. {"range": {"c_int": {"gte": 10}}} (default match_all).' },
    { name: 'scroll_time', type: 'string', default: '1m', description: 'How long the server keeps a scroll between two pages.' },
    { name: 'scroll_size', type: 'int', default: 100, min: 1, description: 'Documents per scroll page.' },
    {
      name: 'search_type',
      type: 'enum',
      values: ['DSL', 'SQL'],
      default: 'DSL',
      description: 'How the documents are selected: DSL (`query`); SQL (`sql_query`) is not supported.',
    },
    { name: 'sql_query', type: 'string', description: 'Not supported (see search_type).' },
    {
      name: 'search_api_type',
      type: 'enum',
      values: ['SCROLL', 'PIT'],
      default: 'SCROLL',
      description:
        'How pages are read: SCROLL (scroll_time, scroll_size), or PIT, a point in time paged with search_after (pit_keep_alive, pit_batch_size; OpenSearch clusters only).',
    },
    {
      name: 'pit_keep_alive',
      type: 'long',
      default: 60000,
      min: 1,
      description: 'Milliseconds the server keeps a point in time between two pages (and for a restore to continue with it).',
    },
    { name: 'pit_batch_size', type: 'int', default: 100, min: 1, description: 'Documents per point-in-time page.' },
  ],
  ignoredOptions: ['es.mapping.date.rich', 'es.read.field.exclude', 'es.read.field.as.array.include'].map((name) => ({
    name,
    reason: "it is an option of the Elasticsearch-Hadoop connector, which SeaTunnel's Elasticsearch source does not read",
  })),
  validate: (o) =>
    checkConnection(o) ??
    (o.has('schema') && o.has('array_column') ? "option 'array_column' applies without 'schema' only" : undefined) ??
    (o.get<string>('search_type') === 'SQL' || o.has('sql_query')
      ? "option 'search_type' = SQL (with 'sql_query') is not supported: select documents with 'query' (DSL)"
      : undefined),
};
