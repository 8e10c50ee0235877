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
import { ConfigError, ErrorCode, ValueConversionError } from '@tideway/common';
import { compileJsonLineParser } from '@tideway/connector-file-common/formats';
import { clientOf, type EsClient } from './client.js';
import { ES_SOURCE_SPEC } from './options.js';
import { fromEsType } from './types.js';

/** One index to scroll through (an index pattern gives one split per matching index). */
export interface EsSplit {
  splitId: string;
  index: string;
}

interface SourceSettings {
  readonly options: PluginOptions;
  readonly index: string;
  /** The table: given by `schema`, or read from the index mapping (once per process). */
  readonly table: () => Promise<CatalogTable>;
  readonly query: unknown;
  readonly scrollTime: string;
  readonly scrollSize: number;
}

interface SearchAnswer {
  _scroll_id?: string;
  hits: { hits: Array<{ _source?: Record<string, unknown> }> };
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

/** Scrolls through each split's index; a restore reads a split again from its start. */
class EsReader implements SourceReader<EsSplit> {
  private readonly splits: EsSplit[] = [];
  private noMore = false;
  private scrollId?: string;
  private client?: EsClient;
  private table?: { readonly t: CatalogTable; readonly parse: (line: string) => unknown[] };

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly s: SourceSettings,
  ) {}

  open(): void {}

  addSplits(splits: EsSplit[]): void {
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
    const answer = this.scrollId
      ? await this.client.json<SearchAnswer>('POST', '/_search/scroll', { scroll: this.s.scrollTime, scroll_id: this.scrollId })
      : await this.client.json<SearchAnswer>(
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
    if (hits.length < this.s.scrollSize) {
      if (this.scrollId) await this.client.call('DELETE', '/_search/scroll', { scroll_id: this.scrollId });
      this.scrollId = undefined;
      this.splits.shift();
    }
  }

  snapshotState(): EsSplit[] {
    return this.splits.map((s) => ({ ...s }));
  }

  close(): void {
    this.client?.close();
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
    "SeaTunnel's Elasticsearch source (tested against OpenSearch 2.19): scrolls through an index (or each index of a pattern, one split each) with a query, reading the `source` fields by `schema` or by the index mapping.",
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
