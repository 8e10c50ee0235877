import { sequenceJobConfig } from '@tideway/testing';

/**
 * The job of the exactly-once proofs: a Sequence source (per-key counters) through a
 * FaultInjector into the transactional LocalFile sink, checkpointed every 500 ms
 * (libs/testing's sequenceJobConfig with the FaultInjector in between).
 */
export interface SequenceJob {
  mode: 'BATCH' | 'STREAMING';
  /** The FaultInjector's own parallelism: when it differs from 2, rows cross a shuffle. */
  chainParallelism?: number;
  keys: number;
  rowsPerKey: number;
  rowsPerSecond: number;
  out: string;
  source?: string;
  chain?: string;
  env?: string;
}

export function sequenceJob(j: SequenceJob): string {
  const transform = `FaultInjector {
    plugin_input = "seq"
    plugin_output = "out"
    ${j.chainParallelism ? `parallelism = ${j.chainParallelism}` : ''}
    ${j.chain ?? 'max = 0\n    dir = "' + j.out + '-budget"'}
  }`;
  return sequenceJobConfig({
    mode: j.mode,
    keys: j.keys,
    rowsPerKey: j.rowsPerKey,
    rowsPerSecond: j.rowsPerSecond,
    env: j.env,
    source: j.source,
    transform,
    sink: { kind: 'localfile', path: j.out },
  });
}
