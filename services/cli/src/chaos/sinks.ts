import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseJdbcUrl } from '@tideway/connector-jdbc';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  checkSequenceOutput,
  checkSequenceTable,
  createSequenceTable,
  pgSinkConnection,
  startPostgres,
  type PgTarget,
  type SequenceReport,
  type SequenceSink,
} from '@tideway/launchers';

/** The exactly-once sinks a chaos run can write into. */
export type ChaosSinkKind = 'localfile' | 'jdbc';

/** A PostgreSQL given on the command line (`--jdbc-url` and its login). */
export interface JdbcLogin {
  url: string;
  user: string;
  password: string;
}

/** A sink made ready for one run: the job's sink, and how to check what it committed. */
export interface ChaosSink {
  kind: ChaosSinkKind;
  spec: SequenceSink;
  /** Where the rows go, for the report. */
  where: string;
  check(keys: number, rowsPerKey: number): Promise<SequenceReport>;
  close(): Promise<void>;
}

/** Takes a `--jdbc-url` apart; only PostgreSQL has the XA sink the run checks. */
export function pgTargetOf(login: JdbcLogin): PgTarget {
  const t = parseJdbcUrl(login.url, { option: '--jdbc-url' });
  if (t.dialect !== 'postgresql' || !t.database) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${login.url} is not a PostgreSQL URL with a database: expected jdbc:postgresql://host[:port]/database (the chaos run checks PostgreSQL's XA sink)`,
      { place: { option: '--jdbc-url' } },
    );
  }
  return { host: t.host, port: t.port, database: t.database, user: login.user, password: login.password };
}

/** The transactional LocalFile sink, writing into `<dir>/out`. */
export function localFileSink(dir: string): ChaosSink {
  const path = join(dir, 'out');
  mkdirSync(path, { recursive: true });
  return {
    kind: 'localfile',
    spec: { kind: 'localfile', path },
    where: path,
    check: async (keys, rowsPerKey) => checkSequenceOutput(path, keys, rowsPerKey),
    close: async () => undefined,
  };
}

/**
 * The Jdbc XA sink into a new table `table` of the PostgreSQL at `login`, or of a private
 * PostgreSQL started here (libs/launchers, on a free port) when no login is given.
 */
export async function jdbcSink(table: string, login?: JdbcLogin): Promise<ChaosSink> {
  const server = login ? undefined : await startPostgres();
  try {
    const given = login ?? { url: server!.jdbcUrl, user: server!.user, password: server!.password };
    const target = pgTargetOf(given);
    await createSequenceTable(target, table);
    return {
      kind: 'jdbc',
      spec: { kind: 'jdbc', ...pgSinkConnection(given.url, given.user, given.password), table },
      where: `${given.url} table ${table}${server ? ' (a private PostgreSQL)' : ''}`,
      check: (keys, rowsPerKey) => checkSequenceTable(target, table, keys, rowsPerKey),
      close: async () => server?.stop(),
    };
  } catch (err) {
    await server?.stop();
    throw err;
  }
}
