import ZongJi from '@vlasky/zongji';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { QueuedChangeStream, type ChangeTxn } from '@tideway/connector-cdc-common';
import { externalError, openConnection, type ConnectionSettings } from '@tideway/connector-jdbc';
import { binlogVersion, type BinlogPosition } from './binlog-position.js';
import { binlogConverter, type BinlogValueConverter } from './binlog-values.js';
import { applyDdl, type MySqlSchemaRecord, type TrackedTable } from './mysql-schema.js';

interface TableDecoding {
  readonly table: TrackedTable;
  readonly names: readonly string[];
  readonly converters: readonly BinlogValueConverter[];
}

/** How the stream follows DDL: schema-changes.enabled, and how TINYINT(1) reads. */
export interface SchemaFollowing {
  readonly enabled: boolean;
  readonly tinyInt1isBit: boolean;
  /** With table-pattern / database-pattern: whether a table of this name would be captured. */
  readonly matches?: (database: string, table: string) => boolean;
  /** Reads a table created while streaming that `matches` selects: its columns and key, on a session of its own. */
  readonly discover?: (database: string, table: string) => Promise<TrackedTable>;
}

const CREATE_TABLE = /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`[^`]+`|[\w$]+)(?:\.(`[^`]+`|[\w$]+))?/i;

interface ZTableMapEvent {
  tableId: number;
  schemaName: string;
  tableName: string;
}

interface ZongJiInternals {
  tableMap: Record<number, { parentSchema: string; tableName: string }>;
  /** zongji's compiled includeSchema filter, read when each table map event is parsed. */
  _includeSchemaMap: Map<string, true | Set<string>> | undefined;
  _fetchTableInfo(e: ZTableMapEvent, next: () => void): void;
  ctrlConnection: { end(): void; on(e: 'error', f: () => void): void } | null;
  ctrlConnectionOwner: boolean;
  connection: { threadId: number | null } | null;
}

interface ZEvent {
  getEventName(): string;
  nextPosition: number;
  size: number;
  /** The event header's time, epoch milliseconds (the binlog keeps whole seconds). */
  timestamp: number;
  binlogName?: string;
  query?: string;
  /** Query events: the session's default database. */
  schema?: string;
  tableId?: number;
  tableMap?: Record<number, { parentSchema: string; tableName: string }>;
  rows?: Record<string, unknown>[] | { before: Record<string, unknown>; after: Record<string, unknown> }[];
}

/**
 * The binlog (ROW format) through zongji, as a change stream. A transaction starts at its GTID
 * (or BEGIN) event; that event's position is where a restart replays it. Commits (XID, COMMIT)
 * and DDL statements end one. The binlog is never "confirmed": the position lives in checkpoints.
 * With `notBeforeMs` (startup.mode = timestamp), the changes of transactions that began earlier
 * are dropped (their commits still advance the position).
 */
export class BinlogStream extends QueuedChangeStream<BinlogPosition> {
  private file: string;
  private txn: ChangeTxn<BinlogPosition> | undefined;
  /** The transaction in progress began before notBeforeMs. */
  private early = false;
  private readonly zongji: ZongJi;
  /** The server thread of the binlog dump, once zongji's control connection is closed. */
  private dumpThread: number | undefined;
  private readonly decodings = new Map<string, TableDecoding>();
  /**
   * While a table created in the binlog is being read (a query): the events that arrive
   * meanwhile, processed in order once it is known; `adding` resolves then.
   */
  private waiting: ZEvent[] | undefined;
  private adding: Promise<void> | undefined;

