import type { Sink, SinkFactory } from '@tideway/api';
import { ConsoleSinkWriter } from './console-writer.js';
import { CONSOLE_SINK_SPEC } from './spec.js';

export { ConsoleSinkWriter } from './console-writer.js';
export type { TextOutput } from './console-writer.js';
export { fieldFormatter } from './field-format.js';
export { CONSOLE_SINK_SPEC } from './spec.js';

/** SeaTunnel's Console sink: prints every row to stdout in SeaTunnel's log line format. */
export const consoleSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Console',
  description:
    "Prints every row to standard output as SeaTunnel's Console sink logs it (subtask index, row index, table, row kind, fields); works in batch and streaming jobs and with several input tables.",
  spec: CONSOLE_SINK_SPEC,
  create: (ctx): Sink => {
    const printData = ctx.options.get<boolean>('log.print.data');
    const delayMs = ctx.options.get<number>('log.print.delay.ms');
    return { createWriter: (w) => new ConsoleSinkWriter(w.subtaskIndex, ctx.inputTables, printData, delayMs) };
  },
};
