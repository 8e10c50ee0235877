import type { OptionDef, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { connectionSettings, type ConnectionSettings } from './connection-settings.js';
import { checkDriver, parseJdbcUrl, type JdbcTarget } from './jdbc-url.js';

/** Options the Jdbc source and sink share: where and how to connect. */
export const CONNECTION_OPTIONS: readonly OptionDef[] = [
  {
    name: 'url',
    type: 'string',
    required: true,
    description:
      'JDBC URL: jdbc:postgresql://host:port/db, jdbc:mysql://host:port/db, jdbc:mariadb://host:port/db (driver parameters after `?`), jdbc:sqlite:/path/to/file.db (a database file; no parameters) or jdbc:firebirdsql://host:port/database-path-or-alias (Firebird 3; also jdbc:firebirdsql:host/port:path).',
  },
  {
    name: 'driver',
    type: 'string',
    required: true,
    description:
      'JDBC driver class; must fit the url (org.postgresql.Driver, com.mysql.cj.jdbc.Driver, org.mariadb.jdbc.Driver, org.sqlite.JDBC, org.firebirdsql.jdbc.FBDriver).',
  },
  { name: 'user', type: 'string', description: 'User name.' },
  { name: 'password', type: 'string', description: 'Password.' },
  {
    name: 'connection_check_timeout_sec',
    type: 'int',
    default: 30,
    min: 1,
    description: 'Seconds to wait for a connection to open and answer.',
  },
  { name: 'properties', type: 'map', description: 'Driver parameters; they take precedence over the same parameters in the url.' },
  {
    name: 'compatible_mode',
    type: 'string',
    description:
      "Compatibility mode of databases that speak several dialects; here only 'mysql' (for jdbc:mysql/mariadb urls) is meaningful.",
  },
];

/** The connection part of a Jdbc plugin's options, checked. */
export interface CompiledConnection {
  readonly target: JdbcTarget;
  readonly settings: ConnectionSettings;
}

/** Parses url, checks driver and compatible_mode, and builds the driver settings. */
export function compileConnection(options: PluginOptions, databaseOverride?: string): CompiledConnection {
  const target = parseJdbcUrl(options.get<string>('url'), options.place('url'));
  checkDriver(target, options.get<string>('driver'), options.place('driver'));
  if (options.has('compatible_mode')) {
    const mode = options.get<string>('compatible_mode');
    if (!(target.dialect === 'mysql' && mode.toLowerCase() === 'mysql')) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `compatible_mode '${mode}' is not supported for jdbc:${target.subprotocol} (it selects dialects of OceanBase, StarRocks or old PostgreSQL, which this connector does not speak)`,
        { place: options.place('compatible_mode') },
      );
    }
  }
  const t = databaseOverride !== undefined ? { ...target, database: databaseOverride } : target;
  const settings = connectionSettings(
    t,
    { user: options.get<string | undefined>('user'), password: options.get<string | undefined>('password') },
    options.get<Record<string, unknown> | undefined>('properties'),
    options.get<number>('connection_check_timeout_sec'),
    options.place('properties'),
  );
  return { target: t, settings };
}
