import type { Place } from '@tideway/common';
import type { ConnectionSettings } from './connection-settings.js';
import { externalError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { MySqlConnection } from './mysql-connection.js';
import { PgConnection } from './pg-connection.js';

/** Opens a session for the settings' dialect; a refusal becomes one sentence with the place. */
export async function openConnection(s: ConnectionSettings, place: Place): Promise<JdbcConnection> {
  try {
    return s.dialect === 'postgresql' ? await PgConnection.open(s) : await MySqlConnection.open(s);
  } catch (err) {
    throw externalError(`connecting to ${s.dialect === 'postgresql' ? 'PostgreSQL' : 'MySQL'} at ${s.host}:${s.port}`, err, place, s);
  }
}