  constructor(
    private readonly settings: ConnectionSettings,
    private record: MySqlSchemaRecord,
    serverId: number,
    start: BinlogPosition,
    private readonly place: Place,
    private readonly following: SchemaFollowing,
    private readonly notBeforeMs?: number,
  ) {
    super();
    this.file = start.file;
    for (const t of record.tables) this.track(t);
    this.zongji = new ZongJi({
      host: settings.host,
      port: settings.port,
      user: settings.user,
      password: settings.password,
      connectTimeout: settings.connectTimeoutMs,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      jsonStrings: true,
      timezone: 'Z',
    });
    // Rows are decoded with the columns as they were where the binlog was written (the record),
    // not with the table's current columns, which a later DDL may have changed.
    const internals = this.zongji as unknown as ZongJiInternals;
    const fetchCurrent = internals._fetchTableInfo.bind(this.zongji);
    internals._fetchTableInfo = (e, next) => {
      // A new table's first table map may come before its columns are read: wait for them.
      if (this.adding && !this.decodings.has(`${e.schemaName}.${e.tableName}`)) {
        // (A failure is the stream's: addTable reports it.)
        this.adding.then(
          () => internals._fetchTableInfo(e, next),
          () => undefined,
        );
        return;
      }
      const d = this.decodings.get(`${e.schemaName}.${e.tableName}`);
      if (!d) return fetchCurrent(e, next);
      internals.tableMap[e.tableId] = {
        columnSchemas: d.table.columns.map((c) => ({
          COLUMN_NAME: c.name,
          COLLATION_NAME: c.collation,
          CHARACTER_SET_NAME: c.charset,
          COLUMN_COMMENT: '',
          COLUMN_TYPE: c.columnType,
        })),
        parentSchema: e.schemaName,
        tableName: e.tableName,
      } as ZongJiInternals['tableMap'][number];
      next();
    };
    // Once the dump runs, zongji's control connection only serves table lookups the record
    // answers: closed, the source holds one connection per user while streaming (the dump), as
    // SeaTunnel's IT checks. close() then ends the dump thread on a short session of its own.
    this.zongji.once('ready', () => {
      const ctrl = internals.ctrlConnection;
      this.dumpThread = internals.connection?.threadId ?? undefined;
      if (!ctrl || !internals.ctrlConnectionOwner) return;
      ctrl.on('error', () => {});
      ctrl.end();
      internals.ctrlConnection = null;
    });
    this.zongji.on('binlog', (e: unknown) => this.onEvent(e as ZEvent));
    this.zongji.on('error', (err: Error) => this.fail(externalError('reading the binlog', err, place, settings)));
    const includeSchema: Record<string, string[]> = {};
    for (const t of record.tables) (includeSchema[t.database] ??= []).push(t.table);
    this.zongji.start({
      serverId,
      filename: start.file,
      position: start.pos,
      includeEvents: ['rotate', 'tablemap', 'writerows', 'updaterows', 'deleterows', 'xid', 'query', 'gtid', 'mariadbgtid'],
      includeSchema,
    });
  }

  /** The binlog keeps no consumer position; checkpoints hold it. */
  async confirm(): Promise<void> {}

