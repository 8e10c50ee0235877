import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import type { DialectName, JdbcTarget } from './jdbc-url.js';

/** Everything needed to open a session: address, login, TLS and session set-up. */
export interface ConnectionSettings {
  readonly dialect: DialectName;
  readonly host: string;
  readonly port: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly connectTimeoutMs: number;
  /** false, or TLS options for the driver. */
  readonly ssl: false | { rejectUnauthorized: boolean };
  /** Statements run right after connecting (search_path, time_zone, session variables). */
  readonly sessionSql: readonly string[];
  readonly applicationName?: string;
  readonly keepAlive: boolean;
  /** MySQL: let the client send several statements in one query (allowMultiQueries). */
  readonly multipleStatements: boolean;
  /** MySQL: read TINYINT(1) as BOOLEAN (Connector/J's tinyInt1isBit, default true). */
  readonly tinyInt1isBit: boolean;
  /** SQLite: the database file, and whether to open it read-only (a source: it must exist). */
  readonly file?: string;
  readonly readOnly?: boolean;
}

/** Driver parameters that change nothing here, and why they are safe to accept. */
const NO_EFFECT: Record<DialectName, Record<string, string>> = {
  postgresql: {
    reWriteBatchedInserts: 'rows are always written with COPY or multi-row statements',
    stringtype: 'parameters are always sent as untyped text',
    prepareThreshold: 'statements are not prepared server-side',
    binaryTransfer: 'values are read as text to keep exact precision',
    loggerLevel: "PgJDBC's own logging; the Node driver writes no log",
  },
  mysql: {
    useUnicode: 'the connection always uses utf8mb4',
    rewriteBatchedStatements: 'rows are always written as multi-row statements',
    allowPublicKeyRetrieval: 'the Node driver negotiates the authentication plugin itself',
    useServerPrepStmts: 'statements are sent as text',
    cachePrepStmts: 'statements are sent as text',
    useCursorFetch: 'result sets are always streamed',
    autoReconnect: 'the connector reconnects itself where that is safe',
    useSSL: '',
    requireSSL: '',
  },
  sqlite: {},
  firebird: {},
};

function bool(v: string): boolean {
  return v === '' || v.toLowerCase() === 'true' || v === '1';
}

/** Turns `GMT+8`, `UTC`, `+08:00`, `Asia/Shanghai` into a MySQL time_zone value. */
function mysqlTimeZone(tz: string): string {
  const m = /^(?:GMT|UTC)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(tz.trim());
  if (m) return `${m[1]}${m[2].padStart(2, '0')}:${m[3] ?? '00'}`;
  if (/^(GMT|UTC|Z)$/i.test(tz.trim())) return '+00:00';
  return tz;
}

