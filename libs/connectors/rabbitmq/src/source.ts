import {
  parseSchemaConfig,
  type CatalogTable,
  type Collector,
  type PluginContext,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SplitEnumerator,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError, ValueConversionError } from '@tideway/common';
import { compileJsonLineParser } from '@tideway/connector-file-common/formats';
import type { Channel, ChannelModel, ConsumeMessage, Message } from 'amqplib';
import { brokerError, connectionOf, openConnection, type RabbitConnection } from './client.js';
import { RABBITMQ_SOURCE_SPEC } from './options.js';

/**
 * One reader's consumer of the queue. Its state is the correlation ids it has read whose
 * acknowledgement may not have reached the broker (only with use_correlation_id): after a
 * restore, the broker redelivers those messages and the reader drops them.
 */
export interface RabbitSplit {
  splitId: string;
  pendingIds?: string[];
}

interface SourceSettings {
  readonly connection: RabbitConnection;
  readonly table: CatalogTable;
  readonly parse: (text: string) => unknown[];
  readonly exchange: string;
  readonly routingKey?: string;
  readonly prefetch?: number;
  readonly useCorrelationId: boolean;
  readonly bounded: boolean;
  readonly idleEndMs: number;
}

/** Rows handed to the engine per poll. */
const POLL_ROWS = 4096;
/** Buffered deliveries past which a reader stops consuming until it has drained to RESUME_AT. */
const PAUSE_AT = 10_000;
const RESUME_AT = 1_000;

/** Gives each reader one consumer split; a restored reader gets its own back from its state. */
class RabbitEnumerator implements SplitEnumerator<RabbitSplit, { assigned: string[] }> {
  private readonly assigned: Set<string>;
  private readonly returned = new Map<string, RabbitSplit>();

  constructor(
    private readonly ctx: SplitEnumeratorContext<RabbitSplit>,
    restored?: { assigned: string[] },
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
  }

  open(): void {}
  run(): void {}

  registerReader(subtask: number): void {
    const id = `rabbitmq-${subtask}`;
    if (!this.assigned.has(id)) {
      this.assigned.add(id);
      this.ctx.assignSplits(subtask, [this.returned.get(id) ?? { splitId: id }]);
      this.returned.delete(id);
    }
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  addSplitsBack(splits: RabbitSplit[]): void {
    for (const s of splits) {
      this.assigned.delete(s.splitId);
      this.returned.set(s.splitId, s);
    }
  }

  snapshotState(): { assigned: string[] } {
    return { assigned: [...this.assigned] };
  }

  close(): void {}
}

/** What one checkpoint holds: the last delivery tag read before its barrier, and the ids read. */
interface Pending {
  readonly tag: number;
  readonly ids: readonly string[];
}

class RabbitReader implements SourceReader<RabbitSplit> {
  private split?: RabbitSplit;
  private starting?: Promise<void>;
  private model?: ChannelModel;
  private channel?: Channel;
  private consumerTag?: string;
  private paused = false;
  private failure?: TidewayError;
  private readonly buffer: ConsumeMessage[] = [];
  private head = 0;
  /** Highest delivery tag read (handed on as a row, or dropped as a duplicate). */
  private lastTag = 0;
  private ackedTag = 0;
  private readonly pending = new Map<number, Pending>();
  /** Correlation ids read since the last barrier. */
  private currentIds: string[] = [];
  /** Ids still possibly unacknowledged: dropped when seen again. */
  private readonly seen = new Set<string>();
  private lastDeliveryAt = Date.now();
  private ended = false;

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly s: SourceSettings,
  ) {}

  open(): void {}

  addSplits(splits: RabbitSplit[]): void {
    const split = splits[0];
    if (!split || this.split) return;
    this.split = split;
    // Ids restored from a checkpoint stay until the first checkpoint after the restore completes.
    this.currentIds = [...(split.pendingIds ?? [])];
    for (const id of this.currentIds) this.seen.add(id);
    this.starting = this.start().catch((err: unknown) => {
      this.failure = brokerError(this.s.connection, `consuming queue '${this.s.connection.queue}'`, err);
    });
  }

