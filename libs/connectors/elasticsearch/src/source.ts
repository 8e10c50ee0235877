import {
  parseDataType,
  parseSchemaConfig,
  type CatalogTable,
  type Collector,
  type DataType,
  type PluginContext,
  type PluginOptions,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SplitEnumerator,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, logger, TidewayError, ValueConversionError } from '@tideway/common';
import { compileJsonLineParser } from '@tideway/connector-file-common/formats';
import { clientOf, type EsClient } from './client.js';
import { ES_SOURCE_SPEC } from './options.js';
import { fromEsType } from './types.js';

const log = logger('elasticsearch-source');

/**
 * One index to read (an index pattern gives one split per matching index). In PIT mode a
 * checkpoint also holds where the reader stands: its point in time and the sort value (_id) of
 * the last document emitted, so a restore continues after that document.
 */
export interface EsSplit {
  splitId: string;
  index: string;
  pitId?: string;
  searchAfter?: unknown[];
}

interface SourceSettings {
  readonly options: PluginOptions;
  readonly index: string;
  /** The table: given by `schema`, or read from the index mapping (once per process). */
  readonly table: () => Promise<CatalogTable>;
  readonly query: unknown;
  readonly scrollTime: string;
  readonly scrollSize: number;
  /** SCROLL, or PIT: a point in time paged with search_after. */
  readonly api: 'SCROLL' | 'PIT';
  readonly pitKeepAliveMs: number;
  readonly pitBatchSize: number;
}

interface SearchAnswer {
  _scroll_id?: string;
  pit_id?: string;
  hits: { hits: Array<{ _source?: Record<string, unknown>; sort?: unknown[] }> };
}

/** A point in time's search context is gone (expired, or closed when its job was cancelled). */
function pitGone(status: number, body: string): boolean {
  return status === 404 || /search_context_missing|No search context found|pit.*(not found|expired)/i.test(body);
}

function isTemporal(t: DataType): boolean {
  return t.kind === 'timestamp' || t.kind === 'date' || t.kind === 'timestamp_tz';
}

/**
 * A date field in the ISO form the row parser reads: epoch milliseconds (a number, or digits)
 * and times with a zone become UTC wall-clock times, a date alone its midnight (an Elasticsearch
 * `date` holds any of them).
 */
function isoOf(v: unknown, type: DataType): unknown {
  let iso: string | undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{10,}$/.test(v))) iso = new Date(Number(v)).toISOString().replace('Z', '');
  else if (typeof v === 'string' && /(Z|[+-]\d{2}:?\d{2})$/.test(v) && v.includes('T') && !Number.isNaN(Date.parse(v)))
    iso = new Date(v).toISOString().replace('Z', '');
  else if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) iso = `${v}T00:00:00`;
  if (iso === undefined) return v;
  return type.kind === 'date' ? iso.slice(0, 10) : iso;
}

class EsEnumerator implements SplitEnumerator<EsSplit, { assigned: string[] }> {
  private readonly assigned: Set<string>;
  private splits: EsSplit[] = [];
  private next = 0;

  constructor(
    private readonly ctx: SplitEnumeratorContext<EsSplit>,
    private readonly s: SourceSettings,
    restored?: { assigned: string[] },
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
  }

  async open(): Promise<void> {
    const client = clientOf(this.s.options);
    try {
      const indices = await client.json<Array<{ index: string }>>(
        'GET',
        `/_cat/indices/${encodeURIComponent(this.s.index)}?format=json&h=index`,
      );
      this.splits = indices
        .map((i) => i.index)
        .sort()
        .filter((i) => !this.assigned.has(i))
        .map((index) => ({ splitId: index, index }));
    } finally {
      client.close();
    }
  }

  run(): void {}

