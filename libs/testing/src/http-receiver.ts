import { createServer, type IncomingHttpHeaders } from 'node:http';

/** One POST (or other request) a receiver got. */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server that keeps every request it gets (a webhook's receiver in tests). */
export interface HttpReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Every request's body parsed as a JSON array, concatenated in arrival order. */
  items<T>(): T[];
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1 (`port` 0: a free one), answering `status()` (default 204) to
 * every request once its body is read.
 */
export async function startHttpReceiver(opts: { port?: number; path?: string; status?: () => number } = {}): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(opts.status?.() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${opts.path ?? '/'}`,
    port,
    requests,
    items: <T>() => requests.flatMap((r) => JSON.parse(r.body) as T[]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
