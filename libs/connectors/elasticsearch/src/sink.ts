import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ConfigError, ErrorCode, logger, TidewayError, textOf } from '@tideway/common';
import { compileJsonLineWriter } from '@tideway/connector-file-common/formats';
import { clientOf, type EsClient } from './client.js';
import { ES_SINK_SPEC, type DATA_SAVE_MODES, type SCHEMA_SAVE_MODES } from './options.js';
import { toEsMapping } from './types.js';

const log = logger('elasticsearch-sink');

interface SinkSettings {
  readonly index: string;
  readonly primaryKeys?: readonly string[];
  readonly keyDelimiter: string;
  readonly batchSize: number;
  readonly retries: number;
  /** Keyed rows with a Row.version are written with it as an external version (option external_version). */
  readonly externalVersion: boolean;
}

/** The index pattern with the table's ${table_name} and ${database_name} filled in (row fields stay). */
function tableIndex(index: string, table: CatalogTable): string {
  return index.replace(/\$\{table_name\}/g, table.path.table).replace(/\$\{database_name\}/g, table.path.database ?? '');
}

/** One row as its _bulk lines ('' when the row writes nothing). */
export type Action = (row: Row) => string;

/** The action line's `"_index":...` part for a row: fixed, or made of the row's ${field} values. */
function compileIndexPart(pattern: string, names: readonly string[]): (row: Row) => string {
  const parts: Array<string | number> = [];
  let last = 0;
  for (const m of pattern.matchAll(/\$\{([^{}]+)\}/g)) {
    const i = names.indexOf(m[1]);
    if (i < 0) continue;
    parts.push(pattern.slice(last, m.index), i);
    last = m.index + m[0].length;
  }
  parts.push(pattern.slice(last));
  if (parts.length === 1) {
    const fixed = `"_index":${JSON.stringify(pattern.toLowerCase())}`;
    return () => fixed;
  }
  return (row) => {
    let name = '';
    for (const p of parts) {
      if (typeof p === 'string') name += p;
      else {
        const v = row.fields[p];
        name += v === null || v === undefined ? 'null' : textOf(v);
      }
    }
    return `"_index":${JSON.stringify(name.toLowerCase())}`;
  };
}

/**
 * The _bulk lines of a table's rows. Without keys a row is an `index` action (a delete cannot
 * find its document and writes nothing, as in SeaTunnel). With keys the _id is the key values
 * joined: a row is an `update` with doc_as_upsert, UPDATE_BEFORE and DELETE a `delete`; a keyed
 * row carrying its source position (Row.version) is instead written with it as an external
 * version (`version_type` external_gte, since a transaction's changes share their version): an
 * `index` of the whole row (the update API takes no external version) or a `delete`, which the
 * index refuses with 409 when it holds a newer version of the document.
 */
export function compileAction(s: SinkSettings, table: CatalogTable): Action {
  const names = table.columns.map((c) => c.name);
  const doc = compileJsonLineWriter(table.columns);
  const indexPart = compileIndexPart(tableIndex(s.index, table), names);
  const keys = (s.primaryKeys ?? []).map((k) => names.indexOf(k));
  if (keys.length === 0)
    return (row) => (row.kind === '-D' || row.kind === '-U' ? '' : `{"index":{${indexPart(row)}}}\n${doc(row.fields)}\n`);
  const idOf = (row: Row) => {
    let id = '';
    for (let k = 0; k < keys.length; k++) {
      const v = row.fields[keys[k]];
      id += (k === 0 ? '' : s.keyDelimiter) + (v === null || v === undefined ? '' : textOf(v));
    }
    return JSON.stringify(id);
  };
  return (row) => {
    const meta = `${indexPart(row)},"_id":${idOf(row)}`;
    const deleting = row.kind === '-D' || row.kind === '-U';
    if (s.externalVersion && row.version !== undefined) {
      const v = `${meta},"version":${row.version},"version_type":"external_gte"`;
      return deleting ? `{"delete":{${v}}}\n` : `{"index":{${v}}}\n${doc(row.fields)}\n`;
    }
    return deleting ? `{"delete":{${meta}}}\n` : `{"update":{${meta}}}\n{"doc":${doc(row.fields)},"doc_as_upsert":true}\n`;
  };
}

interface BulkItem {
  status: number;
  error?: { type?: string; reason?: string };
}

interface BulkAnswer {
  errors: boolean;
  items: Array<Record<string, BulkItem>>;
}

/** Whether an answer to _bulk says no item failed, read from its head (`{"took":n,"errors":false,...`). */
function noErrors(body: string): boolean {
  const at = body.indexOf('"errors":');
  return at >= 0 && at < 64 && body.startsWith('false', at + 9);
}

