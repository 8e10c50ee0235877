import { createHmac } from 'node:crypto';
import { logger } from '@tideway/common';

const log = logger('events');

/** The header that carries a webhook's HMAC-SHA256 signature of the body (`sha256=<hex>`). */
export const SIGNATURE_HEADER = 'x-tideway-signature';
/** The first wait after a failed POST; it doubles up to maxRetryIntervalMs. */
const FIRST_RETRY_MS = 250;

/** Where one receiver's events go, and how. */
export interface ReceiverSettings {
  /** For logs and metrics: `event-report-http`, or the webhook's name. */
  name: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  /** HMAC-SHA256 key of the signature header; '' sends none. */
  secret: string;
}

/** How events are batched, retried and held (tideway.events). */
export interface DeliverySettings {
  bufferSize: number;
  batchSize: number;
  flushIntervalMs: number;
  requestTimeoutMs: number;
  maxRetryIntervalMs: number;
}

/** What a receiver's delivery has done so far (Prometheus counters read them). */
export interface DeliveryStats {
  name: string;
  /** Events the receiver accepted (a 2xx answer). */
  delivered: number;
  /** POSTs that failed (no answer in time, refused connection, or a status other than 2xx). */
  failedPosts: number;
  /** Events dropped because the buffer was full. */
  dropped: number;
  /** Events waiting now. */
  buffered: number;
}

/**
 * Delivers JSON events to one HTTP receiver: batched (up to batchSize per POST, an event waiting
 * at most flushIntervalMs for others), in order, each batch retried with doubling waits while
 * the receiver is down. `enqueue` never waits and never throws: events wait in a bounded buffer,
 * and past bufferSize the oldest are dropped, counted and logged (once per outage, then with the
 * count when the receiver is back).
 */
export class EventDelivery<E> {
  private buffer: E[] = [];
  private timer?: NodeJS.Timeout;
  private sending?: Promise<void>;
  /** Failed POSTs in a row (0 while the receiver answers). */
  private failuresInRow = 0;
  private droppedInOutage = 0;
  private closed = false;
  readonly stats: DeliveryStats;

  constructor(
    private readonly receiver: ReceiverSettings,
    private readonly settings: DeliverySettings,
  ) {
    this.stats = { name: receiver.name, delivered: 0, failedPosts: 0, dropped: 0, buffered: 0 };
  }

  enqueue(event: E): void {
    if (this.closed) return;
    if (this.buffer.length >= this.settings.bufferSize) {
      this.buffer.shift();
      this.stats.dropped++;
      if (this.droppedInOutage++ === 0)
        log.warn(
          { receiver: this.receiver.name, bufferSize: this.settings.bufferSize },
          'event buffer full: the oldest events are dropped until the receiver takes them again',
        );
    }
    this.buffer.push(event);
    this.stats.buffered = this.buffer.length;
    // A full batch goes at once (unless a POST is under way or the receiver is down).
    if (this.buffer.length >= this.settings.batchSize && this.failuresInRow === 0 && !this.sending) this.schedule(0);
    else this.schedule(this.settings.flushIntervalMs);
  }

  /**
   * Stops: what waits is sent now (a POST each batch, within its timeout) while the receiver
   * answers; what it does not take is dropped and counted.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    while (this.buffer.length > 0 && this.failuresInRow === 0) await this.sendBatch();
    if (this.buffer.length > 0) {
      log.warn({ receiver: this.receiver.name, events: this.buffer.length }, 'events not delivered before the coordinator stopped');
      this.stats.dropped += this.buffer.length;
      this.buffer = [];
      this.stats.buffered = 0;
    }
  }

  /** Whether nothing waits and nothing is being sent. */
  get idle(): boolean {
    return this.buffer.length === 0 && !this.sending;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.sending) return;
    if (this.timer) {
      if (delayMs > 0) return; // already due
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sending = this.sendBatch().finally(() => {
        this.sending = undefined;
        this.afterSend();
      });
    }, delayMs);
    this.timer.unref();
  }

  private afterSend(): void {
    if (this.closed || this.buffer.length === 0) return;
    if (this.failuresInRow > 0) this.schedule(Math.min(this.settings.maxRetryIntervalMs, FIRST_RETRY_MS * 2 ** (this.failuresInRow - 1)));
    else this.schedule(this.buffer.length >= this.settings.batchSize ? 0 : this.settings.flushIntervalMs);
  }

  private async sendBatch(): Promise<void> {
    const batch = this.buffer.slice(0, this.settings.batchSize);
    if (batch.length === 0) return;
    const body = JSON.stringify(batch);
    try {
      await this.post(body);
    } catch (err) {
      this.stats.failedPosts++;
      if (this.failuresInRow++ === 0)
        log.warn(
          { receiver: this.receiver.name, url: this.receiver.url, err: reason(err) },
          'could not deliver job events; retrying with backoff',
        );
      return;
    }
    // Events dropped meanwhile left from the front; the rest of the batch is still first.
    const sent = new Set(batch);
    let n = 0;
    while (this.buffer.length > 0 && sent.has(this.buffer[0])) {
      this.buffer.shift();
      n++;
    }
    this.stats.delivered += n;
    this.stats.buffered = this.buffer.length;
    if (this.failuresInRow > 0 || this.droppedInOutage > 0)
      log.info(
        { receiver: this.receiver.name, failedPosts: this.failuresInRow, dropped: this.droppedInOutage },
        'job events are delivered again',
      );
    this.failuresInRow = 0;
    this.droppedInOutage = 0;
  }

  private async post(body: string): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(this.receiver.headers)) headers[k.toLowerCase()] = v;
    if (this.receiver.secret) headers[SIGNATURE_HEADER] = `sha256=${signature(this.receiver.secret, body)}`;
    const res = await fetch(this.receiver.url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(this.settings.requestTimeoutMs),
    });
    // Read the answer to the end, so the connection can be reused.
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${this.receiver.url}`);
  }
}

/** Hex HMAC-SHA256 of `body` with `secret`: what a receiver recomputes to check the header. */
export function signature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Why a POST failed, in the words of its cause (fetch says only `fetch failed`). */
function reason(err: unknown): string {
  const e = err as Error & { cause?: { message?: string } };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
}
