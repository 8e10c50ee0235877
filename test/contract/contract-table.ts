/**
 * Which built-in sink runs which check of the contract suite, and why a check does not apply:
 * the test files of this folder take their `notApplicable` from here, and
 * contract-table.test.ts checks that docs/plugins.md's table says the same.
 */
import { SINK_CHECKS, SOURCE_CHECKS, type Delivery, type SinkCheck, type SourceCheck } from '@tideway/connector-contract';

type NotApplicable = Partial<Record<SinkCheck, string>>;

export const NO_SCHEMA_CHANGE = 'the writer has no applySchemaChange: a schema change fails the job with one sentence';

export const JDBC_NOT_APPLICABLE: NotApplicable = {};

export const JDBC_SQLITE_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': 'no XA in SQLite (is_exactly_once is refused): rows commit as they are written, there is no commit to replay',
  'abort-after-prepare': 'no XA in SQLite: nothing is prepared',
  'schema-change': 'SQLite targets refuse schema changes (ALTER TABLE cannot change a column in place), naming the table and the change',
};

export const JDBC_FIREBIRD_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence':
    'no XA for Firebird here (is_exactly_once is refused): rows commit as they are written, there is no commit to replay',
  'abort-after-prepare': 'no XA for Firebird here: nothing is prepared',
  'schema-change': 'Firebird targets refuse schema changes, naming the table and the change',
};

export const FILE_NOT_APPLICABLE: NotApplicable = { 'schema-change': NO_SCHEMA_CHANGE };

const NO_TWO_PHASE_COMMIT = 'no commit phase: rows are written as they come, there is nothing prepared to commit or abort';

export const REDIS_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': NO_TWO_PHASE_COMMIT,
  'abort-after-prepare': NO_TWO_PHASE_COMMIT,
  'schema-change': NO_SCHEMA_CHANGE,
};

export const KAFKA_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': `${NO_TWO_PHASE_COMMIT} with AT_LEAST_ONCE (EXACTLY_ONCE's transactions: test/kafka/kafka-exactly-once.test.ts)`,
  'abort-after-prepare': `${NO_TWO_PHASE_COMMIT} with AT_LEAST_ONCE (EXACTLY_ONCE's transactions: test/kafka/kafka-exactly-once.test.ts)`,
  'schema-change': NO_SCHEMA_CHANGE,
};

export const RABBITMQ_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': `${NO_TWO_PHASE_COMMIT} (messages are published with confirms before each checkpoint)`,
  'abort-after-prepare': `${NO_TWO_PHASE_COMMIT} (messages are published with confirms before each checkpoint)`,
  'schema-change': NO_SCHEMA_CHANGE,
};

export const HTTP_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': `${NO_TWO_PHASE_COMMIT} (each row is POSTed and answered before its checkpoint)`,
  'abort-after-prepare': `${NO_TWO_PHASE_COMMIT} (each row is POSTed and answered before its checkpoint)`,
  'schema-change': NO_SCHEMA_CHANGE,
};

export const ELASTICSEARCH_NOT_APPLICABLE: NotApplicable = {
  'commit-idempotence': `${NO_TWO_PHASE_COMMIT} (each batch is sent with _bulk before its checkpoint; keyed rows are upserts by _id)`,
  'abort-after-prepare': `${NO_TWO_PHASE_COMMIT} (each batch is sent with _bulk before its checkpoint; keyed rows are upserts by _id)`,
  'schema-change': NO_SCHEMA_CHANGE,
};

export const ICEBERG_NOT_APPLICABLE: NotApplicable = {};

/** Every check but bad-options, for a sink without a target to read back. */
function noTarget(reason: string): NotApplicable {
  return Object.fromEntries(SINK_CHECKS.filter((c) => c !== 'bad-options').map((c) => [c, reason]));
}

export const CONSOLE_NOT_APPLICABLE = noTarget('it prints rows to standard output: nothing can read them back');
export const ASSERT_NOT_APPLICABLE = noTarget('it checks rows and writes nothing: there is no target to read back');

export const FAKE_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = {
  'multi-table': 'tables_configs tables have random rows only (explicit rows are one table): nothing to compare them with',
};

export const SEQUENCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = { 'multi-table': 'one table of keyed sequences' };
export const REDIS_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = { 'multi-table': 'one key pattern, one table' };