/**
 * Item errors that are the document's own (a value its mapping cannot take, a field a strict
 * mapping refuses, an argument the document makes illegal): with env.sink_error_handler the row
 * is handed over and the rest of the batch stands. Every other item error (a blocked or missing
 * index, 429, 5xx) and every request error are the cluster's: they fail the task.
 */
const ROW_ERRORS = new Set([
  'mapper_parsing_exception',
  'document_parsing_exception',
  'strict_dynamic_mapping_exception',
  'illegal_argument_exception',
]);

/** An action line of a versioned write: its item's 409 means the index holds a newer version. */
function versioned(lines: string): boolean {
  const nl = lines.indexOf('\n');
  return lines.lastIndexOf('"version_type":"external_gte"', nl) > 0;
}

/**
 * Writes rows with _bulk, max_batch_size actions a request (rows are gathered across write()
 * calls, as SeaTunnel's writer does): keyed rows are idempotent by _id (a replay after a restore
 * writes the same documents), unkeyed rows are at-least-once. Items that fail with 429 or 5xx
 * are sent again; a versioned item refused with 409 is older than the document (skipped); any
 * other item error fails the task naming the document, unless the job handles sink row errors
 * (handleRowErrors) and the item's error is the document's own (ROW_ERRORS): that row is handed
 * over and the others of its batch stand. One _bulk is in flight at a time, in
 * row order (as a loader on one connection): the next batch is built while it is at the
 * cluster. prepareCommit sends what is gathered and waits for every answer, so a completed
 * checkpoint has every row before it in the index.
 */
class EsSinkWriter implements SinkWriter {
  private readonly actions = new Map<string, Action>();
  private gathered: string[] = [];
  /** The row of each gathered action (for a row-level refusal). */
  private gatheredRows: Row[] = [];
  /** env.sink_error_handler: where the rows the cluster refuses for themselves go. */
  private reject?: (row: Row, error: Error) => void;
  /** The _bulk at the cluster (rejects with the error that fails the task). */
  private inFlight: Promise<void> | undefined;
  private stale = 0;

  constructor(
    private readonly client: EsClient,
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.actions.set(t.tableId, compileAction(s, t));
  }

  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  async write(rows: readonly Row[]): Promise<void> {
    for (const row of rows) {
      const action = this.actions.get(row.tableId);
      if (!action)
        throw new TidewayError(
          ErrorCode.CONNECTOR_IO,
          `Elasticsearch sink got a row of table '${row.tableId}', which is not one of its inputs`,
        );
      const a = action(row);
      if (a === '') continue;
      this.gathered.push(a);
      this.gatheredRows.push(row);
      if (this.gathered.length >= this.s.batchSize) await this.send();
    }
  }

  /** Sends the gathered actions once the _bulk before them has answered. */
  private async send(): Promise<void> {
    const lines = this.gathered;
    const rows = this.gatheredRows;
    this.gathered = [];
    this.gatheredRows = [];
    await this.flush();
    if (lines.length === 0) return;
    const sent = this.bulk(lines, rows);
    sent.catch(() => {}); // awaited by the next flush, which fails the task with it
    this.inFlight = sent;
  }

  /** Waits for the _bulk in flight; its failure fails the task. */
  private async flush(): Promise<void> {
    const pending = this.inFlight;
    this.inFlight = undefined;
    await pending;
  }

