import { COMMON_OPTIONS, type OptionDef, type PluginOptions, type PluginSpec } from '@tideway/api';

/**
 * SeaTunnel's Http options (HttpConfig, docs/en/connector-v2/{source,sink}/Http.md). Names,
 * defaults and units are SeaTunnel's.
 */

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof METHODS)[number];

const REQUEST_OPTIONS: readonly OptionDef[] = [
  { name: 'url', type: 'string', required: true, description: 'The request URL (http or https).' },
  { name: 'headers', type: 'object', description: 'Request headers, { name = value }.' },
  {
    name: 'params',
    type: 'object',
    description:
      "Request parameters, { name = value }: the query string of a GET, PUT or DELETE (and of a POST with `body`, and of the sink's POSTs); the form-encoded body of a source POST without `body`.",
  },
  {
    name: 'retry',
    type: 'int',
    default: 0,
    min: 0,
    description: 'Retries of a request that fails with an I/O error, a timeout, a 429 or a 5xx answer.',
  },
  {
    name: 'retry_backoff_multiplier_ms',
    type: 'int',
    default: 100,
    min: 0,
    description: 'Wait before retry n: n times this many ms, at most retry_backoff_max_ms.',
  },
  { name: 'retry_backoff_max_ms', type: 'int', default: 10_000, min: 0, description: 'Longest wait between retries, in ms.' },
  { name: 'connect_timeout_ms', type: 'int', default: 12_000, min: 1, description: 'Connection timeout in ms.' },
  { name: 'socket_timeout_ms', type: 'int', default: 60_000, min: 1, description: 'Longest wait for the answer, in ms.' },
];

function checkRequest(o: PluginOptions): string | undefined {
  const url = o.get<string>('url');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `option 'url' is not a URL: '${url}'`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `option 'url' has scheme '${u.protocol.replace(':', '')}': only http and https are supported`;
  for (const name of ['headers', 'params']) {
    const v = o.raw[name];
    if (v === undefined) continue;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `option '${name}' must be an object of { name = value }`;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'object' && x !== null) return `option '${name}' has '${k}', whose value is not text, a number or a boolean`;
    }
  }
  return undefined;
}

export const HTTP_SOURCE_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...REQUEST_OPTIONS,
    { name: 'method', type: 'enum', values: METHODS, default: 'GET', description: 'The request method.' },
    { name: 'body', type: 'string', description: 'The request body, sent as application/json (POST).' },
    {
      name: 'format',
      type: 'enum',
      values: ['json', 'text'],
      default: 'text',
      description:
        'json: the answer is a JSON object (one row) or array (a row per element) read by `schema`; text: the whole answer (or each line, with enable_multi_lines) is one row of the string column `content` (no `schema`).',
    },
    { name: 'schema', type: 'object', description: 'The row type of the JSON answer (json format).' },
    {
      name: 'content_field',
      type: 'string',
      description: 'A JSONPath into the answer whose value holds the rows, e.g. $.store.book.*',
    },
    {
      name: 'json_field',
      type: 'object',
      description:
        'Columns read by JSONPath, { column = "$.data[*].name" }: the i-th value of every path makes the i-th row (the paths must give as many values).',
    },
    { name: 'enable_multi_lines', type: 'boolean', default: false, description: 'Each line of the answer is parsed on its own.' },
    {
      name: 'pageing',
      type: 'object',
      description:
        'Pages: { page_field = page, start_page_number = 1, total_page_size = N, batch_size = 100 }. The page number goes into params[page_field]; reading stops after page total_page_size, or, without it, at the first page giving fewer than batch_size rows.',
    },
    {
      name: 'poll_interval_millis',
      type: 'int',
      min: 0,
      description: 'Streaming jobs: the wait between two requests (each answer is read again as new rows).',
    },
  ],
  ignoredOptions: ['date_format', 'datetime_format', 'time_format'].map((name) => ({
    name,
    reason: "SeaTunnel's Http source leaves it unread: JSON dates and times are read in ISO form",
  })),
  validate: (o) => {
    const bad = checkRequest(o);
    if (bad) return bad;
    const format = o.get<string>('format');
    if (format === 'text' && o.has('schema'))
      return 'option \'schema\' needs format = "json": the text format gives one string column `content`';
    if (format === 'json' && !o.has('schema')) return 'format = "json" needs option \'schema\'';
    if (format === 'text' && (o.has('content_field') || o.has('json_field')))
      return "options 'content_field' and 'json_field' need format = \"json\"";
    if (o.has('content_field') && o.has('json_field')) return "options 'content_field' and 'json_field' exclude each other: choose one";
    if (o.has('body') && o.get<string>('method') !== 'POST') return "option 'body' is sent with method = POST only";
    return undefined;
  },
};

export const HTTP_SINK_SPEC: PluginSpec = {
  options: [...COMMON_OPTIONS, ...REQUEST_OPTIONS],
  validate: checkRequest,
};