  handleNoMoreSplits(): void {}

  private async start(): Promise<void> {
    const c = this.s.connection;
    const { model, closed } = await openConnection(c);
    this.model = model;
    closed.catch((err: unknown) => {
      if (!this.ended) this.failure ??= err as TidewayError;
    });
    const channel = await model.createChannel();
    this.channel = channel;
    channel.on('error', (err: Error) => {
      if (!this.ended) this.failure ??= brokerError(c, `the channel of queue '${c.queue}'`, err);
    });
    await channel.assertQueue(c.queue, c.queueOptions);
    if (this.s.exchange !== '') {
      await channel.bindQueue(c.queue, this.s.exchange, this.s.routingKey ?? '').catch((err: unknown) => {
        throw brokerError(c, `binding queue '${c.queue}' to exchange '${this.s.exchange}'`, err);
      });
    }
    if (this.s.prefetch !== undefined) await channel.prefetch(this.s.prefetch, true);
    await this.consume();
    this.lastDeliveryAt = Date.now();
  }

  private async consume(): Promise<void> {
    const channel = this.channel;
    if (!channel) return;
    const { consumerTag } = await channel.consume(
      this.s.connection.queue,
      (msg) => {
        if (msg === null) {
          // The broker cancelled the consumer: the queue was deleted.
          if (!this.ended)
            this.failure ??= new TidewayError(
              ErrorCode.EXTERNAL_SYSTEM,
              `RabbitMQ at ${this.s.connection.address}: the broker cancelled the consumer of queue '${this.s.connection.queue}' (was the queue deleted?)`,
              { retryable: true },
            );
          return;
        }
        this.buffer.push(msg);
        if (!this.paused && this.buffer.length - this.head >= PAUSE_AT) this.pause();
      },
      { noAck: false },
    );
    this.consumerTag = consumerTag;
  }

  private pause(): void {
    const tag = this.consumerTag;
    if (!tag || !this.channel) return;
    this.paused = true;
    this.consumerTag = undefined;
    this.channel.cancel(tag).catch((err: unknown) => {
      this.failure ??= brokerError(this.s.connection, 'pausing the consumer', err);
    });
  }

  async pollNext(output: Collector): Promise<void> {
    if (this.starting) {
      await this.starting;
      this.starting = undefined;
    }
    if (this.failure) throw this.failure;
    if (!this.split) return;
    const available = this.buffer.length - this.head;
    if (available === 0) {
      if (this.s.bounded && Date.now() - this.lastDeliveryAt >= this.s.idleEndMs) this.ctx.signalNoMoreElement();
      return;
    }
    const n = Math.min(available, POLL_ROWS);
    const rows: Row[] = [];
    const tableId = this.s.table.tableId;
    for (let i = 0; i < n; i++) {
      const msg = this.buffer[this.head++];
      const tag = msg.fields.deliveryTag;
      this.lastTag = tag;
      if (this.s.useCorrelationId) {
        const id: unknown = msg.properties.correlationId;
        if (typeof id !== 'string' || id === '')
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `RabbitMQ queue '${this.s.connection.queue}': delivery ${tag} has no correlation id, and use_correlation_id is true`,
          );
        if (this.seen.has(id)) continue; // read before a restore: its row is already past the checkpoint
        this.seen.add(id);
        this.currentIds.push(id);
      }
      let fields: unknown[];
      try {
        fields = this.s.parse(msg.content.toString('utf8'));
      } catch (err) {
        throw new ValueConversionError(
          ErrorCode.VALUE_CONVERSION,
          `RabbitMQ queue '${this.s.connection.queue}', delivery ${tag}: ${(err as Error).message}`,
        );
      }
      rows.push({ kind: '+I', tableId, fields });
    }
    if (this.head === this.buffer.length) {
      this.buffer.length = 0;
      this.head = 0;
    } else if (this.head >= PAUSE_AT) {
      this.buffer.splice(0, this.head);
      this.head = 0;
    }
    this.lastDeliveryAt = Date.now();
    if (this.paused && this.buffer.length - this.head <= RESUME_AT) {
      this.paused = false;
      await this.consume().catch((err: unknown) => {
        throw brokerError(this.s.connection, 'resuming the consumer', err);
      });
    }
    if (rows.length > 0) output.collectBatch(rows);
  }

  snapshotState(checkpointId: number): RabbitSplit[] {
    if (!this.split) return [];
    this.pending.set(checkpointId, { tag: this.lastTag, ids: this.currentIds });
    this.currentIds = [];
    if (!this.s.useCorrelationId) return [{ splitId: this.split.splitId }];
    const ids: string[] = [];
    for (const p of this.pending.values()) ids.push(...p.ids);
    return [{ splitId: this.split.splitId, pendingIds: ids }];
  }

  /**
   * Acknowledges every delivery read before the completed checkpoint's barrier with one
   * multiple-ack: deliveries come and are read in tag order, so the tags up to the checkpoint's
   * last one are exactly those its rows (and dropped duplicates) came from.
   */
  notifyCheckpointComplete(checkpointId: number): void {
    let tag = 0;
    for (const [id, p] of this.pending) {
      if (id > checkpointId) continue;
      tag = Math.max(tag, p.tag);
      for (const cid of p.ids) this.seen.delete(cid);
      this.pending.delete(id);
    }
    if (tag > this.ackedTag && this.channel && !this.failure) {
      this.channel.ack({ fields: { deliveryTag: tag } } as Message, true);
      this.ackedTag = tag;
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    const { model, channel } = this;
    this.model = undefined;
    this.channel = undefined;
    // The channel's close is a round trip the broker answers after the acknowledgements sent
    // before it (closing the connection at once could requeue them); unacknowledged deliveries
    // go back to the queue.
    if (channel) await channel.close().catch(() => undefined);
    if (model) await model.close().catch(() => undefined);
  }
}

