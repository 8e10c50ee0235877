/**
 * HttpSink: a Tideway sink plugin written against @tideway/api alone (docs/plugins.md walks
 * through it). Exactly once: a writer keeps the rows of a checkpoint and hands them to the
 * committer as one batch with a stable id (job, subtask, checkpoint); the committer POSTs each
 * batch with that id in an Idempotency-Key header, and the endpoint keeps a batch only the first
 * time it sees its id. A restore re-commits the batches of its checkpoint with the same ids, so
 * the endpoint never holds a row twice; a batch is only sent once its checkpoint is complete, so
 * it never holds a row a restore rolls back.
 */
import type { CatalogTable, PluginSpec, Row, Sink, SinkCommitter, SinkFactory, SinkWriter } from '@tideway/api';

/** What a writer hands the committer at a checkpoint: the batch's id and its JSON body. */
export interface HttpBatch {
  readonly id: string;
  readonly body: string;
}

const SPEC: PluginSpec = {
  options: [
    { name: 'url', type: 'string', required: true, description: 'The endpoint each batch is POSTed to (http:// or https://).' },
    {
      name: 'request_timeout_ms',
      type: 'int',
      default: 10_000,
      min: 1,
      description: 'Milliseconds a POST may take; a slower one is retried at the next commit.',
    },
  ],
  validate: (o) =>
    /^https?:\/\//.test(o.get<string>('url')) ? undefined : `url '${o.get<string>('url')}' must start with http:// or https://`,
};

/** A value as JSON: 64-bit integers as text (exact), bytes as base64, maps as objects. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return btoa(Array.from(v, (b) => String.fromCharCode(b)).join(''));
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonValue(x)]));
  if (Array.isArray(v)) return v.map(jsonValue);
  return v;
}

class HttpSinkWriter implements SinkWriter<HttpBatch> {
  private rows: Array<Record<string, unknown>> = [];

  constructor(
    private readonly jobId: string,
    private readonly subtask: number,
    private readonly tables: ReadonlyMap<string, CatalogTable>,
  ) {}

  write(rows: readonly Row[]): void {
    for (const row of rows) {
      const table = this.tables.get(row.tableId);
      if (!table) throw new Error(`HttpSink: a row of table ${row.tableId}, which is not an input of this sink`);
      const record: Record<string, unknown> = { _table: row.tableId, _kind: row.kind };
      table.columns.forEach((c, i) => (record[c.name] = jsonValue(row.fields[i])));
      this.rows.push(record);
    }
  }

  prepareCommit(checkpointId: number): HttpBatch | undefined {
    if (this.rows.length === 0) return undefined;
    const batch = { id: `${this.jobId}-${this.subtask}-${checkpointId}`, body: JSON.stringify({ rows: this.rows }) };
    this.rows = [];
    return batch;
  }

  abortPrepare(): void {
    this.rows = [];
  }

  close(): void {}
}

class HttpCommitter implements SinkCommitter<HttpBatch> {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  /** POSTs every batch; returns those to retry. A 4xx answer is not retried: it fails the task. */
  async commit(batches: HttpBatch[]): Promise<HttpBatch[]> {
    const retry: HttpBatch[] = [];
    for (const b of batches) {
      let status: number;
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': b.id },
          body: b.body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        status = res.status;
        await res.arrayBuffer();
      } catch {
        retry.push(b); // unreachable or too slow: the same batch, with the same id, next time
        continue;
      }
      if (status >= 500) retry.push(b);
      else if (status >= 400) throw new Error(`HttpSink: ${this.url} refused batch ${b.id} with HTTP ${status}`);
    }
    return retry;
  }

  /** Nothing was sent for a batch that is aborted: there is nothing to undo. */
  abort(): void {}
}

export const httpSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'HttpSink',
  description: "POSTs each checkpoint's rows as one JSON batch to an HTTP endpoint, exactly once (an Idempotency-Key per batch).",
  spec: SPEC,
  create: (ctx): Sink<HttpBatch> => {
    const url = ctx.options.get<string>('url');
    const timeoutMs = ctx.options.get<number>('request_timeout_ms');
    const tables = new Map(ctx.inputTables.map((t) => [t.tableId, t]));
    return {
      createWriter: (w) => new HttpSinkWriter(ctx.jobId, w.subtaskIndex, tables),
      createCommitter: () => new HttpCommitter(url, timeoutMs),
    };
  },
};
