import {
  parseSchemaConfig,
  type CatalogTable,
  type Collector,
  type PluginContext,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SplitEnumerator,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, ValueConversionError } from '@tideway/common';
import { compileJsonLineParser, quoteInexactNumbers } from '@tideway/connector-file-common/formats';
import { JSONPath } from 'jsonpath-plus';
import { closeAgents, newAgents, requestSettings, send, statusError, withQuery, type RequestSettings } from './client.js';
import { HTTP_SOURCE_SPEC, type HttpMethod } from './options.js';

/** The one split of an Http source: the next page to read (batch jobs resume there after a restore). */
export interface HttpSplit {
  splitId: string;
  page?: number;
  done?: boolean;
}

interface Paging {
  readonly field: string;
  readonly start: number;
  readonly total: number;
  readonly batchSize: number;
}

interface SourceSettings {
  readonly request: RequestSettings;
  readonly method: HttpMethod;
  readonly body?: string;
  readonly table: CatalogTable;
  /** The rows of one answer (or one line of it), as field arrays. */
  readonly parse: (text: string) => unknown[][];
  readonly multiLines: boolean;
  readonly paging?: Paging;
  readonly pollIntervalMs: number;
}

/** SeaTunnel's table of an Http source without `schema`: one string column `content`. */
const CONTENT_TABLE: CatalogTable = {
  tableId: 'default.default.default',
  catalogName: 'Http',
  path: { database: 'default', schema: 'default', table: 'default' },
  columns: [{ name: 'content', type: { kind: 'string' }, nullable: false }],
};

/** JSON text with the numbers a JS number would change kept as their exact text. */
function parseExact(text: string): unknown {
  return JSON.parse(quoteInexactNumbers(text));
}

function query(path: string, json: unknown): unknown[] {
  return JSONPath({ path, json: json as object, wrap: true }) as unknown[];
}

function compileJsonRows(table: CatalogTable, contentField?: string, jsonField?: Record<string, string>): (text: string) => unknown[][] {
  const line = compileJsonLineParser(table.columns);
  const rowsOf = (value: unknown): unknown[] => {
    if (Array.isArray(value)) return value;
    return value === null || value === undefined ? [] : [value];
  };
  const toFields = (objects: unknown[]) => objects.map((o) => line(JSON.stringify(o)));
  if (contentField !== undefined) {
    return (text) => {
      const found = query(contentField, parseExact(text));
      // A path naming one array (e.g. $.data) gives its elements; a wildcard gives the matches.
      return toFields(found.length === 1 && Array.isArray(found[0]) ? found[0] : found);
    };
  }
  if (jsonField !== undefined) {
    const names = Object.keys(jsonField);
    return (text) => {
      const doc = parseExact(text);
      const columns = names.map((n) => query(jsonField[n], doc));
      const n = columns[0]?.length ?? 0;
      columns.forEach((c, i) => {
        if (c.length !== n)
          throw new ValueConversionError(
            ErrorCode.VALUE_CONVERSION,
            `json_field: ${jsonField[names[0]]} gives ${n} values and ${jsonField[names[i]]} gives ${c.length}: the paths must give as many`,
          );
      });
      const objects = Array.from({ length: n }, (_, r) =>
        Object.fromEntries(names.map((name, i) => [name, columns[i][r] === null || columns[i][r] === undefined ? null : columns[i][r]])),
      );
      return toFields(objects);
    };
  }
  return (text) => toFields(rowsOf(parseExact(text)));
}

class HttpEnumerator implements SplitEnumerator<HttpSplit, { assigned: boolean }> {
  private assigned: boolean;

  constructor(
    private readonly ctx: SplitEnumeratorContext<HttpSplit>,
    restored?: { assigned: boolean },
  ) {
    this.assigned = restored?.assigned ?? false;
  }

  open(): void {}
  run(): void {}

  /** The one split goes to reader 0 (SeaTunnel's single-split source); the others get none. */
  registerReader(subtask: number): void {
    if (subtask === 0 && !this.assigned) {
      this.assigned = true;
      this.ctx.assignSplits(0, [{ splitId: 'http' }]);
    }
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  addSplitsBack(splits: HttpSplit[]): void {
    if (splits.length > 0) this.assigned = false;
  }

  snapshotState(): { assigned: boolean } {
    return { assigned: this.assigned };
  }

  close(): void {}
}

class HttpReader implements SourceReader<HttpSplit> {
  private split?: HttpSplit;
  private noMoreSplits = false;
  private nextPollAt = 0;
  private readonly agents = newAgents();

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly s: SourceSettings,
  ) {}

  open(): void {}

