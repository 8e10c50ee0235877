import { ConfigError, ErrorCode, TidewayError, textOf } from '@tideway/common';
import { externalError, type JdbcConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import type { PgCdcConfig } from './pg-cdc-options.js';

/** Fails with one sentence when the server cannot do logical replication. */
export async function checkLogicalReplication(conn: JdbcConnection, cfg: PgCdcConfig): Promise<void> {
  const level = String((await conn.execute('SHOW wal_level')).rows[0]?.[0]);
  if (level !== 'logical') {
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `PostgreSQL at ${cfg.settings.host}:${cfg.settings.port} has wal_level=${level}; Postgres-CDC needs wal_level=logical (set it in postgresql.conf and restart the server)`,
      { place: cfg.place },
    );
  }
}

/**
 * Makes sure the publication covers every captured table (creating it, or adding tables to it;
 * with table-pattern / database-pattern it is FOR ALL TABLES, so tables created later are
 * published from their first row) and that the slot exists with pgoutput; returns the slot's
 * confirmed position.
 */
export async function ensurePublicationAndSlot(conn: JdbcConnection, cfg: PgCdcConfig, tables: readonly CapturedTable[]): Promise<string> {
  const quote = (s: string) => conn.quote(s);
  const list = tables.map((t) => conn.tableSql(t.ref)).join(', ');
  try {
    const pub =
      cfg.decodingPlugin === 'pgoutput'
        ? await conn.execute('SELECT puballtables FROM pg_publication WHERE pubname = $1', [cfg.publication])
        : undefined;
    const byPattern = cfg.tablePattern !== undefined || cfg.databasePattern !== undefined;
    if (!pub) {
      // decoderbufs decodes every table of the database: there is no publication to set up.
    } else if (byPattern) {
      // Tables created while the job runs must be published from their first row: only a
      // FOR ALL TABLES publication is (adding a table later would miss the rows before it).
      if (pub.rows.length === 0) {
        await conn.execute(`CREATE PUBLICATION ${quote(cfg.publication)} FOR ALL TABLES WITH (publish = 'insert, update, delete')`);
      } else if (pub.rows[0][0] !== 't' && pub.rows[0][0] !== true) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `publication '${cfg.publication}' lists its tables, so tables that table-pattern / database-pattern select after the start would not be published: drop it (Postgres-CDC then creates it FOR ALL TABLES) or name the tables in table-names`,
          { place: cfg.place },
        );
      }
    } else if (pub.rows.length === 0) {
      await conn.execute(`CREATE PUBLICATION ${quote(cfg.publication)} FOR TABLE ${list} WITH (publish = 'insert, update, delete')`);
    } else if (pub.rows[0][0] !== 't') {
      const have = await conn.execute('SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1', [cfg.publication]);
      const present = new Set(have.rows.map((r) => `${textOf(r[0])}.${textOf(r[1])}`));
      const missing = tables.filter((t) => !present.has(`${t.ref.schema}.${t.ref.table}`));
      if (missing.length > 0)
        await conn.execute(`ALTER PUBLICATION ${quote(cfg.publication)} ADD TABLE ${missing.map((t) => conn.tableSql(t.ref)).join(', ')}`);
    }
    const slot = await conn.execute('SELECT plugin, database, confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1', [
      cfg.slot,
    ]);
    if (slot.rows.length === 0) {
      const created = await conn
        .execute('SELECT lsn::text FROM pg_create_logical_replication_slot($1, $2)', [cfg.slot, cfg.decodingPlugin])
        .catch((err: unknown) => {
          if (!/may not be used as an output plugin|could not access file/i.test(String((err as Error)?.message))) throw err;
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `PostgreSQL at ${cfg.settings.host}:${cfg.settings.port} cannot create a ${cfg.decodingPlugin} replication slot (${(err as Error).message}): install the output plugin (Debian: postgresql-NN-${cfg.decodingPlugin}) and, where the server has output_plugin_libraries, list it there`,
            { place: cfg.place },
          );
        });
      return String(created.rows[0][0]);
    }
    const [plugin, database, lsn] = slot.rows[0].map(String);
    if (plugin !== cfg.decodingPlugin || database !== cfg.database) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `replication slot '${cfg.slot}' exists for plugin ${plugin} in database '${database}'; Postgres-CDC needs a ${cfg.decodingPlugin} slot in '${cfg.database}' (choose another slot.name)`,
        { place: cfg.place },
      );
    }
    return lsn;
  } catch (err) {
    throw err instanceof TidewayError
      ? err
      : externalError(`setting up publication '${cfg.publication}' and replication slot '${cfg.slot}'`, err, cfg.place);
  }
}
