import type { CatalogTable, PluginContext, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { compileJsonLineWriter } from '@tideway/connector-file-common/formats';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { brokerError, connectionOf, openConnection, type RabbitConnection } from './client.js';
import { RABBITMQ_SINK_SPEC } from './options.js';

interface SinkSettings {
  readonly connection: RabbitConnection;
  readonly exchange: string;
  readonly routingKey?: string;
}

/** The broker's answer to a message over its max_message_size: the channel closed with 406 PRECONDITION_FAILED. */
function isTooLarge(err: Error | undefined): boolean {
  return (err as { code?: unknown } | undefined)?.code === 406 && /larger than configured max size/.test(err?.message ?? '');
}

/** A confirm channel, a promise that rejects when it closes, and why the broker closed it. */
interface OpenChannel {
  readonly channel: ConfirmChannel;
  readonly closed: Promise<never>;
  isClosed: boolean;
  error?: Error;
}

/**
 * Publishes each batch on a confirm channel and returns only when the broker has confirmed every
 * message, so every row of a completed checkpoint is in the broker: at-least-once (a restore
 * publishes again the rows after the last checkpoint). Messages are persistent when the queue is
 * durable, so a broker restart keeps them too.
 */
class RabbitSinkWriter implements SinkWriter {
  private open?: Promise<{ model: ChannelModel; closed: Promise<never> }>;
  private channel?: Promise<OpenChannel>;
  /** The channel of the last publish. */
  private used?: OpenChannel;
  private readonly writers = new Map<string, (fields: readonly unknown[]) => string>();
  /** env.sink_error_handler: where the rows whose message the broker refuses go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;

  constructor(
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.writers.set(t.tableId, compileJsonLineWriter(t.columns));
  }

  /**
   * Row-level errors: a message larger than the broker's max_message_size. The broker closes the
   * channel, which leaves the confirms of the batch's other messages unknown, so the batch is
   * published again one message at a time on a new channel, each confirmed before the next: a
   * message that closes the channel so again is the row's, handed to `reject`; the others may be
   * in the queue twice (at-least-once). Every other error (the broker away, a refused queue)
   * still fails the task.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  private async connect(): Promise<{ model: ChannelModel; closed: Promise<never> }> {
    const c = this.s.connection;
    const { model, closed } = await openConnection(c);
    try {
      const channel = await model.createChannel();
      await channel.assertQueue(c.queue, c.queueOptions);
      await channel.close();
      return { model, closed };
    } catch (err) {
      await model.close().catch(() => undefined);
      throw brokerError(c, `declaring queue '${c.queue}'`, err);
    }
  }

  private async openChannel(model: ChannelModel): Promise<OpenChannel> {
    const channel = await model.createConfirmChannel();
    let closing: (err: Error) => void = () => undefined;
    const open: OpenChannel = { channel, closed: new Promise<never>((_, reject) => (closing = reject)), isClosed: false };
    open.closed.catch(() => undefined); // raced by each wait: an idle channel's close is no error
    channel.on('error', (err: Error) => {
      open.error = err;
    });
    channel.on('close', () => {
      open.isClosed = true;
      closing(open.error ?? new Error('the channel closed'));
    });
    return open;
  }

  /** Publishes `rows` and waits for the broker's confirms of them, on the open channel (a new one after the broker closed the last). */
  private async publish(rows: readonly Row[]): Promise<void> {
    const c = this.s.connection;
    this.open ??= this.connect();
    const { model, closed } = await this.open;
    if (this.channel && (await this.channel.catch(() => undefined))?.isClosed !== false) this.channel = undefined;
    const open = await (this.channel ??= this.openChannel(model));
    this.used = open;
    const { channel } = open;
    const options = { persistent: c.queueOptions.durable === true, contentType: 'application/json' };
    for (const row of rows) {
      const write = this.writers.get(row.tableId);
      if (!write)
        throw new TidewayError(ErrorCode.CONNECTOR_IO, `RabbitMQ sink got a row of table '${row.tableId}', which is not one of its inputs`);
      const body = Buffer.from(write(row.fields), 'utf8');
      const more =
        this.s.routingKey === undefined
          ? channel.sendToQueue(c.queue, body, options)
          : channel.publish(this.s.exchange, this.s.routingKey, body, options);
      // The socket's buffer is full: wait until it drains (or the channel or connection goes).
      if (!more) await Promise.race([new Promise<void>((r) => channel.once('drain', r)), open.closed, closed]);
    }
    await Promise.race([channel.waitForConfirms(), open.closed, closed]);
  }

  /** Whether the last publish failed because the broker closed its channel over a message's size (waits a moment for the close). */
  private async tooLarge(): Promise<boolean> {
    const open = this.used;
    if (!open) return false;
    await Promise.race([open.closed.catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
    return isTooLarge(open.error);
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    const c = this.s.connection;
    const what = `publishing to ${this.s.routingKey === undefined ? `queue '${c.queue}'` : `exchange '${this.s.exchange}'`}`;
    const reject = this.reject;
    try {
      this.used = undefined;
      await this.publish(rows);
      return;
    } catch (err) {
      if (!reject || !(await this.tooLarge())) throw brokerError(c, what, err);
    }
    for (const row of rows) {
      try {
        this.used = undefined;
        await this.publish([row]);
      } catch (err) {
        if (!(await this.tooLarge())) throw brokerError(c, what, err);
        reject(
          row,
          new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `RabbitMQ at ${c.address} refused a row's message (${what}): ${this.used!.error!.message}`,
          ),
        );
      }
    }
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    this.channel = undefined;
    if (!open) return;
    const conn = await open.catch(() => undefined);
    if (conn) await conn.model.close().catch(() => undefined);
  }
}

export const rabbitmqSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'RabbitMQ',
  description:
    "SeaTunnel's RabbitMQ sink: publishes each row as a JSON message to a queue (or to an exchange with a routing key), with publisher confirms awaited before each checkpoint: at-least-once. Row kinds are not written (SeaTunnel's JSON has none).",
  spec: RABBITMQ_SINK_SPEC,
  create: (ctx: PluginContext): Sink => {
    const o = ctx.options;
    const settings: SinkSettings = {
      connection: connectionOf(o),
      exchange: o.get<string>('exchange'),
      routingKey: o.get<string | undefined>('routing_key'),
    };
    return { createWriter: () => new RabbitSinkWriter(settings, ctx.inputTables) };
  },
};
