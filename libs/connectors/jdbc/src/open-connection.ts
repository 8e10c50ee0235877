import type { Place } from '@tideway/common';
import type { ConnectionSettings } from './connection-settings.js';
import { externalError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';

/**
 * Opens a session for the settings' dialect; a refusal becomes one sentence with the place. The
 * dialect's driver (pg, mysql2, better-sqlite3 or node-firebird) is imported here, on first use: a job loads only its own.
 */
export async function openConnection(s: ConnectionSettings, place: Place): Promise<JdbcConnection> {
  try {
    if (s.dialect === 'postgresql') return await (await import('./pg-connection.js')).PgConnection.open(s);
    if (s.dialect === 'sqlite') return await (await import('./sqlite-connection.js')).SqliteConnection.open(s);
    if (s.dialect === 'firebird') return await (await import('./firebird-connection.js')).FirebirdConnection.open(s);
    return await (await import('./mysql-connection.js')).MySqlConnection.open(s);
  } catch (err) {
    const where =
      s.dialect === 'sqlite'
        ? `SQLite database file ${s.file}${s.readOnly ? ' (to read)' : ''}`
        : s.dialect === 'firebird'
          ? `Firebird at ${s.host}:${s.port} (database ${s.database})`
          : `${s.dialect === 'postgresql' ? 'PostgreSQL' : 'MySQL'} at ${s.host}:${s.port}`;
    throw externalError(`connecting to ${where}`, err, place, s);
  }
}
