import type { PluginOptions } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { closeAgents, newAgents, send, type Agents, type HttpAnswer, type RequestSettings } from '@tideway/connector-http';

/** A connection to an Elasticsearch or OpenSearch cluster over its REST API (the first host that answers). */
export class EsClient {
  private readonly agents: Agents;
  private readonly headers: Record<string, string>;
  private readonly settings: RequestSettings;
  private host = 0;

  constructor(
    private readonly hosts: readonly string[],
    auth: { user?: string; password?: string },
    tls: { verifyCertificate: boolean; verifyHostname: boolean },
    private readonly retries = 3,
  ) {
    this.agents = newAgents(tls);
    this.headers = { 'content-type': 'application/json' };
    if (auth.user !== undefined)
      this.headers.authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password ?? ''}`).toString('base64')}`;
    this.settings = {
      url: hosts[0],
      headers: {},
      params: {},
      retry: retries,
      backoffMultiplierMs: 200,
      backoffMaxMs: 10_000,
      connectTimeoutMs: 10_000,
      socketTimeoutMs: 120_000,
    };
  }

  /** One REST call; 429 and 5xx answers are retried with backoff, another host is tried on I/O errors. */
  async call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpAnswer> {
    const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
    let lastErr: unknown;
    for (let i = 0; i < this.hosts.length; i++) {
      const host = this.hosts[(this.host + i) % this.hosts.length];
      try {
        const answer = await send(
          this.settings,
          this.agents,
          new URL(path, host),
          method,
          { ...this.headers, 'content-type': contentType },
          data,
        );
        this.host = (this.host + i) % this.hosts.length;
        return answer;
      } catch (err) {
        lastErr = err;
      }
    }
    throw lastErr;
  }

  /** A call that must answer 2xx: its JSON answer, or an error naming the cluster, the path and the answer. */
  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const answer = await this.call(method, path, body, contentType);
    if (answer.status < 200 || answer.status > 299)
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `Elasticsearch ${method} ${path} at ${this.where} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
        { retryable: answer.status === 429 || answer.status >= 500 },
      );
    return JSON.parse(answer.body) as T;
  }

  /** The cluster's addresses, for messages. */
  get where(): string {
    return this.hosts.join(', ');
  }

  close(): void {
    closeAgents(this.agents);
  }
}

export function clientOf(o: PluginOptions, retries?: number): EsClient {
  return new EsClient(
    o.get<string[]>('hosts').map((h) => (/^https?:\/\//.test(h) ? h : `http://${h}`)),
    { user: o.get<string | undefined>('username'), password: o.get<string | undefined>('password') },
    { verifyCertificate: o.get<boolean>('tls_verify_certificate'), verifyHostname: o.get<boolean>('tls_verify_hostname') },
    retries,
  );
}
