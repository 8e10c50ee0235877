import type * as grpc from '@grpc/grpc-js';
import { DataExchangeClient, checkpointKindToWire, type CheckpointKind, type ExchangeMessage, type OpenChannel } from '@tideway/contracts';
import { backoffDelay, sleep } from '@tideway/common';
import { ClientPool, clientOptions, channelCredentials } from '@tideway/rpc';
import type { Row, SchemaChangeEvent } from '@tideway/api';
import type { BusyTimeMeter } from '../busy-time.js';
import { encodeRows, encodeSchemaChange } from './row-codec.js';

/** Opening a channel is retried this long: the receiving task group may still be deploying. */
const OPEN_DEADLINE_MS = 30_000;

const clients = new ClientPool((address) => new DataExchangeClient(address, channelCredentials(), clientOptions));
const clientFor = (address: string): DataExchangeClient => clients.get(address);

/**
 * One outgoing edge of a shuffle: a DataExchange bidi stream from this task group to one
 * downstream task group. Batches go only while the receiver has granted credits (it grants
 * one per batch it has processed), so a slow consumer slows the producer and memory stays
 * bounded. Barriers and the end-of-data marker travel in order after the batches.
 */
export class ChannelSender {
  private stream?: grpc.ClientDuplexStream<ExchangeMessage, ExchangeMessage>;
  private credits = 0;
  /** The credits the receiver first granted: what the channel holds. */
  private window = 0;
  private waiter?: () => void;
  private failure?: Error;
  private readonly opened: Promise<void>;
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly open: OpenChannel,
    /** Counts the waits for a credit as back pressure. */
    private readonly meter?: BusyTimeMeter,
  ) {
    this.opened = this.connect();
    this.opened.catch(() => undefined);
  }

  private describe(): string {
    return `channel ${this.open.fromTaskGroup}->${this.open.toTaskGroup} of shuffle ${this.open.edgeId} (job ${this.open.jobId}, pipeline ${this.open.pipelineId})`;
  }

  private async connect(): Promise<void> {
    const until = Date.now() + OPEN_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new Error(`${this.describe()} closed`);
      try {
        await this.tryOpen();
        return;
      } catch (err) {
        if (Date.now() > until)
          throw new Error(`${this.describe()} could not open at ${this.address}: ${(err as Error).message}`, { cause: err });
        await sleep(backoffDelay(attempt, 20, 500));
      }
    }
  }

  /** Opens the stream; resolves when the receiver grants its first credits (it accepted). */
  private tryOpen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const stream = clientFor(this.address).exchange();
      let accepted = false;
      stream.on('data', (m: ExchangeMessage) => {
        if (m.body?.$case !== 'credit') return;
        this.credits += m.body.value.batches;
        if (!accepted) {
          accepted = true;
          this.window = this.credits;
          this.stream = stream;
          resolve();
        }
        this.wake();
      });
      stream.on('error', (err: Error) => {
        if (!accepted) reject(err);
        else this.fail(err);
      });
      stream.on('end', () => {
        if (!accepted) reject(new Error('the receiver closed the channel'));
        else if (!this.closed) this.fail(new Error('the receiver closed the channel'));
      });
      stream.write({ body: { $case: 'open', value: this.open } });
    });
  }

  private fail(err: Error): void {
    this.failure ??= new Error(`${this.describe()} broke: ${err.message}`);
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  private async ready(): Promise<grpc.ClientDuplexStream<ExchangeMessage, ExchangeMessage>> {
    await this.opened;
    if (this.failure) throw this.failure;
    return this.stream!;
  }

  async sendRows(rows: readonly Row[]): Promise<void> {
    await this.sendBatch(rows.length, encodeRows(rows));
  }

  /** A schema change travels as a batch of its own (credits and order as for rows). */
  async sendSchemaChange(event: SchemaChangeEvent): Promise<void> {
    await this.sendBatch(0, encodeSchemaChange(event));
  }

  private async sendBatch(rowCount: number, bytes: Uint8Array): Promise<void> {
    const stream = await this.ready();
    while (this.credits === 0) {
      const credit = new Promise<void>((r) => (this.waiter = r));
      await (this.meter ? this.meter.waiting('backPressured', credit) : credit);
      if (this.failure) throw this.failure;
    }
    this.credits--;
    stream.write({ body: { $case: 'batch', value: { rowCount, rows: bytes as Buffer } } });
  }

  /** Batches sent and not yet taken by the receiver, over what the channel holds (0 before it opened). */
  usage(): number {
    return this.window > 0 ? (this.window - this.credits) / this.window : 0;
  }

  async sendBarrier(checkpointId: number, kind: CheckpointKind): Promise<void> {
    const stream = await this.ready();
    stream.write({ body: { $case: 'barrier', value: { checkpointId, type: checkpointKindToWire(kind), timestampMs: Date.now() } } });
  }

  async sendEnd(): Promise<void> {
    const stream = await this.ready();
    stream.write({ body: { $case: 'end', value: {} } });
  }

  close(): void {
    this.closed = true;
    this.stream?.end();
  }
}