  registerReader(subtask: number): void {
    const mine = this.splits.filter((_, i) => (this.next + i) % this.ctx.parallelism === subtask);
    this.splits = this.splits.filter((s) => !mine.includes(s));
    for (const s of mine) this.assigned.add(s.splitId);
    if (mine.length > 0) this.ctx.assignSplits(subtask, mine);
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  addSplitsBack(splits: EsSplit[]): void {
    for (const s of splits) this.assigned.delete(s.splitId);
    this.splits.push(...splits);
  }

  snapshotState(): { assigned: string[] } {
    return { assigned: [...this.assigned] };
  }

  close(): void {}
}

/**
 * Reads each split's index by scroll or by point in time with search_after (sorted by _id). A
 * restore reads a scrolled split again from its start (a scroll cannot be resumed); a PIT split
 * continues after the checkpointed _id, in the checkpoint's point in time while it lives
 * (pit_keep_alive), else in a new one (then documents changed since are read as they are now).
 */
class EsReader implements SourceReader<EsSplit> {
  private readonly splits: EsSplit[] = [];
  private noMore = false;
  private scrollId?: string;
  /** PIT mode: whether the first split's checkpointed point in time was tried. */
  private resumed = false;
  /** Points in time a checkpoint holds: a restore may continue with them, so they stay open. */
  private readonly snapshotted = new Set<string>();
  /** Points in time of finished splits that a checkpoint holds, closed once a later checkpoint completes. */
  private retired: Array<{ id: string; after?: number }> = [];
  private client?: EsClient;
  private distribution?: string;
  private table?: { readonly t: CatalogTable; readonly parse: (line: string) => unknown[] };

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly s: SourceSettings,
  ) {}

  open(): void {}

  addSplits(splits: EsSplit[]): void {
    // A restored split's point in time is held by the checkpoint it came from.
    for (const s of splits) if (s.pitId !== undefined) this.snapshotted.add(s.pitId);
    this.splits.push(...splits);
  }

  handleNoMoreSplits(): void {
    this.noMore = true;
  }