export const HTTP_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = { 'multi-table': 'one URL, one table' };

export const ELASTICSEARCH_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = {
  'exactly-once-restore':
    'a restore scrolls an unfinished index again from its start (a scroll expires and cannot be resumed from a checkpoint): at-least-once',
  'failure-in-every-method': 'a restore scrolls an unfinished index again from its start: at-least-once',
  'multi-table': 'one index pattern, one table',
};

/** search_api_type = PIT: a restore continues after the checkpointed _id, so every check runs but multi-table. */
export const ELASTICSEARCH_PIT_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = {
  'multi-table': 'one index pattern, one table',
};

export const ICEBERG_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = { 'multi-table': 'one table per source' };

export const S3_SOURCE_NOT_APPLICABLE: Partial<Record<SourceCheck, string>> = {
  'multi-table': "the LocalFile source's tables_configs, on the same FileSource, run it",
};

/** One row of the table: a sink and the file of this folder that runs it. */
export interface ContractRow {
  readonly name: string;
  /** How it delivers through a restore (the contract's Delivery); none for a sink without a target. */
  readonly delivery?: Delivery;
  /** The test file (under test/contract/) that runs it. */
  readonly file: string;
  readonly notApplicable?: NotApplicable;
}

export const CONTRACT_ROWS: readonly ContractRow[] = [
  { name: 'Jdbc (PostgreSQL, XA)', delivery: 'exactly-once', file: 'jdbc-contract.test.ts', notApplicable: JDBC_NOT_APPLICABLE },
  { name: 'Jdbc (MariaDB, XA)', delivery: 'exactly-once', file: 'jdbc-contract.test.ts', notApplicable: JDBC_NOT_APPLICABLE },
  { name: 'Jdbc (SQLite)', delivery: 'idempotent', file: 'jdbc-contract.test.ts', notApplicable: JDBC_SQLITE_NOT_APPLICABLE },
  { name: 'Jdbc (Firebird)', delivery: 'idempotent', file: 'jdbc-contract.test.ts', notApplicable: JDBC_FIREBIRD_NOT_APPLICABLE },
  ...['text', 'csv', 'json', 'parquet', 'excel'].map((f) => ({
    name: `LocalFile (${f})`,
    delivery: 'exactly-once' as const,
    file: 'localfile-contract.test.ts',
    notApplicable: FILE_NOT_APPLICABLE,
  })),
  { name: 'S3File (json)', delivery: 'exactly-once', file: 's3file-contract.test.ts', notApplicable: FILE_NOT_APPLICABLE },
  { name: 'Redis (hash per row)', delivery: 'idempotent', file: 'redis-contract.test.ts', notApplicable: REDIS_NOT_APPLICABLE },
  { name: 'Kafka (AT_LEAST_ONCE)', delivery: 'at-least-once', file: 'kafka-contract.test.ts', notApplicable: KAFKA_NOT_APPLICABLE },
  { name: 'RabbitMQ', delivery: 'at-least-once', file: 'systems-contract.test.ts', notApplicable: RABBITMQ_NOT_APPLICABLE },
  { name: 'Http', delivery: 'at-least-once', file: 'systems-contract.test.ts', notApplicable: HTTP_NOT_APPLICABLE },
  {
    name: 'Elasticsearch (primary_keys)',
    delivery: 'idempotent',
    file: 'elasticsearch-contract.test.ts',
    notApplicable: ELASTICSEARCH_NOT_APPLICABLE,
  },
  { name: 'Iceberg (hadoop catalog)', delivery: 'exactly-once', file: 'iceberg-contract.test.ts', notApplicable: ICEBERG_NOT_APPLICABLE },
  { name: 'Console', file: 'console-assert-contract.test.ts', notApplicable: CONSOLE_NOT_APPLICABLE },
  { name: 'Assert', file: 'console-assert-contract.test.ts', notApplicable: ASSERT_NOT_APPLICABLE },
];

/** Reasons numbered in order of first use: `n/a [k]` in a cell, `[k] reason` below the table. */
function footnotes(): { noteOf: (reason: string) => string; notes: string[] } {
  const notes: string[] = [];
  const noteOf = (reason: string): string => {
    let i = notes.indexOf(reason);
    if (i < 0) i = notes.push(reason) - 1;
    return `n/a [${i + 1}]`;
  };
  return { noteOf, notes };
}

