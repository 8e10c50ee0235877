import { COMMON_OPTIONS, type OptionDef, type PluginOptions, type PluginSpec } from '@tideway/api';

/**
 * SeaTunnel's RabbitMQ options (RabbitmqConfig, docs/en/connector-v2/{source,sink}/Rabbitmq.md).
 * What the Java client does by itself and Tideway does otherwise is refused by name with the
 * reason (the recovery options), never accepted and left unused.
 */

const RECOVERY =
  'a lost connection fails the task instead, and the job restores from its last checkpoint (a reconnected channel numbers its deliveries anew, so acknowledgements held for a checkpoint would go to the wrong messages)';

const CONNECTION_OPTIONS: readonly OptionDef[] = [
  { name: 'host', type: 'string', required: true, description: 'Broker host.' },
  { name: 'port', type: 'int', required: true, min: 1, max: 65535, description: 'Broker AMQP port (5672 by default on a broker).' },
  { name: 'virtual_host', type: 'string', required: true, description: 'The virtual host to use, e.g. `/`.' },
  { name: 'username', type: 'string', description: 'User name (PLAIN login); given with `password`.' },
  { name: 'password', type: 'string', description: 'Password of `username`.' },
  {
    name: 'url',
    type: 'string',
    description:
      'An AMQP URI (amqp://user:pass@host:port/vhost, or amqps:// for TLS) that sets host, port, user, password and virtual host at once, in place of those options.',
  },
  { name: 'queue_name', type: 'string', required: true, description: 'The queue read (source) or written (sink); declared if missing.' },
  {
    name: 'routing_key',
    type: 'string',
    description:
      'Sink: publish to `exchange` with this routing key instead of straight to `queue_name`. Source: the binding key of `queue_name` to `exchange`.',
  },
  {
    name: 'exchange',
    type: 'string',
    default: '',
    description:
      'Sink: the exchange `routing_key` publishes to (the default exchange when empty). Source: an existing exchange the queue is bound to, with `routing_key` as the binding key.',
  },
  { name: 'durable', type: 'boolean', default: true, description: 'Declare the queue durable (it survives a broker restart).' },
  { name: 'exclusive', type: 'boolean', default: false, description: 'Declare the queue exclusive to this connection.' },
  { name: 'auto_delete', type: 'boolean', default: false, description: 'Declare the queue to be deleted when its last consumer leaves.' },
  {
    name: 'connection_timeout',
    type: 'int',
    default: 60_000,
    min: 0,
    description: 'TCP connect timeout in milliseconds; 0 waits as long as the OS does.',
  },
  {
    name: 'requested_channel_max',
    type: 'int',
    min: 0,
    max: 65535,
    description: 'Channel limit asked of the broker at connection tuning (0: no limit).',
  },
  { name: 'requested_frame_max', type: 'int', min: 0, description: 'Largest frame size asked of the broker, in bytes (0: no limit).' },
  {
    name: 'requested_heartbeat',
    type: 'int',
    min: 0,
    max: 65535,
    description: 'Heartbeat interval asked of the broker, in seconds (0: none).',
  },
  {
    name: 'automatic_recovery_enabled',
    type: 'boolean',
    fallbackNames: ['AUTOMATIC_RECOVERY_ENABLED'],
    description: `Only false is accepted: ${RECOVERY}.`,
  },
  { name: 'topology_recovery_enabled', type: 'boolean', description: `Only false is accepted: ${RECOVERY}.` },
  { name: 'network_recovery_interval', type: 'int', description: `Not supported: ${RECOVERY}; the delay is the job's restart strategy.` },
];

function checkConnection(o: PluginOptions): string | undefined {
  if (o.has('username') !== o.has('password')) return "options 'username' and 'password' go together: set both or neither";
  const url = o.get<string | undefined>('url');
  if (url !== undefined) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return "option 'url' is not a URI (amqp://user:pass@host:port/vhost)";
    }
    if (u.protocol !== 'amqp:' && u.protocol !== 'amqps:')
      return `option 'url' has scheme '${u.protocol.replace(':', '')}': only amqp and amqps are AMQP URIs`;
  }
  for (const name of ['automatic_recovery_enabled', 'topology_recovery_enabled']) {
    if (o.get<boolean | undefined>(name) === true) return `option '${name}' = true is not supported: ${RECOVERY}`;
  }
  if (o.has('network_recovery_interval')) return `option 'network_recovery_interval' is not supported: ${RECOVERY}`;
  return undefined;
}

export const RABBITMQ_SOURCE_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    { name: 'schema', type: 'object', required: true, description: 'The row type of the JSON messages (fields { name = type }).' },
    {
      name: 'prefetch_count',
      type: 'int',
      min: 1,
      max: 65535,
      description:
        'Most deliveries held unacknowledged (basic.qos). Deliveries are acknowledged when the checkpoint holding them completes, so this bounds the rows read per checkpoint interval; unset: no limit (a reader pauses consuming past 10,000 buffered messages).',
    },
    {
      name: 'delivery_timeout',
      type: 'long',
      min: 1,
      description:
        'With for_e2e_testing: milliseconds without a delivery after which the bounded read ends (default 10,000). Tideway never blocks a poll on the queue otherwise.',
    },
    {
      name: 'use_correlation_id',
      type: 'boolean',
      default: false,
      description:
        'Messages carry a unique correlation id: ids read but not yet acknowledged are kept in checkpoints, so a message the broker redelivers after a restore is dropped (exactly-once with parallelism 1, as SeaTunnel says). A message without one fails the task.',
    },
    {
      name: 'for_e2e_testing',
      type: 'boolean',
      default: false,
      description:
        'Bounded read for tests: the job ends once the queue has given no delivery for `delivery_timeout` ms; deliveries are acknowledged by the final checkpoint.',
    },
  ],
  validate: checkConnection,
};

export const RABBITMQ_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    ...CONNECTION_OPTIONS,
    {
      name: 'rabbitmq.config',
      type: 'object',
      description: 'Not supported: SeaTunnel reads it into properties its writer never uses; publish settings are the options above.',
    },
  ],
  validate: (o) =>
    o.has('rabbitmq.config')
      ? "option 'rabbitmq.config' is not supported: SeaTunnel's writer never reads it, and Tideway publishes with the options above"
      : checkConnection(o),
};