  async pollNext(output: Collector): Promise<void> {
    const split = this.splits[0];
    if (!split) {
      if (this.noMore) this.ctx.signalNoMoreElement();
      return;
    }
    this.client ??= clientOf(this.s.options);
    if (!this.table) {
      const t = await this.s.table();
      this.table = { t, parse: compileJsonLineParser(t.columns) };
    }
    const { t: table, parse } = this.table;
    const columns = table.columns;
    const answer = this.s.api === 'PIT' ? await this.pitPage(split, columns) : await this.scrollPage(split, columns);
    const hits = answer.hits.hits;
    const rows: Row[] = [];
    for (const hit of hits) {
      const src = hit._source ?? {};
      const doc: Record<string, unknown> = {};
      for (const c of columns) {
        const v = src[c.name];
        doc[c.name] = isTemporal(c.type)
          ? isoOf(v, c.type)
          : c.type.kind === 'string' && v !== null && typeof v === 'object'
            ? JSON.stringify(v)
            : v;
      }
      try {
        rows.push({ kind: '+I', tableId: table.tableId, fields: parse(JSON.stringify(doc)) });
      } catch (err) {
        throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Elasticsearch index '${split.index}': ${(err as Error).message}`);
      }
    }
    if (rows.length > 0) output.collectBatch(rows);
    if (this.s.api === 'PIT') {
      if (hits.length > 0) split.searchAfter = hits[hits.length - 1].sort;
      if (hits.length < this.s.pitBatchSize) {
        await this.closePit(split);
        this.splits.shift();
      }
    } else if (hits.length < this.s.scrollSize) {
      if (this.scrollId) await this.client.call('DELETE', '/_search/scroll', { scroll_id: this.scrollId });
      this.scrollId = undefined;
      this.splits.shift();
    }
  }

  private async scrollPage(split: EsSplit, columns: readonly { name: string }[]): Promise<SearchAnswer> {
    const client = this.client!;
    const answer = this.scrollId
      ? await client.json<SearchAnswer>('POST', '/_search/scroll', { scroll: this.s.scrollTime, scroll_id: this.scrollId })
      : await client.json<SearchAnswer>(
          'POST',
          `/${encodeURIComponent(split.index)}/_search?scroll=${encodeURIComponent(this.s.scrollTime)}`,
          {
            size: this.s.scrollSize,
            query: this.s.query,
            sort: ['_doc'],
            _source: columns.map((c) => c.name),
          },
        );
    this.scrollId = answer._scroll_id;
    return answer;
  }

  /** The next page of a split by point in time, opened (again) when the split has none alive. */
  private async pitPage(split: EsSplit, columns: readonly { name: string }[]): Promise<SearchAnswer> {
    const client = this.client!;
    const keepAlive = `${this.s.pitKeepAliveMs}ms`;
    const restored = !this.resumed && split.pitId !== undefined;
    this.resumed = true;
    if (split.pitId === undefined) {
      await this.checkOpenSearch();
      const opened = await client.json<{ pit_id: string }>(
        'POST',
        `/${encodeURIComponent(split.index)}/_search/point_in_time?keep_alive=${keepAlive}`,
      );
      split.pitId = opened.pit_id;
    }
    const body = {
      size: this.s.pitBatchSize,
      query: this.s.query,
      _source: columns.map((c) => c.name),
      pit: { id: split.pitId, keep_alive: keepAlive },
      // OpenSearch (a fork of Elasticsearch 7.10) has no _shard_doc; _id is unique and the same in
      // every point in time, so a restore can continue after it even with a new one.
      sort: [{ _id: 'asc' }],
      ...(split.searchAfter ? { search_after: split.searchAfter } : {}),
    };
    const answer = await client.call('POST', '/_search', body);
    if (answer.status >= 200 && answer.status < 300) {
      const a = JSON.parse(answer.body) as SearchAnswer;
      if (a.pit_id) split.pitId = a.pit_id;
      return a;
    }
    if (restored && pitGone(answer.status, answer.body)) {
      // The checkpoint's point in time is gone: a new one, read after the same _id.
      log.info({ index: split.index }, 'the checkpointed point in time has expired or was closed; continuing in a new one');
      split.pitId = undefined;
      return this.pitPage(split, columns);
    }
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `Elasticsearch POST /_search (point in time of index '${split.index}') at ${client.where} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
      { retryable: answer.status === 429 || answer.status >= 500 },
    );
  }

  /** search_api_type = PIT uses OpenSearch's point-in-time API; Elasticsearch's (_pit) is another path, not tried here. */
  private async checkOpenSearch(): Promise<void> {
    if (this.distribution !== undefined) return;
    const info = await this.client!.json<{ version?: { distribution?: string; number?: string } }>('GET', '/');
    this.distribution = info.version?.distribution ?? 'elasticsearch';
    if (this.distribution !== 'opensearch') {
      const version = info.version?.number === undefined ? '' : ` ${info.version.number}`;
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `option 'search_api_type' = PIT is supported for OpenSearch clusters only: the cluster at ${this.client!.where} is Elasticsearch${version}, whose point-in-time API (_pit) is not supported here; use search_api_type = SCROLL`,
        { place: this.s.options.place('search_api_type') },
      );
    }
  }

  /** A finished split's point in time: closed now, or once no checkpoint a restore could use holds it. */
  private async closePit(split: EsSplit): Promise<void> {
    const id = split.pitId;
    split.pitId = undefined;
    if (id === undefined) return;
    if (this.snapshotted.has(id)) this.retired.push({ id });
    else await this.deletePits([id]);
  }

  private async deletePits(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.client?.call('DELETE', '/_search/point_in_time', { pit_id: ids });
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const done = this.retired.filter((r) => r.after !== undefined && r.after <= checkpointId).map((r) => r.id);
    if (done.length === 0) return;
    this.retired = this.retired.filter((r) => !done.includes(r.id));
    for (const id of done) this.snapshotted.delete(id);
    await this.deletePits(done);
  }

  snapshotState(checkpointId: number): EsSplit[] {
    for (const r of this.retired) r.after ??= checkpointId;
    for (const s of this.splits) if (s.pitId !== undefined) this.snapshotted.add(s.pitId);
    return this.splits.map((s) => ({ ...s, ...(s.searchAfter ? { searchAfter: [...s.searchAfter] } : {}) }));
  }

