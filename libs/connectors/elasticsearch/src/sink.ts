import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError, textOf } from '@tideway/common';
import { compileJsonLineWriter } from '@tideway/connector-file-common/formats';
import { clientOf, type EsClient } from './client.js';
import { ES_SINK_SPEC, type DATA_SAVE_MODES, type SCHEMA_SAVE_MODES } from './options.js';
import { toEsMapping } from './types.js';

interface SinkSettings {
  readonly index: string;
  readonly primaryKeys?: readonly string[];
  readonly keyDelimiter: string;
  readonly batchSize: number;
  readonly retries: number;
}

/** The index pattern with the table's ${table_name} and ${database_name} filled in (row fields stay). */
function tableIndex(index: string, table: CatalogTable): string {
  return index.replace(/\$\{table_name\}/g, table.path.table).replace(/\$\{database_name\}/g, table.path.database ?? '');
}

/** One row as its _bulk lines. */
type Action = (row: Row) => string;

function compileAction(s: SinkSettings, table: CatalogTable): Action {
  const names = table.columns.map((c) => c.name);
  const at = (n: string) => names.indexOf(n);
  const doc = compileJsonLineWriter(table.columns);
  const indexParts: ((row: Row) => string)[] = [];
  let last = 0;
  const pattern = tableIndex(s.index, table);
  for (const m of pattern.matchAll(/\$\{([^{}]+)\}/g)) {
    const i = at(m[1]);
    if (i < 0) continue;
    const literal = pattern.slice(last, m.index);
    indexParts.push(
      () => literal,
      (row) => (row.fields[i] === null || row.fields[i] === undefined ? 'null' : textOf(row.fields[i])),
    );
    last = m.index + m[0].length;
  }
  const tail = pattern.slice(last);
  indexParts.push(() => tail);
  const indexOf = (row: Row) =>
    indexParts
      .map((p) => p(row))
      .join('')
      .toLowerCase();
  const keys = (s.primaryKeys ?? []).map((k) => at(k));
  const idOf =
    keys.length === 0
      ? undefined
      : (row: Row) =>
          keys.map((i) => (row.fields[i] === null || row.fields[i] === undefined ? '' : textOf(row.fields[i]))).join(s.keyDelimiter);
  return (row) => {
    const meta: Record<string, string> = { _index: indexOf(row) };
    if (idOf) meta._id = idOf(row);
    if (row.kind === '-D' || row.kind === '-U') {
      if (!idOf) return ''; // without keys there is no document to find: SeaTunnel's writer cannot delete either
      return `${JSON.stringify({ delete: meta })}\n`;
    }
    const body = doc(row.fields);
    if (idOf) return `${JSON.stringify({ update: meta })}\n{"doc":${body},"doc_as_upsert":true}\n`;
    return `${JSON.stringify({ index: meta })}\n${body}\n`;
  };
}

interface BulkAnswer {
  errors: boolean;
  items: Array<Record<string, { status: number; error?: { type?: string; reason?: string } }>>;
}

/**
 * Sends each batch to _bulk before returning, so every row before a completed checkpoint is in
 * the index: keyed rows are idempotent by _id (a replay after a restore writes the same
 * documents), unkeyed rows are at-least-once. Items that fail with 429 or 5xx are sent again;
 * any other item error fails the task naming the document.
 */
class EsSinkWriter implements SinkWriter {
  private readonly actions = new Map<string, Action>();

  constructor(
    private readonly client: EsClient,
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.actions.set(t.tableId, compileAction(s, t));
  }

  async write(rows: readonly Row[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.s.batchSize) {
      const lines: string[] = [];
      for (const row of rows.slice(i, i + this.s.batchSize)) {
        const action = this.actions.get(row.tableId);
        if (!action)
          throw new TidewayError(
            ErrorCode.CONNECTOR_IO,
            `Elasticsearch sink got a row of table '${row.tableId}', which is not one of its inputs`,
          );
        const a = action(row);
        if (a !== '') lines.push(a);
      }
      await this.bulk(lines);
    }
  }

  private async bulk(lines: string[]): Promise<void> {
    let pending = lines;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const answer = await this.client.json<BulkAnswer>('POST', '/_bulk?refresh=false', pending.join(''), 'application/x-ndjson');
      if (!answer.errors) return;
      const retry: string[] = [];
      answer.items.forEach((item, i) => {
        const r = Object.values(item)[0];
        if (r.status < 300 || (r.status === 404 && 'delete' in item)) return;
        if ((r.status === 429 || r.status >= 500) && attempt < this.s.retries) retry.push(pending[i]);
        else
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `Elasticsearch refused ${pending[i].split('\n')[0]}: ${r.status} ${r.error?.type ?? ''} ${r.error?.reason ?? ''}`.trim(),
            { retryable: r.status === 429 || r.status >= 500 },
          );
      });
      pending = retry;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** attempt)));
    }
  }

  close(): void {
    this.client.close();
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
    "SeaTunnel's Elasticsearch sink (tested against OpenSearch 2.19): writes rows with _bulk into an index named literally, by ${table_name} or by ${field}; with primary_keys rows are upserted and deleted by _id (idempotent across restores), without them indexed (at-least-once); creates the index from the schema by schema_save_mode.",
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
