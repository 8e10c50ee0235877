/**
 * The job of the exactly-once proofs: a Sequence source (per-key counters 0, 1, 2, …),
 * checkpointed, into a sink that commits in two phases. What reaches the sink is checked by
 * sequence-check.ts: every key's every sequence number exactly once.
 */

/**
 * Where the rows go: LocalFile with transactions, or Jdbc with XA (exactly-once) into `table`
 * (columns k, seq, payload), reached by `connection` (the url, driver, user and password lines
 * of the plugin block) with the XA data source class of its database, or Kafka with
 * transactions, or Iceberg (one snapshot per checkpoint) into `namespace.table` of the hadoop
 * catalog on the local folder `warehouse` (the table created by the job).
 */
export type SequenceSink =
  | { kind: 'localfile'; path: string }
  | { kind: 'jdbc'; connection: string; xaDataSource: string; table: string }
  | { kind: 'kafka'; bootstrap: string; topic: string; transactionPrefix: string }
  | { kind: 'iceberg'; warehouse: string; namespace: string; table: string };

/** The connection lines of a Jdbc block for PostgreSQL, and its XA data source class. */
export function pgSinkConnection(jdbcUrl: string, user: string, password: string): { connection: string; xaDataSource: string } {
  return {
    connection: [`url = "${jdbcUrl}"`, 'driver = "org.postgresql.Driver"', `user = "${user}"`, `password = "${password}"`].join('\n    '),
    xaDataSource: 'org.postgresql.xa.PGXADataSource',
  };
}

export interface SequenceJobConfig {
  mode: 'BATCH' | 'STREAMING';
  keys: number;
  rowsPerKey: number;
  /** Rows per second per reader (0: as fast as possible). */
  rowsPerSecond: number;
  sink: SequenceSink;
  /** Default 2. */
  parallelism?: number;
  /** Default 500 ms. */
  checkpointIntervalMs?: number;
  /** More env lines, more Sequence options. */
  env?: string;
  source?: string;
  /**
   * A whole source block (output `seq`, columns key, seq, payload) in place of the Sequence
   * source, e.g. a Kafka source over a topic that holds the sequence's rows (sequenceRecords).
   */
  sourceBlock?: string;
  /** A transform block's body between the source (`seq`) and the sink (`out`); none by default. */
  transform?: string;
}

/** The target table of a Jdbc sequence sink: no key, so that a duplicate stays visible. */
export const sequenceTableDdl = (table: string) => `CREATE TABLE ${table} (k integer, seq bigint, payload text)`;

function sinkBlock(sink: SequenceSink, input: string): string {
  if (sink.kind === 'kafka') {
    // Kafka transactions bound to checkpoints; the rows as JSON objects {key, seq, payload}.
    return `  Kafka {
    plugin_input = "${input}"
    bootstrap.servers = "${sink.bootstrap}"
    topic = "${sink.topic}"
    format = "json"
    semantics = "EXACTLY_ONCE"
    transaction_prefix = "${sink.transactionPrefix}"
  }`;
  }
  if (sink.kind === 'iceberg') {
    // The table is keyed by the source's primary key (key, seq) and takes inserts only: no
    // equality deletes, so a row committed twice stays visible twice.
    return `  Iceberg {
    plugin_input = "${input}"
    catalog_name = "chaos"
    iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${sink.warehouse}" }
    namespace = "${sink.namespace}"
    table = "${sink.table}"
  }`;
  }
  if (sink.kind === 'localfile') {
    return `  LocalFile {
    plugin_input = "${input}"
    path = "${sink.path}"
    file_format_type = "text"
    field_delimiter = ","
    is_enable_transaction = true
  }`;
  }
  return `  Jdbc {
    plugin_input = "${input}"
    ${sink.connection}
    query = "insert into ${sink.table} (k, seq, payload) values (?, ?, ?)"
    is_exactly_once = true
    xa_data_source_class_name = "${sink.xaDataSource}"
    max_commit_attempts = 3
  }`;
}

/** The job config text (HOCON). */
export function sequenceJobConfig(j: SequenceJobConfig): string {
  const transform = j.transform ? `transform {\n  ${j.transform.trim()}\n}\n` : '';
  return `
env {
  job.mode = "${j.mode}"
  parallelism = ${j.parallelism ?? 2}
  checkpoint.interval = ${j.checkpointIntervalMs ?? 500}
  ${j.env ?? ''}
}
source {
${
  j.sourceBlock ??
  `  Sequence {
    plugin_output = "seq"
    keys = ${j.keys}
    rows.per.key = ${j.rowsPerKey}
    rows.per.second = ${j.rowsPerSecond}
    ${j.source ?? ''}
  }`
}
}
${transform}sink {
${sinkBlock(j.sink, j.transform ? 'out' : 'seq')}
}
`;
}

/**
 * The rows the Sequence source would emit, as the JSON objects a Kafka json format reads
 * ({key, seq, payload}), key by key: every key's seq 0..rowsPerKey-1.
 */
export function* sequenceRecords(keys: number, rowsPerKey: number): Generator<{ key: number; value: string }> {
  for (let seq = 0; seq < rowsPerKey; seq++)
    for (let key = 0; key < keys; key++) yield { key, value: JSON.stringify({ key, seq, payload: `k${key}-s${seq}` }) };
}
