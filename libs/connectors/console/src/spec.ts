import type { PluginSpec } from '@tideway/api';
import { COMMON_OPTIONS } from '@tideway/api';

/** Console's options (docs/en/connector-v2/sink/Console.md, ConsoleSinkFactory). */
export const CONSOLE_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    {
      name: 'log.print.data',
      type: 'boolean',
      default: true,
      description: 'Flag to determine whether data should be printed in the logs.',
    },
    {
      name: 'log.print.delay.ms',
      type: 'int',
      default: 0,
      min: 0,
      description: 'Delay in milliseconds between printing each data item to the logs.',
    },
  ],
};
