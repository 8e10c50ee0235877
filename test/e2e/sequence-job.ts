/**
 * The job of the exactly-once proofs: a Sequence source (per-key counters) through a
 * FaultInjector into the transactional LocalFile sink, checkpointed every 500 ms.
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
  return `
env {
  job.mode = "${j.mode}"
  parallelism = 2
  checkpoint.interval = 500
  ${j.env ?? ''}
}
source {
  Sequence {
    plugin_output = "seq"
    keys = ${j.keys}
    rows.per.key = ${j.rowsPerKey}
    rows.per.second = ${j.rowsPerSecond}
    ${j.source ?? ''}
  }
}
transform {
  FaultInjector {
    plugin_input = "seq"
    plugin_output = "out"
    ${j.chainParallelism ? `parallelism = ${j.chainParallelism}` : ''}
    ${j.chain ?? 'max = 0\n    dir = "' + j.out + '-budget"'}
  }
}
sink {
  LocalFile {
    plugin_input = "out"
    path = "${j.out}"
    file_format_type = "text"
    field_delimiter = ","
    is_enable_transaction = true
  }
}
`;
}