  async close(): Promise<void> {
    this.markClosed(new TidewayError(ErrorCode.INTERNAL, 'the binlog stream is closed'));
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000);
      this.zongji.once('stopped', () => {
        clearTimeout(t);
        resolve();
      });
      this.zongji.stop();
    });
    if (this.dumpThread === undefined) return;
    const thread = this.dumpThread;
    this.dumpThread = undefined;
    try {
      const conn = await openConnection(this.settings, this.place);
      // Gone already when the server saw the socket close: nothing to do then.
      await conn.execute(`KILL ${thread}`).catch(() => undefined);
      await conn.close();
    } catch {
      // The dump thread ends by itself when the server next writes to the closed socket.
    }
  }

  protected pauseInput(): void {
    this.zongji.connection?.pause();
  }

  protected resumeInput(): void {
    this.zongji.connection?.resume();
  }

  private onEvent(e: ZEvent): void {
    if (this.waiting) {
      this.waiting.push(e);
      return;
    }
    try {
      switch (e.getEventName()) {
        case 'rotate':
          this.file = e.binlogName!;
          return;
        case 'gtid':
        case 'mariadbgtid':
          this.begin(e);
          return;
        case 'query': {
          const q = (e.query ?? '').trim().toUpperCase();
          if (q === 'BEGIN') this.begin(e);
          else if (q === 'COMMIT' || !this.ddl(e)) this.commit(e); // COMMIT of a non-transactional group, or a statement about no captured table
          return;
        }
        case 'xid':
          this.commit(e);
          return;
        case 'writerows':
        case 'updaterows':
        case 'deleterows':
          this.rows(e);
          return;
        default:
          return;
      }
    } catch (err) {
      this.fail(err);
    }
  }

  private begin(e: ZEvent): void {
    if (this.txn) return; // MySQL: GTID event, then BEGIN
    const start = { file: this.file, pos: e.nextPosition - e.size };
    // The binlog stamps a transaction's events with the time its first statement began, in
    // whole seconds: the event-time lag of MariaDB and MySQL is that coarse.
    this.txn = { resume: start, dedup: start, commitTimeMs: e.timestamp, version: binlogVersion(start) };
    this.early = this.notBeforeMs !== undefined && e.timestamp < this.notBeforeMs;
  }

  private track(t: TrackedTable): void {
    this.decodings.set(`${t.database}.${t.table}`, {
      table: t,
      names: t.catalog.columns.map((c) => c.name),
      converters: t.catalog.columns.map((c) => binlogConverter(c.type)),
    });
  }

  /** A DDL statement about captured tables: a schema item (its own transaction). False when it changes none. */
  private ddl(e: ZEvent): boolean {
    const created = this.following.matches && CREATE_TABLE.exec(e.query ?? '');
    if (created) {
      const bare = (n: string) => n.replace(/^`|`$/g, '');
      const [database, table] = created[2] !== undefined ? [bare(created[1]), bare(created[2])] : [e.schema ?? '', bare(created[1])];
      if (!this.decodings.has(`${database}.${table}`) && this.following.matches(database, table)) {
        this.addTable(database, table, { file: this.file, pos: e.nextPosition });
        return true;
      }
    }
    const applied = applyDdl(this.record, e.query ?? '', e.schema ?? '', this.following.enabled, this.following.tinyInt1isBit, this.place);
    if (!applied) return false;
    this.record = applied.record;
    const internals = this.zongji as unknown as ZongJiInternals;
    for (const ev of applied.events) {
      const t = this.record.tables.find((x) => x.catalog.tableId === ev.tableId)!;
      this.track(t);
      // The next table map of the table must fetch its columns again (from the record).
      for (const [id, m] of Object.entries(internals.tableMap))
        if (m.parentSchema === t.database && m.tableName === t.table) delete internals.tableMap[Number(id)];
    }
    this.txn = undefined;
    this.push({ type: 'schema', events: applied.events, schema: this.record, next: { file: this.file, pos: e.nextPosition } });
    return true;
  }

  /**
   * A CREATE TABLE that the patterns select: the table joins the captured set from this binlog
   * position on (every row it ever had follows in the binlog, so no snapshot is needed). Its
   * columns are read on a session of its own; events arriving meanwhile wait, and zongji's
   * filter admits the table at once so that its first table map is not dropped as foreign.
   */
  private addTable(database: string, table: string, next: BinlogPosition): void {
    const internals = this.zongji as unknown as ZongJiInternals;
    const filter = internals._includeSchemaMap;
    const entry = filter?.get(database);
    if (filter && entry !== true) filter.set(database, new Set([...(entry ?? []), table]));
    this.txn = undefined;
    this.waiting = [];
    this.zongji.connection?.pause();
    const discover = this.following.discover;
    this.adding = (async () => {
      if (!discover) throw new TidewayError(ErrorCode.INTERNAL, `table ${database}.${table}: no way to read a created table's columns`);
      const t = await discover(database, table);
      this.record = { tables: [...this.record.tables, t] };
      this.track(t);
      this.push({
        type: 'schema',
        events: [{ type: 'schema-change', tableId: t.catalog.tableId, changes: [], table: t.catalog, created: true }],
        schema: this.record,
        next,
      });
    })();
    this.adding.then(
      () => {
        const held = this.waiting ?? [];
        this.waiting = undefined;
        this.adding = undefined;
        for (let n = 0; n < held.length; n++) {
          this.onEvent(held[n]);
          if (this.waiting) {
            // Another created table: the rest waits behind it.
            (this.waiting as ZEvent[]).push(...held.slice(n + 1));
            return;
          }
        }
        if (!this.full) this.resumeInput();
      },
      (err: unknown) =>
        this.fail(
          err instanceof TidewayError
            ? err
            : externalError(`reading the columns of table ${database}.${table}, created while streaming`, err, this.place),
        ),
    );
  }

  private commit(e: ZEvent): void {
    this.txn = undefined;
    this.push({ type: 'commit', next: { file: this.file, pos: e.nextPosition } });
  }

  private rows(e: ZEvent): void {
    const map = e.tableMap![e.tableId!];
    const d = this.decodings.get(`${map.parentSchema}.${map.tableName}`);
    if (!d || !this.txn || this.early) return;
    const txn = this.txn;
    const tableId = d.table.catalog.tableId;
    const name = e.getEventName();
    for (const r of e.rows!) {
      if (name === 'writerows') this.push({ type: 'change', txn, tableId, op: 'insert', before: null, after: this.row(d, r) });
      else if (name === 'deleterows') this.push({ type: 'change', txn, tableId, op: 'delete', before: this.row(d, r), after: null });
      else {
        const u = r as { before: Record<string, unknown>; after: Record<string, unknown> };
        this.push({ type: 'change', txn, tableId, op: 'update', before: this.row(d, u.before), after: this.row(d, u.after) });
      }
    }
  }

  private row(d: TableDecoding, values: Record<string, unknown>): unknown[] {
    const out = new Array<unknown>(d.names.length);
    for (let i = 0; i < d.names.length; i++) {
      const v = values[d.names[i]];
      if (v === undefined && !(d.names[i] in values)) {
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `a binlog row of table ${d.table.catalog.tableId} has no column '${d.names[i]}': binlog_row_image is not FULL, or the table changed in a way the binlog did not record`,
          { place: this.place },
        );
      }
      out[i] = v === null || v === undefined ? null : d.converters[i](v);
    }
    return out;
  }
}
