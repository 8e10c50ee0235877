import { validatePluginOptions } from '@tideway/config/options';
import type { icebergSinkFactory, icebergSourceFactory } from '@tideway/connector-iceberg';

/** A hadoop catalog over a local warehouse folder, as the Iceberg tests give it. */
export const hadoop = (warehouse: string) => ({ type: 'hadoop', warehouse: `file://${warehouse}` });

/** The Iceberg source's or sink's options checked as a job's block would be (test.conf:1). */
export const validated = (
  factory: typeof icebergSinkFactory | typeof icebergSourceFactory,
  type: 'sink' | 'source',
  options: Record<string, unknown>,
) =>
  validatePluginOptions(factory.spec, {
    type,
    name: 'Iceberg',
    index: 0,
    file: 'test.conf',
    line: 1,
    options: options as Record<string, never>,
    optionLines: {},
  });