/** The markdown table of docs/plugins.md: a row per sink, a column per check (passes, or n/a with the reason as a note). */
export function contractTable(): string {
  const head = `| Sink | delivery | ${SINK_CHECKS.join(' | ')} |`;
  const rule = `|${' --- |'.repeat(SINK_CHECKS.length + 2)}`;
  const { noteOf, notes } = footnotes();
  const rows = CONTRACT_ROWS.map((r) => {
    const cells = SINK_CHECKS.map((c) => {
      const reason = r.notApplicable?.[c];
      return reason !== undefined ? noteOf(reason) : 'passes';
    });
    return `| ${r.name} | ${r.delivery ?? ''} | ${cells.join(' | ')} |`;
  });
  return [
    head,
    rule,
    ...rows,
    '',
    ...notes.map((n, i) => `[${i + 1}] ${n.replace(/\$\{/g, '`${').replace(/\}(?= is refused)/g, '}`')}`),
  ].join('\n');
}

/** A source and the file that runs it, or the reason it is out of the (bounded) source contract. */
export interface SourceContractRow {
  readonly name: string;
  readonly file?: string;
  readonly notApplicable?: Partial<Record<SourceCheck, string>>;
  /** Every check is not applicable, for this reason. */
  readonly outOfScope?: string;
}

const UNBOUNDED = 'unbounded: the source contract reads bounded sources to their end (test/kafka and test/cdc run it in jobs)';

export const SOURCE_ROWS: readonly SourceContractRow[] = [
  { name: 'LocalFile (json)', file: 'source-contract.test.ts' },
  { name: 'S3File (json)', file: 's3file-contract.test.ts', notApplicable: S3_SOURCE_NOT_APPLICABLE },
  { name: 'FakeSource (rows)', file: 'source-contract.test.ts', notApplicable: FAKE_SOURCE_NOT_APPLICABLE },
  { name: 'Sequence', file: 'source-contract.test.ts', notApplicable: SEQUENCE_NOT_APPLICABLE },
  { name: 'Jdbc (PostgreSQL)', file: 'source-contract.test.ts' },
  { name: 'Redis (json strings)', file: 'redis-contract.test.ts', notApplicable: REDIS_SOURCE_NOT_APPLICABLE },
  { name: 'Http (json pages)', file: 'systems-contract.test.ts', notApplicable: HTTP_SOURCE_NOT_APPLICABLE },
  { name: 'Elasticsearch', file: 'elasticsearch-contract.test.ts', notApplicable: ELASTICSEARCH_SOURCE_NOT_APPLICABLE },
  {
    name: 'Elasticsearch (search_api_type = PIT)',
    file: 'elasticsearch-contract.test.ts',
    notApplicable: ELASTICSEARCH_PIT_SOURCE_NOT_APPLICABLE,
  },
  { name: 'Iceberg (hadoop catalog)', file: 'iceberg-source-contract.test.ts', notApplicable: ICEBERG_SOURCE_NOT_APPLICABLE },
  { name: 'Kafka', outOfScope: UNBOUNDED },
  {
    name: 'RabbitMQ',
    outOfScope:
      'streaming jobs only (SeaTunnel refuses BATCH too): the source contract reads bounded sources in batch jobs; test/systems/rabbitmq.test.ts runs its restores in jobs',
  },
  { name: 'MySQL-CDC', outOfScope: UNBOUNDED },
  { name: 'Postgres-CDC', outOfScope: UNBOUNDED },
];

/** The sources' markdown table of docs/plugins.md. */
export function sourceContractTable(): string {
  const { noteOf, notes } = footnotes();
  const rows = SOURCE_ROWS.map((r) => {
    const cells = SOURCE_CHECKS.map((c) => {
      const reason = r.outOfScope ?? r.notApplicable?.[c];
      return reason !== undefined ? noteOf(reason) : 'passes';
    });
    return `| ${r.name} | ${cells.join(' | ')} |`;
  });
  return [
    `| Source | ${SOURCE_CHECKS.join(' | ')} |`,
    `|${' --- |'.repeat(SOURCE_CHECKS.length + 1)}`,
    ...rows,
    '',
    ...notes.map((n, i) => `[${i + 1}] ${n}`),
  ].join('\n');
}