export const rabbitmqSourceFactory: SourceFactory = {
  type: 'source',
  name: 'RabbitMQ',
  description:
    "SeaTunnel's RabbitMQ source: consumes a queue's JSON messages as rows of `schema` (streaming jobs), acknowledging each delivery only when the checkpoint holding its row completes, so nothing is lost; with use_correlation_id, redeliveries after a restore are dropped.",
  spec: RABBITMQ_SOURCE_SPEC,
  create: (ctx: PluginContext): Source<RabbitSplit, { assigned: string[] }> => {
    const o = ctx.options;
    if (ctx.jobMode !== 'STREAMING')
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        'the RabbitMQ source reads a queue without end: it runs in job.mode = "STREAMING" only (for_e2e_testing = true makes a streaming read end when the queue is idle)',
        { place: o.place() },
      );
    if (o.has('routing_key') && o.get<string>('exchange') === '')
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        "option 'routing_key' of the source is the key binding 'queue_name' to 'exchange': set 'exchange' too",
        { place: o.place('routing_key') },
      );
    if (o.has('delivery_timeout') && !o.get<boolean>('for_e2e_testing'))
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        "option 'delivery_timeout' applies with for_e2e_testing = true only (how long an idle queue ends the bounded read); a streaming read never waits on the queue",
        { place: o.place('delivery_timeout') },
      );
    const table = parseSchemaConfig(o.raw.schema, { catalogName: 'RabbitMQ', place: o.place('schema') }).table;
    const settings: SourceSettings = {
      connection: connectionOf(o),
      table,
      parse: compileJsonLineParser(table.columns),
      exchange: o.get<string>('exchange'),
      routingKey: o.get<string | undefined>('routing_key'),
      prefetch: o.get<number | undefined>('prefetch_count'),
      useCorrelationId: o.get<boolean>('use_correlation_id'),
      bounded: o.get<boolean>('for_e2e_testing'),
      idleEndMs: o.get<number | undefined>('delivery_timeout') ?? 10_000,
    };
    return {
      boundedness: () => (settings.bounded ? 'BOUNDED' : 'UNBOUNDED'),
      catalogTables: () => [settings.table],
      createEnumerator: (ectx, restored) => new RabbitEnumerator(ectx, restored),
      createReader: (rctx) => new RabbitReader(rctx, settings),
    };
  },
};
