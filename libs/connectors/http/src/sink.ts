import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { compileJsonLineWriter } from '@tideway/connector-file-common/formats';
import { closeAgents, newAgents, requestSettings, send, statusError, withQuery, type RequestSettings } from './client.js';
import { HTTP_SINK_SPEC } from './options.js';

/**
 * The answers that refuse a request for its body, so for its row: 400 Bad Request, 409 Conflict,
 * 413 Content Too Large, 422 Unprocessable Content. The other 4xx say the endpoint's state or the
 * job's settings (401, 403 no access, 404, 405, 410 no such endpoint, 408 a timeout, 415 the
 * content type, 429 too many requests) and, like 5xx, timeouts and connection errors, fail the task.
 */
const ROW_STATUSES = new Set([400, 409, 413, 422]);

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
  /** env.sink_error_handler: where the rows the endpoint refuses for themselves go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;

  constructor(
    private readonly s: RequestSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.writers.set(t.tableId, compileJsonLineWriter(t.columns));
    this.url = withQuery(s.url, s.params);
    const hasType = Object.keys(s.headers).some((h) => h.toLowerCase() === 'content-type');
    this.headers = hasType ? { ...s.headers } : { ...s.headers, 'content-type': 'application/json' };
  }

  /**
   * Row-level errors: each row is its own request, so a row answered 400, 409, 413 or 422 (see
   * ROW_STATUSES) is handed to `reject` and the next rows are sent. Every other non-2xx answer
   * (after the retries of 429 and 5xx), timeouts and connection errors still fail the task.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  async write(rows: readonly Row[]): Promise<void> {
    for (const row of rows) {
      const write = this.writers.get(row.tableId);
      if (!write)
        throw new TidewayError(ErrorCode.CONNECTOR_IO, `Http sink got a row of table '${row.tableId}', which is not one of its inputs`);
      const answer = await send(this.s, this.agents, this.url, 'POST', this.headers, Buffer.from(write(row.fields), 'utf8'));
      if (answer.status >= 200 && answer.status <= 299) continue;
      const error = statusError('POST', this.url, answer);
      if (this.reject && ROW_STATUSES.has(answer.status)) this.reject(row, error);
      else throw error;
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
    "SeaTunnel's Http sink: POSTs each row as a JSON object to a URL, with headers and query parameters, retrying I/O errors, 429 and 5xx with backoff; a row whose request keeps failing fails the task (at-least-once), or with env.sink_error_handler one answered 400, 409, 413 or 422 is handed to it.",
  spec: HTTP_SINK_SPEC,
  create: (ctx: PluginContext): Sink => {
    const settings = requestSettings(ctx.options);
    return { createWriter: () => new HttpSinkWriter(settings, ctx.inputTables) };
  },
};
