import { ConfigError, ErrorCode, type Place } from '@tideway/common';

/** The databases this connector speaks to. MariaDB uses the MySQL dialect. */
export type DialectName = 'postgresql' | 'mysql' | 'sqlite';

/** A JDBC URL taken apart: where to connect and the driver parameters after `?`. */
export interface JdbcTarget {
  readonly dialect: DialectName;
  /** `postgresql`, `mysql` or `mariadb`, as written after `jdbc:`. */
  readonly subprotocol: string;
  readonly host: string;
  readonly port: number;
  /** The database in the URL path, when there is one. */
  readonly database?: string;
  /** URL parameters in order of appearance, values percent-decoded. */
  readonly params: ReadonlyMap<string, string>;
  /** SQLite: the database file (`jdbc:sqlite:/path/file.db`); the database is then `main`. */
  readonly file?: string;
}

const DEFAULT_PORTS: Record<string, number> = { postgresql: 5432, mysql: 3306, mariadb: 3306 };

/** Driver class names that fit each dialect (SeaTunnel's docs and the drivers' own names). */
const DRIVERS: Record<DialectName, readonly string[]> = {
  postgresql: ['org.postgresql.Driver'],
  mysql: ['com.mysql.cj.jdbc.Driver', 'com.mysql.jdbc.Driver', 'org.mariadb.jdbc.Driver'],
  sqlite: ['org.sqlite.JDBC'],
};

/** XA data source classes that fit each dialect (sink `xa_data_source_class_name`). */
const XA_DATA_SOURCES: Record<DialectName, readonly string[]> = {
  postgresql: ['org.postgresql.xa.PGXADataSource'],
  mysql: ['com.mysql.cj.jdbc.MysqlXADataSource', 'org.mariadb.jdbc.MariaDbDataSource', 'org.mariadb.jdbc.MariaXaResource'],
  sqlite: [],
};

const URL_SHAPE = /^jdbc:(postgresql|mysql|mariadb):\/\/(\[[^\]]+\]|[^/:?,]*)(?::(\d+))?(?:\/([^?]*))?(?:\?(.*))?$/i;

/**
 * Parses `jdbc:postgresql://host:port/db?k=v`, `jdbc:mysql://…` and `jdbc:mariadb://…`
 * (one host; the port defaults to the database's usual one).
 */
export function parseJdbcUrl(url: string, place: Place): JdbcTarget {
  if (/^jdbc:sqlite:/i.test(url.trim())) return parseSqliteUrl(url.trim(), place);
  const m = URL_SHAPE.exec(url.trim());
  if (!m) {
    const kind = /^jdbc:([a-z0-9]+)[:]/i.exec(url)?.[1];
    const why =
      kind && !['postgresql', 'mysql', 'mariadb'].includes(kind.toLowerCase())
        ? `the ${kind} database is not supported (use jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb:// or jdbc:sqlite:)`
        : 'expected jdbc:postgresql://host[:port]/database, jdbc:mysql://host[:port]/database or jdbc:mariadb://…';
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `url '${url}' cannot be used: ${why}`, { place });
  }
  const subprotocol = m[1].toLowerCase();
  const host = (m[2] || 'localhost').replace(/^\[|\]$/g, '');
  const port = m[3] ? Number(m[3]) : DEFAULT_PORTS[subprotocol];
  const params = new Map<string, string>();
  for (const pair of (m[5] ?? '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
    params.set(key, eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1)));
  }
  const database = m[4] ? decodeURIComponent(m[4]) : undefined;
  return {
    dialect: subprotocol === 'postgresql' ? 'postgresql' : 'mysql',
    subprotocol,
    host,
    port,
    database: database || undefined,
    params,
  };
}

function checkClassFits(
  option: string,
  allowed: Record<DialectName, readonly string[]>,
  target: JdbcTarget,
  className: string,
  place: Place,
): void {
  if (!allowed[target.dialect].includes(className.trim())) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${option} '${className}' does not fit url jdbc:${target.subprotocol}:${target.dialect === 'sqlite' ? '' : '//'} (use ${allowed[target.dialect].join(' or ')})`,
      { place },
    );
  }
}

/** Checks that `driver` is a driver class of the URL's database. */
export function checkDriver(target: JdbcTarget, driver: string, place: Place): void {
  checkClassFits('driver', DRIVERS, target, driver, place);
}

/** Checks that `className` is an XA data source of the URL's database. */
export function checkXaDataSource(target: JdbcTarget, className: string, place: Place): void {
  checkClassFits('xa_data_source_class_name', XA_DATA_SOURCES, target, className, place);
}

/** Parses `jdbc:sqlite:/path/file.db` (or a relative path, or `file:` URI form) with optional `?k=v` parameters. */
function parseSqliteUrl(url: string, place: Place): JdbcTarget {
  const rest = url.slice('jdbc:sqlite:'.length);
  const q = rest.indexOf('?');
  let file = q < 0 ? rest : rest.slice(0, q);
  if (file.startsWith('file:')) file = decodeURIComponent(file.slice('file:'.length).replace(/^\/\/(?=\/)/, ''));
  if (file === '' || file === ':memory:' || file.startsWith(':resource:')) {
    const why =
      file === ''
        ? 'it names no database file (expected jdbc:sqlite:/path/to/file.db)'
        : 'only database files are supported (every reader and writer opens its own connection, so an in-memory or resource database would not be shared)';
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `url '${url}' cannot be used: ${why}`, { place });
  }
  const params = new Map<string, string>();
  for (const pair of q < 0 ? [] : rest.slice(q + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    params.set(decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq)), eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1)));
  }
  return { dialect: 'sqlite', subprotocol: 'sqlite', host: file, port: 0, database: 'main', params, file };
}
