import { ConfigError, ErrorCode, type Place } from '@tideway/common';

/** The databases this connector speaks to. MariaDB uses the MySQL dialect. */
export type DialectName = 'postgresql' | 'mysql' | 'sqlite' | 'firebird';

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

const DEFAULT_PORTS: Record<string, number> = { postgresql: 5432, mysql: 3306, mariadb: 3306, firebirdsql: 3050 };

/** Driver class names that fit each dialect (SeaTunnel's docs and the drivers' own names). */
const DRIVERS: Record<DialectName, readonly string[]> = {
  postgresql: ['org.postgresql.Driver'],
  mysql: ['com.mysql.cj.jdbc.Driver', 'com.mysql.jdbc.Driver', 'org.mariadb.jdbc.Driver'],
  sqlite: ['org.sqlite.JDBC'],
  firebird: ['org.firebirdsql.jdbc.FBDriver'],
};

/** XA data source classes that fit each dialect (sink `xa_data_source_class_name`). */
const XA_DATA_SOURCES: Record<DialectName, readonly string[]> = {
  postgresql: ['org.postgresql.xa.PGXADataSource'],
  mysql: ['com.mysql.cj.jdbc.MysqlXADataSource', 'org.mariadb.jdbc.MariaDbDataSource', 'org.mariadb.jdbc.MariaXaResource'],
  sqlite: [],
  firebird: [],
};

const URL_SHAPE = /^jdbc:(postgresql|mysql|mariadb):\/\/(\[[^\]]+\]|[^/:?,]*)(?::(\d+))?(?:\/([^?]*))?(?:\?(.*))?$/i;

/**
 * Parses `jdbc:postgresql://host:port/db?k=v`, `jdbc:mysql://…` and `jdbc:mariadb://…`
 * (one host; the port defaults to the database's usual one).
 */
export function parseJdbcUrl(url: string, place: Place): JdbcTarget {
  if (/^jdbc:sqlite:/i.test(url.trim())) return parseSqliteUrl(url.trim(), place);
  if (/^jdbc:firebird(sql)?:/i.test(url.trim())) return parseFirebirdUrl(url.trim(), place);
  const m = URL_SHAPE.exec(url.trim());
  if (!m) {
    const kind = /^jdbc:([a-z0-9]+)[:]/i.exec(url)?.[1];
    const why =
      kind && !['postgresql', 'mysql', 'mariadb'].includes(kind.toLowerCase())
        ? `the ${kind} database is not supported (use jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://, jdbc:sqlite: or jdbc:firebirdsql://)`
        : 'expected jdbc:postgresql://host[:port]/database, jdbc:mysql://host[:port]/database or jdbc:mariadb://…';
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `url '${url}' cannot be used: ${why}`, { place });
  }
  const subprotocol = m[1].toLowerCase();
  const host = (m[2] || 'localhost').replace(/^\[|\]$/g, '');
  const port = m[3] ? Number(m[3]) : DEFAULT_PORTS[subprotocol];
  const params = urlParams(m[5]);
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
      allowed[target.dialect].length === 0
        ? `${option} '${className}' cannot be used with url jdbc:${target.subprotocol}: (this connector has no XA for it)`
        : `${option} '${className}' does not fit url jdbc:${target.subprotocol}:${target.dialect === 'sqlite' ? '' : '//'} (use ${allowed[target.dialect].join(' or ')})`,
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
  const params = urlParams(q < 0 ? undefined : rest.slice(q + 1));
  return { dialect: 'sqlite', subprotocol: 'sqlite', host: file, port: 0, database: 'main', params, file };
}

/** `k=v&k2=v2` (values percent-decoded), in order of appearance. */
function urlParams(query: string | undefined): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of (query ?? '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    params.set(decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq)), eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1)));
  }
  return params;
}

const FIREBIRD_URL = /^jdbc:firebird(?:sql)?:(?:\/\/(\[[^\]]+\]|[^/:?]+)(?::(\d+))?\/([^?]+)|([^/:?]+)(?:\/(\d+))?:([^?]+))(?:\?(.*))?$/i;

/**
 * Parses Jaybird's url forms: `jdbc:firebirdsql://host[:port]/path-or-alias` (an absolute path
 * then starts with a second slash: `//host:3050//data/db.fdb`) and the older
 * `jdbc:firebirdsql:host[/port]:path` (also with the `jdbc:firebird:` prefix). The database is
 * the path or alias as the server reads it.
 */
function parseFirebirdUrl(url: string, place: Place): JdbcTarget {
  const m = FIREBIRD_URL.exec(url);
  if (!m) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `url '${url}' cannot be used: expected jdbc:firebirdsql://host[:port]/database-path-or-alias or jdbc:firebirdsql:host[/port]:database-path`,
      { place },
    );
  }
  const host = (m[1] ?? m[4]).replace(/^\[|\]$/g, '');
  const port = Number(m[2] ?? m[5] ?? DEFAULT_PORTS.firebirdsql);
  const database = decodeURIComponent(m[3] ?? m[6]);
  return { dialect: 'firebird', subprotocol: 'firebirdsql', host, port, database, params: urlParams(m[7]) };
}