function sqlString(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * Merges URL parameters with the `properties` option (properties win, as in Connector/J) into
 * driver settings. An unknown parameter is an error: silently dropping one could change what
 * is read or written.
 */
export function connectionSettings(
  target: JdbcTarget,
  login: { user?: string; password?: string },
  properties: Readonly<Record<string, unknown>> | undefined,
  connectionCheckTimeoutSec: number,
  place: Place,
): ConnectionSettings {
  const params = new Map(target.params);
  for (const [k, v] of Object.entries(properties ?? {})) params.set(k, String(v));
  let user = login.user;
  let password = login.password;
  let connectTimeoutMs = connectionCheckTimeoutSec * 1000;
  let ssl: ConnectionSettings['ssl'] = false;
  const sessionSql: string[] = [];
  let applicationName: string | undefined;
  let keepAlive = false;
  let multipleStatements = false;
  let tinyInt1isBit = true;
  const bad = (key: string, value: string, why: string) =>
    new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `url/properties parameter ${key}=${value} ${why}`, { place });

  if (target.dialect === 'sqlite') {
    const [key, value] = [...params].find(([k]) => k !== 'user' && k !== 'password') ?? [];
    if (key !== undefined) throw bad(key, value ?? '', 'is not supported for SQLite by this connector');
    if (user || password) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        'user and password are not supported for SQLite, which has no login (leave them empty)',
        {
          place,
        },
      );
    }
  }
  for (const [key, value] of params) {
    if (target.dialect === 'sqlite') break;
    if (target.dialect === 'firebird') {
      if (key === 'user') user ??= value;
      else if (key === 'password') password ??= value;
      else if (key === 'encoding' || key === 'lc_ctype' || key === 'charSet' || key === 'characterEncoding') {
        if (!/^utf-?8$/i.test(value)) throw bad(key, value, 'is not supported: the connector always reads and writes UTF8');
      } else if (key === 'connectTimeout') {
        connectTimeoutMs = Number(value) * 1000;
        if (!Number.isFinite(connectTimeoutMs)) throw bad(key, value, 'is not a number of seconds');
      } else throw bad(key, value, 'is not supported for Firebird by this connector');
      continue;
    }
    if (key in NO_EFFECT[target.dialect] && NO_EFFECT[target.dialect][key] !== '') continue;
    if (key === 'user') user ??= value;
    else if (key === 'password') password ??= value;
    else if (target.dialect === 'postgresql') {
      switch (key) {
        case 'ssl':
          ssl = bool(value) ? { rejectUnauthorized: false } : false;
          break;
        case 'sslmode':
          if (value === 'disable' || value === 'allow' || value === 'prefer') ssl = false;
          else if (value === 'require') ssl = { rejectUnauthorized: false };
          else if (value === 'verify-ca' || value === 'verify-full') ssl = { rejectUnauthorized: true };
          else throw bad(key, value, 'is not one of disable, allow, prefer, require, verify-ca, verify-full');
          break;
        case 'currentSchema':
          sessionSql.push(
            `SET search_path TO ${value
              .split(',')
              .map((s) => `"${s.trim().replace(/"/g, '""')}"`)
              .join(', ')}`,
          );
          break;
        case 'ApplicationName':
          applicationName = value;
          break;
        case 'connectTimeout':
        case 'loginTimeout':
          connectTimeoutMs = Number(value) * 1000;
          if (!Number.isFinite(connectTimeoutMs)) throw bad(key, value, 'is not a number of seconds');
          break;
        case 'tcpKeepAlive':
          keepAlive = bool(value);
          break;
        default:
          throw bad(key, value, 'is not supported for PostgreSQL by this connector');
      }
    } else {
      switch (key) {
        case 'useSSL':
        case 'requireSSL':
          if (bool(value)) ssl = { rejectUnauthorized: false };
          break;
        case 'sslMode': {
          const mode = value.toUpperCase();
          if (mode === 'DISABLED' || mode === 'PREFERRED') ssl = false;
          else if (mode === 'REQUIRED') ssl = { rejectUnauthorized: false };
          else if (mode === 'VERIFY_CA' || mode === 'VERIFY_IDENTITY') ssl = { rejectUnauthorized: true };
          else throw bad(key, value, 'is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY');
          break;
        }
        case 'characterEncoding':
          if (!/^utf-?8(mb4)?$/i.test(value)) throw bad(key, value, 'is not supported: the connector always reads and writes utf8mb4');
          break;
        case 'serverTimezone':
        case 'connectionTimeZone':
          sessionSql.push(`SET time_zone = ${sqlString(mysqlTimeZone(value))}`);
          break;
        case 'connectTimeout':
          connectTimeoutMs = Number(value);
          if (!Number.isFinite(connectTimeoutMs)) throw bad(key, value, 'is not a number of milliseconds');
          break;
        case 'allowMultiQueries':
          multipleStatements = bool(value);
          break;
        case 'tinyInt1isBit':
          tinyInt1isBit = bool(value);
          break;
        case 'tcpKeepAlive':
          keepAlive = bool(value);
          break;
        case 'sessionVariables':
          for (const assignment of value.split(/[,;]/)) if (assignment.trim()) sessionSql.push(`SET SESSION ${assignment.trim()}`);
          break;
        default:
          throw bad(key, value, 'is not supported for MySQL/MariaDB by this connector');
      }
    }
  }
  return {
    dialect: target.dialect,
    host: target.host,
    port: target.port,
    database: target.database,
    user,
    password,
    connectTimeoutMs,
    ssl,
    sessionSql,
    applicationName,
    keepAlive,
    multipleStatements,
    tinyInt1isBit,
    file: target.file,
  };
}
