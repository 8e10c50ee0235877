/**
 * Job configs of the CDC end-to-end tests: a CDC source into the Jdbc sink writing each
 * captured table to the target table of the same name (`${table_name}`, `${primary_key}`), as
 * SeaTunnel documents for multi-table sinks, in XA transactions committed at checkpoints.
 */
import type { TestDatabaseServer } from '@tideway/testing';

export interface CdcJobOptions {
  /** The source block, e.g. `Postgres-CDC { ... }` without the plugin_output line. */
  readonly plugin: 'Postgres-CDC' | 'MySQL-CDC';
  readonly source: TestDatabaseServer;
  /** Fully qualified table names as the connector takes them. */
  readonly tables: readonly string[];
  /** table-pattern instead of table-names (then `tables` is not written). */
  readonly tablePattern?: string;
  /** The XA sink's schema_save_mode (default ERROR_WHEN_SCHEMA_NOT_EXIST: the test made the targets). */
  readonly schemaSaveMode?: string;
  /** More source options, HOCON lines. */
  readonly sourceExtra?: string;
  /** The PostgreSQL target and its database. */
  readonly target: TestDatabaseServer;
  readonly targetDatabase: string;
  /** Replaces the sink block (default: the XA PostgreSQL sink above). */
  readonly sink?: string;
  /** env.parallelism (default 1). */
  readonly parallelism?: number;
  /** More env options, e.g. a read limit. */
  readonly envExtra?: string;
}

const quote = (s: string) => JSON.stringify(s);

export function cdcJobConfig(o: CdcJobOptions): string {
  return `
env {
  job.mode = "STREAMING"
  parallelism = ${o.parallelism ?? 1}
  checkpoint.interval = 500
  ${o.envExtra ?? ''}
}
source {
  ${o.plugin} {
    plugin_output = "cdc"
    base-url = ${quote(o.source.jdbcUrl)}
    username = ${quote(o.source.user)}
    password = ${quote(o.source.password)}
    ${o.tablePattern !== undefined ? `table-pattern = ${quote(o.tablePattern)}` : `table-names = [${o.tables.map(quote).join(', ')}]`}
    ${o.sourceExtra ?? ''}
  }
}
sink {
  ${o.sink ?? xaPostgresSink(o)}
}
`;
}

function xaPostgresSink(o: CdcJobOptions): string {
  return `Jdbc {
    plugin_input = "cdc"
    url = ${quote(`jdbc:postgresql://${o.target.host}:${o.target.port}/${o.targetDatabase}`)}
    driver = "org.postgresql.Driver"
    user = ${quote(o.target.user)}
    password = ${quote(o.target.password)}
    generate_sink_sql = true
    table = "\${table_name}"
    primary_keys = ["\${primary_key}"]
    schema_save_mode = ${quote(o.schemaSaveMode ?? 'ERROR_WHEN_SCHEMA_NOT_EXIST')}
    # Small batches: rows reach the database between checkpoints, so a replay would show.
    batch_size = 5
    is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"
  }`;
}
