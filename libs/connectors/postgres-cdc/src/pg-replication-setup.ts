import { ConfigError, ErrorCode, TidewayError, logger, textOf } from '@tideway/common';
import { externalError, type JdbcConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import type { PgCdcConfig } from './pg-cdc-options.js';

const log = logger('postgres-cdc');

/** How long a slot's creation may wait before the transactions it waits for are logged, and how often after. */
const SLOT_WAIT_FIRST_WARN_MS = 5_000;
const SLOT_WAIT_WARN_EVERY_MS = 30_000;

/**
 * What a backend (`pid`) waits for, in one sentence: the prepared transactions (two-phase
 * commit, e.g. an XA sink's, left by a writer that died before it committed) and the sessions
 * whose transactions hold the locks it waits on; undefined when it waits for none.
 */
export async function describeBlockers(watcher: JdbcConnection, pid: number): Promise<string | undefined> {
  const prepared = await watcher.execute(
    `SELECT p.gid, p.database, p.prepared::text FROM pg_prepared_xacts p
       JOIN pg_locks l ON l.locktype = 'transactionid' AND l.transactionid = p.transaction AND l.pid = $1 AND NOT l.granted`,
    [pid],
  );
  const sessions = await watcher.execute(
    `SELECT a.pid, a.datname, a.xact_start::text, left(a.query, 120) FROM pg_stat_activity a
       WHERE a.pid = ANY(pg_blocking_pids($1)) AND a.pid <> 0`,
    [pid],
  );
  const parts = [
    ...prepared.rows.map(
      ([gid, db, at]) =>
        `prepared transaction '${textOf(gid)}' in database '${textOf(db)}' (prepared ${textOf(at)}; end it with COMMIT PREPARED or ROLLBACK PREPARED)`,
    ),
    ...sessions.rows.map(
      ([p, db, since, query]) =>
        `session ${textOf(p)} in database '${textOf(db)}' (transaction open since ${textOf(since)}: ${textOf(query)})`,
    ),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * Creates the slot. PostgreSQL first waits for every transaction running at that moment to end,
 * in any database of the server, prepared ones included: while it waits, the transactions it waits
 * for are logged (after 5 s, then every 30 s) on a second connection, so a creation that hangs
 * says why.
 */
async function createSlot(conn: JdbcConnection, cfg: PgCdcConfig, openWatcher?: () => Promise<JdbcConnection>) {
  const pid = openWatcher ? Number((await conn.execute('SELECT pg_backend_pid()')).rows[0][0]) : 0;
  let watcher: JdbcConnection | undefined;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const check = async () => {
    try {
      if (!watcher) {
        const opened = await openWatcher!();
        // The creation ended meanwhile: the finally below has run without this connection.
        if (done) return void (await opened.close().catch(() => undefined));
        watcher = opened;
      }
      const blockers = await describeBlockers(watcher, pid);
      if (blockers && !done)
        log.warn(
          { slot: cfg.slot, server: `${cfg.settings.host}:${cfg.settings.port}` },
          `creating replication slot '${cfg.slot}' waits for transactions that were running when it began to end: ${blockers}`,
        );
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'could not tell what the replication slot creation waits for');
    }
    if (!done) timer = setTimeout(later, SLOT_WAIT_WARN_EVERY_MS);
  };
  // check() catches what it meets; the catch here only keeps the promise handled.
  const later = (): void => {
    check().catch(() => undefined);
  };
  if (openWatcher) timer = setTimeout(later, SLOT_WAIT_FIRST_WARN_MS);
  try {
    return await conn.execute('SELECT lsn::text FROM pg_create_logical_replication_slot($1, $2)', [cfg.slot, cfg.decodingPlugin]);
  } finally {
    done = true;
    clearTimeout(timer);
    await watcher?.close().catch(() => undefined);
  }
}

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
 * confirmed position. `openWatcher` opens a second connection to tell what a slow slot creation
 * waits for.
 */
export async function ensurePublicationAndSlot(
  conn: JdbcConnection,
  cfg: PgCdcConfig,
  tables: readonly CapturedTable[],
  openWatcher?: () => Promise<JdbcConnection>,
): Promise<string> {
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
      const created = await createSlot(conn, cfg, openWatcher).catch((err: unknown) => {
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
