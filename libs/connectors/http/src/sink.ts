import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { compileJsonLineWriter } from '@tideway/connector-file-common/formats';
import { closeAgents, newAgents, requestSettings, send, statusError, withQuery, type RequestSettings } from './client.js';
import { HTTP_SINK_SPEC } from './options.js';

/**
 * POSTs each row as a JSON object (SeaTunnel's Http sink), in order, and returns when every row
 * of the batch was answered 2xx: at-least-once (a restore sends the rows after the last
 * checkpoint again). An answer that stays non-2xx after the retries fails the task; SeaTunnel's
 * sink logs it and drops the row.
 */
class HttpSinkWriter implements SinkWriter {
  private readonly agents = newAgents();
  private readonly writers = new Map<string, (fields: readonly unknown[]) => string>();
  private readonly url: URL;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly s: RequestSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.writers.set(t.tableId, compileJsonLineWriter(t.columns));
    this.url = withQuery(s.url, s.params);
    const hasType = Object.keys(s.headers).some((h) => h.toLowerCase() === 'content-type');
    this.headers = hasType ? { ...s.headers } : { ...s.headers, 'content-type': 'application/json' };
  }

  async write(rows: readonly Row[]): Promise<void> {
    for (const row of rows) {
      const write = this.writers.get(row.tableId);
      if (!write)
        throw new TidewayError(ErrorCode.CONNECTOR_IO, `Http sink got a row of table '${row.tableId}', which is not one of its inputs`);
      const answer = await send(this.s, this.agents, this.url, 'POST', this.headers, Buffer.from(write(row.fields), 'utf8'));
      if (answer.status < 200 || answer.status > 299) throw statusError('POST', this.url, answer);
    }
  }

  close(): void {
    closeAgents(this.agents);
  }
}

export const httpSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Http',
  description:
    "SeaTunnel's Http sink: POSTs each row as a JSON object to a URL, with headers and query parameters, retrying I/O errors, 429 and 5xx with backoff; a row whose request keeps failing fails the task (at-least-once).",
  spec: HTTP_SINK_SPEC,
  create: (ctx: PluginContext): Sink => {
    const settings = requestSettings(ctx.options);
    return { createWriter: () => new HttpSinkWriter(settings, ctx.inputTables) };
  },
};
