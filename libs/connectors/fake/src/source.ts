import type { Boundedness, CatalogTable, PluginContext, Source, SourceReaderContext, SplitEnumeratorContext } from '@tideway/api';
import type { FakeTableConfig } from './fake-config.js';
import { buildFakeConfigs } from './fake-config.js';
import type { FakeEnumeratorState } from './enumerator.js';
import { FakeSplitEnumerator } from './enumerator.js';
import { FakeSourceReader } from './reader.js';
import { RowProducer } from './row-producer.js';
import type { FakeSplit } from './splits.js';

/** FakeSource: bounded in BATCH jobs, unbounded (keeps running after its rows) in STREAMING. */
export class FakeSource implements Source<FakeSplit, FakeEnumeratorState> {
  readonly tables: readonly FakeTableConfig[];
  /** Built here so bad explicit rows or default values fail when the job is checked, not when it runs. */
  private readonly producers: readonly RowProducer[];

  constructor(private readonly ctx: PluginContext) {
    this.tables = buildFakeConfigs(ctx.options);
    this.producers = this.tables.map((t) => new RowProducer(t));
  }

  boundedness(): Boundedness {
    return this.ctx.jobMode === 'BATCH' ? 'BOUNDED' : 'UNBOUNDED';
  }

  catalogTables(): CatalogTable[] {
    return this.tables.map((t) => t.table);
  }

  createEnumerator(ctx: SplitEnumeratorContext<FakeSplit>, restored?: FakeEnumeratorState): FakeSplitEnumerator {
    return new FakeSplitEnumerator(ctx, this.tables, restored);
  }

  createReader(ctx: SourceReaderContext): FakeSourceReader {
    return new FakeSourceReader(ctx, this.tables, this.producers);
  }
}