  /**
   * Closes the point in time of an unfinished split unless a checkpoint holds it: after a
   * failure or a cancel, a restore from that checkpoint continues with it while it lives, and it
   * expires pit_keep_alive after its last page otherwise.
   */
  async close(): Promise<void> {
    try {
      const id = this.splits[0]?.pitId;
      if (id !== undefined && !this.snapshotted.has(id)) await this.deletePits([id]);
    } catch (err) {
      log.warn(
        { err: (err as Error).message },
        'could not close the point in time of an Elasticsearch index; it expires by pit_keep_alive',
      );
    } finally {
      this.client?.close();
    }
  }
}

interface MappingAnswer {
  [index: string]: { mappings: { properties?: Record<string, { type?: string; properties?: unknown }> } };
}

/** The table of a source without `schema`: the `source` fields (or every field) of the index mapping. */
async function tableFromMapping(o: PluginOptions, index: string): Promise<CatalogTable> {
  const client = clientOf(o);
  let mapping: MappingAnswer;
  try {
    mapping = await client.json<MappingAnswer>('GET', `/${encodeURIComponent(index)}/_mapping`);
  } finally {
    client.close();
  }
  const props: Record<string, { type?: string }> = {};
  for (const m of Object.values(mapping)) Object.assign(props, m.mappings.properties ?? {});
  const wanted = o.get<string[] | undefined>('source') ?? [];
  const names = wanted.length > 0 ? wanted : Object.keys(props);
  const arrays = (o.raw.array_column ?? {}) as Record<string, string>;
  const columns = names.map((name) => {
    const p = props[name];
    if (!p)
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `option 'source' names field '${name}', which the mapping of index '${index}' does not have`,
        {
          place: o.place('source'),
        },
      );
    const type = arrays[name] !== undefined ? parseDataType(String(arrays[name])) : fromEsType(p.type ?? 'object');
    return { name, type, nullable: true };
  });
  return {
    tableId: `default.default.${index}`,
    catalogName: 'Elasticsearch',
    path: { database: 'default', schema: 'default', table: index },
    columns,
  };
}

export const elasticsearchSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Elasticsearch',
  description:
    "SeaTunnel's Elasticsearch source (tested against OpenSearch 2.19): scrolls through an index (or each index of a pattern, one split each), or pages a point in time with search_after (search_api_type = PIT; a restore continues after the checkpointed _id), with a query, reading the `source` fields by `schema` or by the index mapping.",
  spec: ES_SOURCE_SPEC,
  create: (ctx: PluginContext): Source<EsSplit, { assigned: string[] }> => {
    const o = ctx.options;
    const index = o.get<string>('index');
    let table: CatalogTable | undefined;
    if (o.has('schema')) {
      table = parseSchemaConfig(o.raw.schema, { catalogName: 'Elasticsearch', place: o.place('schema') }).table;
      const wanted = o.get<string[] | undefined>('source') ?? [];
      if (wanted.length > 0) {
        const missing = table.columns.filter((c) => !wanted.includes(c.name)).map((c) => c.name);
        if (missing.length > 0)
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `option 'source' lacks the schema's field(s) ${missing.join(', ')}`, {
            place: o.place('source'),
          });
      }
    }
    let reading: Promise<CatalogTable> | undefined;
    const tableOf = (): Promise<CatalogTable> => (table ? Promise.resolve(table) : (reading ??= tableFromMapping(o, index)));
    const settings = (): SourceSettings => ({
      options: o,
      index,
      table: tableOf,
      query: o.raw.query ?? { match_all: {} },
      scrollTime: o.get<string>('scroll_time'),
      scrollSize: o.get<number>('scroll_size'),
      api: o.get<'SCROLL' | 'PIT'>('search_api_type'),
      pitKeepAliveMs: o.get<number>('pit_keep_alive'),
      pitBatchSize: o.get<number>('pit_batch_size'),
    });
    return {
      boundedness: () => 'BOUNDED',
      async prepare() {
        table ??= await tableOf();
      },
      catalogTables: () => {
        if (!table)
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'the Elasticsearch source has not read its index mapping yet', {
            place: o.place(),
          });
        return [table];
      },
      createEnumerator: (ectx, restored) => new EsEnumerator(ectx, settings(), restored),
      createReader: (rctx) => new EsReader(rctx, settings()),
    };
  },
};