  addSplits(splits: HttpSplit[]): void {
    if (splits[0]) this.split = { ...splits[0] };
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  private request(page?: number): { url: URL; headers: Record<string, string>; body?: Buffer } {
    const s = this.s;
    const params = page === undefined || !s.paging ? s.request.params : { ...s.request.params, [s.paging.field]: String(page) };
    const headers = { ...s.request.headers };
    const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    if (s.method === 'POST' && s.body === undefined && Object.keys(params).length > 0) {
      // SeaTunnel's form request: the parameters as an url-encoded body.
      if (!hasType) headers['content-type'] = 'application/x-www-form-urlencoded';
      return { url: new URL(s.request.url), headers, body: Buffer.from(new URLSearchParams(params).toString()) };
    }
    const url = withQuery(s.request.url, params);
    if (s.method === 'POST') {
      if (!hasType) headers['content-type'] = 'application/json';
      return { url, headers, body: Buffer.from(s.body ?? '') };
    }
    return { url, headers };
  }

  async pollNext(output: Collector): Promise<void> {
    const split = this.split;
    if (!split || split.done) {
      if (this.ctx.boundedness === 'BOUNDED' && (this.noMoreSplits || split?.done)) this.ctx.signalNoMoreElement();
      return;
    }
    const bounded = this.ctx.boundedness === 'BOUNDED';
    if (!bounded && Date.now() < this.nextPollAt) return;
    const paging = this.s.paging;
    const page = paging ? (split.page ?? paging.start) : undefined;
    const { url, headers, body } = this.request(page);
    const answer = await send(this.s.request, this.agents, url, this.s.method, headers, body);
    if (answer.status < 200 || answer.status > 207) throw statusError(this.s.method, url, answer);
    const texts = this.s.multiLines ? answer.body.split(/\r?\n/).filter((l) => l.trim() !== '') : answer.body === '' ? [] : [answer.body];
    const rows: Row[] = [];
    const tableId = this.s.table.tableId;
    for (const text of texts) {
      let fieldsList: unknown[][];
      try {
        fieldsList = this.s.parse(text);
      } catch (err) {
        throw new ValueConversionError(
          ErrorCode.VALUE_CONVERSION,
          `Http ${this.s.method} ${url.origin}${url.pathname}: ${(err as Error).message}`,
        );
      }
      for (const fields of fieldsList) rows.push({ kind: '+I', tableId, fields });
    }
    if (rows.length > 0) output.collectBatch(rows);
    if (paging && page !== undefined) {
      const last = paging.total > 0 ? page >= paging.total : rows.length < paging.batchSize;
      if (last) {
        if (bounded) split.done = true;
        else split.page = paging.start;
      } else split.page = page + 1;
      if (!last || bounded) return;
    } else if (bounded) {
      split.done = true;
      return;
    }
    // Streaming: the whole answer (every page) again after poll_interval_millis.
    this.nextPollAt = Date.now() + this.s.pollIntervalMs;
  }

  snapshotState(): HttpSplit[] {
    return this.split ? [{ ...this.split }] : [];
  }

  close(): void {
    closeAgents(this.agents);
  }
}

function pagingOf(raw: unknown, place: ReturnType<PluginContext['options']['place']>): Paging {
  const bad = (msg: string) => new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `option 'pageing': ${msg}`, { place });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('must be an object');
  const p = raw as Record<string, unknown>;
  const known = ['page_field', 'start_page_number', 'total_page_size', 'batch_size'];
  for (const k of Object.keys(p)) if (!known.includes(k)) throw bad(`unknown key '${k}' (known: ${known.join(', ')})`);
  const int = (k: string, dflt: number, min: number): number => {
    const v = p[k] === undefined ? dflt : Number(p[k]);
    if (!Number.isInteger(v) || v < min) throw bad(`'${k}' must be an integer of at least ${min}`);
    return v;
  };
  const field = p.page_field ?? 'page';
  if (typeof field !== 'string' || field === '') throw bad("'page_field' must be a parameter name");
  return {
    field,
    start: int('start_page_number', 1, 0),
    total: int('total_page_size', 0, 0),
    batchSize: int('batch_size', 100, 1),
  };
}

export const httpSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Http',
  description:
    "SeaTunnel's Http source: requests a URL (GET, POST with a JSON or form body, PUT, DELETE) and reads the answer as text, or as JSON rows by `schema`, `content_field` or `json_field` JSONPaths; pages through `pageing`; retries with backoff; streaming jobs request again every poll_interval_millis.",
  spec: HTTP_SOURCE_SPEC,
  create: (ctx: PluginContext): Source<HttpSplit, { assigned: boolean }> => {
    const o = ctx.options;
    const format = o.get<string>('format');
    let table = CONTENT_TABLE;
    let parse: (text: string) => unknown[][] = (text) => [[text]];
    if (format === 'json') {
      table = parseSchemaConfig(o.raw.schema, { catalogName: 'Http', place: o.place('schema') }).table;
      let jsonField: Record<string, string> | undefined;
      if (o.raw.json_field !== undefined) {
        jsonField = Object.fromEntries(Object.entries(o.raw.json_field as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
        const missing = table.columns.filter((c) => !(c.name in jsonField!)).map((c) => c.name);
        if (missing.length > 0)
          throw new ConfigError(
            ErrorCode.CONFIG_BAD_VALUE,
            `option 'json_field' has no path for the schema's column(s) ${missing.join(', ')}`,
            {
              place: o.place('json_field'),
            },
          );
      }
      parse = compileJsonRows(table, o.get<string | undefined>('content_field'), jsonField);
    }
    const pollIntervalMs = o.get<number | undefined>('poll_interval_millis');
    if (pollIntervalMs !== undefined && ctx.jobMode === 'BATCH')
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        "option 'poll_interval_millis' applies to STREAMING jobs only: a batch job requests once",
        {
          place: o.place('poll_interval_millis'),
        },
      );
    const settings: SourceSettings = {
      request: requestSettings(o),
      method: o.get<HttpMethod>('method'),
      body: o.get<string | undefined>('body'),
      table,
      parse,
      multiLines: o.get<boolean>('enable_multi_lines'),
      paging: o.raw.pageing === undefined ? undefined : pagingOf(o.raw.pageing, o.place('pageing')),
      pollIntervalMs: pollIntervalMs ?? 0,
    };
    return {
      boundedness: () => (ctx.jobMode === 'BATCH' ? 'BOUNDED' : 'UNBOUNDED'),
      catalogTables: () => [settings.table],
      createEnumerator: (ectx, restored) => new HttpEnumerator(ectx, restored),
      createReader: (rctx) => new HttpReader(rctx, settings),
    };
  },
};