  private async bulk(lines: string[], rows: Row[]): Promise<void> {
    let pending = lines;
    let pendingRows = rows;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const answer = await this.client.call('POST', '/_bulk?refresh=false', pending.join(''), 'application/x-ndjson');
      if (answer.status < 200 || answer.status > 299)
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Elasticsearch POST /_bulk at ${this.client.where} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
          { retryable: answer.status === 429 || answer.status >= 500 },
        );
      if (noErrors(answer.body)) return;
      const { items } = JSON.parse(answer.body) as BulkAnswer;
      const retry: string[] = [];
      const retryRows: Row[] = [];
      items.forEach((item, i) => {
        const r = Object.values(item)[0];
        if (r.status < 300 || (r.status === 404 && 'delete' in item)) return;
        if (r.status === 409 && versioned(pending[i])) {
          // The index holds a newer version of this document: a replayed or reordered write.
          if (this.stale++ % 1000 === 0) log.debug({ stale: this.stale }, 'Elasticsearch kept newer documents over older versioned writes');
          return;
        }
        if ((r.status === 429 || r.status >= 500) && attempt < this.s.retries) {
          retry.push(pending[i]);
          retryRows.push(pendingRows[i]);
          return;
        }
        const error = new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Elasticsearch refused ${pending[i].split('\n')[0]}: ${r.status} ${r.error?.type ?? ''} ${r.error?.reason ?? ''}`.trim(),
          { retryable: r.status === 429 || r.status >= 500 },
        );
        if (this.reject && r.status === 400 && ROW_ERRORS.has(r.error?.type ?? '')) this.reject(pendingRows[i], error);
        else throw error;
      });
      pending = retry;
      pendingRows = retryRows;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
    }
  }

  async prepareCommit(): Promise<undefined> {
    await this.send();
    await this.flush();
    return undefined;
  }

  async close(): Promise<void> {
    try {
      await this.send();
      await this.flush();
    } finally {
      this.client.close();
    }
  }
}

/** The index a table writes to, when its index name has no ${field} in it. */
function fixedIndex(index: string, table: CatalogTable): string | undefined {
  const name = tableIndex(index, table);
  return /\$\{/.test(name) ? undefined : name.toLowerCase();
}

async function applySaveModes(
  client: EsClient,
  index: string,
  tables: readonly CatalogTable[],
  schemaMode: (typeof SCHEMA_SAVE_MODES)[number],
  dataMode: (typeof DATA_SAVE_MODES)[number],
): Promise<void> {
  for (const t of tables) {
    const name = fixedIndex(index, t);
    if (name === undefined) continue; // an index per row value: created on write, by the cluster's dynamic mapping
    const exists = (await client.call('HEAD', `/${encodeURIComponent(name)}`)).status === 200;
    const create = () =>
      client.json('PUT', `/${encodeURIComponent(name)}`, {
        mappings: { properties: Object.fromEntries(t.columns.map((c) => [c.name, toEsMapping(c.type)])) },
      });
    if (schemaMode === 'RECREATE_SCHEMA') {
      if (exists) await client.json('DELETE', `/${encodeURIComponent(name)}`);
      await create();
    } else if (!exists) {
      if (schemaMode === 'ERROR_WHEN_SCHEMA_NOT_EXIST')
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Elasticsearch index '${name}' does not exist (schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST)`,
        );
      if (schemaMode === 'CREATE_SCHEMA_WHEN_NOT_EXIST') await create();
      continue;
    }
    if (dataMode === 'DROP_DATA')
      await client.json('POST', `/${encodeURIComponent(name)}/_delete_by_query?refresh=true`, { query: { match_all: {} } });
    else if (dataMode === 'ERROR_WHEN_DATA_EXISTS') {
      const { count } = await client.json<{ count: number }>('GET', `/${encodeURIComponent(name)}/_count`);
      if (count > 0)
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Elasticsearch index '${name}' holds ${count} documents (data_save_mode = ERROR_WHEN_DATA_EXISTS)`,
        );
    }
  }
}

export const elasticsearchSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Elasticsearch',
  description:
    "SeaTunnel's Elasticsearch sink (tested against OpenSearch 2.19): writes rows with _bulk into an index named literally, by ${table_name} or by ${field}; with primary_keys rows are upserted and deleted by _id (idempotent across restores), CDC changes with their log position as external version so an older write cannot overwrite a newer document; without keys rows are indexed (at-least-once); creates the index from the schema by schema_save_mode.",
  spec: ES_SINK_SPEC,
  create: (ctx: PluginContext): Sink => {
    const o = ctx.options;
    const primaryKeys = o.get<string[] | undefined>('primary_keys');
    for (const t of ctx.inputTables) {
      const missing = (primaryKeys ?? []).filter((k) => !t.columns.some((c) => c.name === k));
      if (missing.length > 0)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option 'primary_keys' names ${missing.join(', ')}, which table ${t.tableId} does not have`,
          {
            place: o.place('primary_keys'),
          },
        );
    }
    const settings: SinkSettings = {
      index: o.get<string>('index'),
      primaryKeys,
      keyDelimiter: o.get<string>('key_delimiter'),
      batchSize: o.get<number>('max_batch_size'),
      retries: o.get<number>('max_retry_count'),
      externalVersion: o.get<boolean>('external_version'),
    };
    const schemaMode = o.get<(typeof SCHEMA_SAVE_MODES)[number]>('schema_save_mode');
    const dataMode = o.get<(typeof DATA_SAVE_MODES)[number]>('data_save_mode');
    return {
      async prepare() {
        const client = clientOf(o);
        try {
          await applySaveModes(client, settings.index, ctx.inputTables, schemaMode, dataMode);
        } finally {
          client.close();
        }
      },
      createWriter: () => new EsSinkWriter(clientOf(o, settings.retries), settings, ctx.inputTables),
    };
  },
};
