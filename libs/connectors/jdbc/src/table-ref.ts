import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import type { TablePath } from '@tideway/api';
import type { TableRef } from './jdbc-connection.js';
import type { DialectName } from './jdbc-url.js';

/**
 * Reads a table path as the dialect means it. PostgreSQL: `db.schema.table`, `schema.table`
 * or `table` (schema public); the database part must be the one connected to. MySQL:
 * `db.table` or `table`.
 */
export function resolveTableRef(dialect: DialectName, text: string, connectedDb: string | undefined, place: Place): TableRef {
  const parts = text.split('.').map((p) => p.trim().replace(/^["`](.*)["`]$/, '$1'));
  if (parts.some((p) => p === '')) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table path '${text}' has an empty part`, { place });
  }
  if (dialect === 'postgresql') {
    if (parts.length > 3)
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table path '${text}' has more than database.schema.table`, { place });
    if (parts.length === 3) {
      if (connectedDb !== undefined && parts[0] !== connectedDb) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `table path '${text}' names database '${parts[0]}', but the url connects to database '${connectedDb}' (PostgreSQL reads one database per connection)`,
          { place },
        );
      }
      return { database: parts[0], schema: parts[1], table: parts[2] };
    }
    if (parts.length === 2) return { database: connectedDb, schema: parts[0], table: parts[1] };
    return { database: connectedDb, schema: 'public', table: parts[0] };
  }
  if (dialect === 'firebird') {
    // One database per url; a leading part may only repeat its name.
    if (parts.length > 2 || (parts.length === 2 && parts[0] !== connectedDb)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table path '${text}' cannot be used: Firebird has no schemas and the url names the database, so give the table alone${connectedDb ? ` (or ${connectedDb}.table)` : ''}`,
        { place },
      );
    }
    return { database: connectedDb, table: parts[parts.length - 1] };
  }
  if (parts.length > 2)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table path '${text}' has more than database.table (MySQL has no schemas)`, {
      place,
    });
  if (parts.length === 2) return { database: parts[0], table: parts[1] };
  if (connectedDb === undefined) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table path '${text}' names no database, and the url has none either`, { place });
  }
  return { database: connectedDb, table: parts[0] };
}

/** The SeaTunnel TablePath of a table reference. */
export function tablePathOf(ref: TableRef): TablePath {
  return { database: ref.database, schema: ref.schema, table: ref.table };
}
