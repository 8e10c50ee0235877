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

/**
 * Publishes each batch on a confirm channel and returns only when the broker has confirmed every
 * message, so every row of a completed checkpoint is in the broker: at-least-once (a restore
 * publishes again the rows after the last checkpoint). Messages are persistent when the queue is
 * durable, so a broker restart keeps them too.
 */
class RabbitSinkWriter implements SinkWriter {
  private open?: Promise<{ model: ChannelModel; channel: ConfirmChannel; closed: Promise<never> }>;
  private readonly writers = new Map<string, (fields: readonly unknown[]) => string>();

  constructor(
    private readonly s: SinkSettings,
    tables: readonly CatalogTable[],
  ) {
    for (const t of tables) this.writers.set(t.tableId, compileJsonLineWriter(t.columns));
  }

  private async connect(): Promise<{ model: ChannelModel; channel: ConfirmChannel; closed: Promise<never> }> {
    const c = this.s.connection;
    const { model, closed } = await openConnection(c);
    try {
      const channel = await model.createConfirmChannel();
      channel.on('error', () => {
        /* the connection's 'close' (or the waiting confirm) reports it */
      });
      await channel.assertQueue(c.queue, c.queueOptions);
      return { model, channel, closed };
    } catch (err) {
      await model.close().catch(() => undefined);
      throw brokerError(c, `declaring queue '${c.queue}'`, err);
    }
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    this.open ??= this.connect();
    const { channel, closed } = await this.open;
    const c = this.s.connection;
    const options = { persistent: c.queueOptions.durable === true, contentType: 'application/json' };
    try {
      for (const row of rows) {
        const write = this.writers.get(row.tableId);
        if (!write)
          throw new TidewayError(
            ErrorCode.CONNECTOR_IO,
            `RabbitMQ sink got a row of table '${row.tableId}', which is not one of its inputs`,
          );
        const body = Buffer.from(write(row.fields), 'utf8');
        const more =
          this.s.routingKey === undefined
            ? channel.sendToQueue(c.queue, body, options)
            : channel.publish(this.s.exchange, this.s.routingKey, body, options);
        // The socket's buffer is full: wait until it drains (or the connection goes).
        if (!more) await Promise.race([new Promise<void>((r) => channel.once('drain', r)), closed]);
      }
      await Promise.race([channel.waitForConfirms(), closed]);
    } catch (err) {
      throw brokerError(
        c,
        `publishing to ${this.s.routingKey === undefined ? `queue '${c.queue}'` : `exchange '${this.s.exchange}'`}`,
        err,
      );
    }
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = undefined;
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
