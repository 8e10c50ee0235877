import pg from 'pg';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { QueuedChangeStream, type ChangeTxn } from '@tideway/connector-cdc-common';
import { externalError, type ValueDecoder } from '@tideway/connector-jdbc';
import { formatLsn, parseLsn } from './lsn.js';
import { DecoderbufsMessages } from './decoderbufs-messages.js';
import { decodePgOutput, UNCHANGED_TOAST, type PgOutputMessage, type RelationColumn, type TupleValue } from './pgoutput.js';
import {
  relationChange,
  sameColumns,
  type PgSchemaRecord,
  type ResolvedColumns,
  type TrackedPgColumn,
  type TrackedPgTable,
} from './pg-schema.js';

/** How the stream follows relation changes: schema-changes.enabled, and where column types are resolved. */
export interface RelationFollowing {
  readonly enabled: boolean;
  /** Decoders and definitions of a table's relation columns (a query on a regular session). */
  resolve(key: string, columns: readonly TrackedPgColumn[]): Promise<ResolvedColumns>;
  /** With table-pattern / database-pattern: whether a table (schema, name) not captured yet is selected. */
  readonly matches?: (schema: string, table: string) => boolean;
  /**
   * decoderbufs: a table's columns as the catalog has them now (type modifiers, which its
   * messages lack) and whether its replica identity is FULL (old rows then are whole).
   */
  describe?(schema: string, table: string): Promise<{ columns: TrackedPgColumn[]; fullIdentity: boolean }>;
  /** A selected table first seen in the stream (created while streaming): its record entry, from the relation's columns. */
  discover?(
    schema: string,
    table: string,
    columns: readonly TrackedPgColumn[],
  ): Promise<{ table: TrackedPgTable; resolved: ResolvedColumns }>;
}

/** Where to connect, and what to stream. */
export interface ReplicationTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  readonly password: string;
  readonly connectTimeoutMs: number;
  readonly timeZone: string;
  readonly slot: string;
  /** The slot's output plugin. */
  readonly plugin: 'pgoutput' | 'decoderbufs';
  readonly publication: string;
  readonly place: Place;
}

/** Dedup data of a PostgreSQL transaction: its xid and the LSN of its commit record. */
export interface PgTxnDedup {
  readonly xid: number;
  readonly commitLsn: bigint;
}

interface RelationMapping {
  readonly tableId: string;
  /** decoderbufs: old rows are whole (REPLICA IDENTITY FULL), not the key alone. */
  readonly fullIdentity?: boolean;
  /** Row fields follow the relation's columns. */
  readonly names: readonly string[];
  readonly decoders: readonly ValueDecoder[];
}

const PG_EPOCH_MICROS = 946_684_800_000_000n;
const STATUS_INTERVAL_MS = 10_000;

/**
 * Logical replication over PostgreSQL's streaming protocol (pgoutput, or decoderbufs turned into
 * the same messages), on a pg client in replication mode. Items are queued as they arrive; the slot's confirmed position moves only
 * through confirm(), i.e. after a checkpoint completed.
 */
export class PgReplicationStream extends QueuedChangeStream<string> {
  private readonly relations = new Map<number, RelationMapping | null>();
  private txn: ChangeTxn<string> | undefined;
  private lastCommitEnd: string;
  /** The start position: transactions whose commit record lies before it are dropped. */
  private readonly startLsn: bigint;
  /** Inside a transaction committed before the start position. */
  private skipping = false;
  private received = 0n;
  private confirmed: bigint;
  private timer: NodeJS.Timeout | undefined;
  /** Messages that arrived while a relation's columns were being resolved, in order. */
  private backlog: Buffer[] = [];
  private resolving = false;
  /** Counts resolutions begun, so that only the last one begun drains the backlog. */
  private resolutions = 0;
  /** Decoders by table and column signature. */
  private readonly decoderCache = new Map<string, readonly ValueDecoder[]>();
  /** decoderbufs slots: its messages, turned into pgoutput's. */
  private readonly decoderbufs: DecoderbufsMessages | undefined;
  /** decoderbufs: a transaction that began before the start position, held until its commit shows whether it ended before it. */
  private undecided: PgOutputMessage[] | undefined;

  private constructor(
    private readonly client: pg.Client,
    private record: PgSchemaRecord,
    private readonly following: RelationFollowing,
    private readonly target: ReplicationTarget,
    start: string,
  ) {
    super();
    this.lastCommitEnd = start;
    this.confirmed = parseLsn(start);
    this.startLsn = this.confirmed;
    if (target.plugin === 'decoderbufs') {
      this.decoderbufs = new DecoderbufsMessages({
        captures: (schema, table) => this.record.tables.some((t) => t.key === `${schema}.${table}`) || !!following.matches?.(schema, table),
        describe: (schema, table) => following.describe!(schema, table),
        relation: (oid) => this.relations.get(oid) ?? undefined,
        handle: (m) => this.handle(m),
        whileResolving: (what, work) => this.whileResolving(what, work),
        again: (chunk) => this.backlog.unshift(chunk),
        timeZone: target.timeZone,
        place: target.place,
      });
    }
  }

  /** Connects and starts streaming from `start` (transactions committed before it are skipped). */
  static async open(
    target: ReplicationTarget,
    record: PgSchemaRecord,
    following: RelationFollowing,
    start: string,
  ): Promise<PgReplicationStream> {
    const client = new pg.Client({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
      replication: 'database',
      connectionTimeoutMillis: target.connectTimeoutMs,
      // pgoutput renders values with the walsender's settings: make them the Jdbc decoders' forms.
      options: `-c DateStyle=ISO,YMD -c TimeZone=${target.timeZone.replace(/[\s\\]/g, '')} -c IntervalStyle=iso_8601 -c bytea_output=hex -c extra_float_digits=3`,
    } as pg.ClientConfig);
    const stream = new PgReplicationStream(client, record, following, target, start);
    client.on('error', (err) => stream.fail(err));
    try {
      await client.connect();
    } catch (err) {
      throw externalError(`connecting to PostgreSQL at ${target.host}:${target.port} for logical replication`, err, target.place, target);
    }
    const conn = (client as unknown as { connection: { on(e: string, f: (m: { chunk: Buffer }) => void): void } }).connection;
    conn.on('copyData', (msg) => stream.onCopyData(msg.chunk));
    const options =
      target.plugin === 'pgoutput'
        ? ` (proto_version '1', publication_names '"${target.publication.replace(/"/g, '""').replace(/'/g, "''")}"')`
        : '';
    const sql = `START_REPLICATION SLOT "${target.slot.replace(/"/g, '""')}" LOGICAL ${start}${options}`;
    client
      .query(sql)
      .catch((err: unknown) => stream.fail(externalError(`streaming from replication slot '${target.slot}'`, err, target.place)));
    stream.timer = setInterval(() => stream.sendStatus(), STATUS_INTERVAL_MS);
    stream.timer.unref();
    return stream;
  }

  async confirm(position: string): Promise<void> {
    const lsn = parseLsn(position);
    if (lsn > this.confirmed) this.confirmed = lsn;
    this.sendStatus();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.markClosed(new TidewayError(ErrorCode.INTERNAL, 'the replication stream is closed'));
    await this.client.end().catch(() => undefined);
  }

  private socket(): { pause(): void; resume(): void } | undefined {
    return (this.client as unknown as { connection: { stream?: { pause(): void; resume(): void } } }).connection.stream;
  }

  protected override asStreamError(err: unknown): Error {
    return err instanceof TidewayError
      ? err
      : externalError(`streaming from replication slot '${this.target.slot}'`, err, this.target.place);
  }

  protected pauseInput(): void {
    this.socket()?.pause();
  }

  protected resumeInput(): void {
    this.socket()?.resume();
  }

  /** Standby status: written = received, flushed = applied = confirmed (what the slot may drop). */
  private sendStatus(): void {
    if (this.failed) return;
    const buf = Buffer.alloc(34);
    buf[0] = 0x72; // r
    buf.writeBigUInt64BE(this.received > this.confirmed ? this.received : this.confirmed, 1);
    buf.writeBigUInt64BE(this.confirmed, 9);
    buf.writeBigUInt64BE(this.confirmed, 17);
    buf.writeBigUInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_MICROS, 25);
    buf[33] = 0;
    (this.client as unknown as { connection: { sendCopyFromChunk(b: Buffer): void } }).connection.sendCopyFromChunk(buf);
  }

  private onCopyData(chunk: Buffer): void {
    if (this.resolving) {
      this.backlog.push(chunk);
      return;
    }
    try {
      if (chunk[0] === 0x6b) {
        // k: keepalive (walEnd, clock, reply requested)
        this.onKeepalive(chunk.readBigUInt64BE(1));
        if (chunk[17] === 1) this.sendStatus();
        return;
      }
      if (chunk[0] !== 0x77) return;
      const walEnd = chunk.readBigUInt64BE(9);
      if (walEnd > this.received) this.received = walEnd;
      if (this.decoderbufs) this.decoderbufs.onData(chunk, chunk.readBigUInt64BE(1));
      else this.handle(decodePgOutput(chunk.subarray(25)));
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * A logical walsender's keepalive carries the position it has decoded up to: every
   * transaction committed before it was sent already, and one still open commits after it. So
   * between transactions it is a safe restart point, and the stream position moves on while
   * the captured tables are idle (`tideway verify` waits for a position recorded at the source).
   */
  private onKeepalive(walEnd: bigint): void {
    if (this.txn !== undefined || walEnd <= parseLsn(this.lastCommitEnd)) return;
    this.lastCommitEnd = formatLsn(walEnd);
    if (walEnd > this.received) this.received = walEnd;
    this.push({ type: 'commit', next: this.lastCommitEnd });
  }

  private handle(m: PgOutputMessage): void {
    // The server starts at the slot's restart point, not at the requested LSN (startup.mode
    // specific may ask for a later one): what committed before the start is not ours to emit.
    if (this.skipping && m.tag !== 'relation') {
      if (m.tag === 'commit') this.skipping = false;
      return;
    }
    if (this.undecided && m.tag !== 'relation') {
      if (m.tag !== 'commit') {
        this.undecided.push(m);
        return;
      }
      const held = this.undecided;
      this.undecided = undefined;
      if (m.endLsn <= this.startLsn) return;
      const begin = held[0] as Extract<PgOutputMessage, { tag: 'begin' }>;
      this.beginTxn(begin.xid, begin.firstLsn!, begin.commitTimeMs, undefined);
      for (const h of held.slice(1)) this.handle(h);
    }
    switch (m.tag) {
      case 'begin':
        if (m.finalLsn === undefined) {
          // decoderbufs tells a transaction's commit position only at its commit. One that began
          // after the start commits after it; an earlier one waits for its commit to tell.
          if (m.firstLsn! < this.startLsn) this.undecided = [m];
          else this.beginTxn(m.xid, m.firstLsn!, m.commitTimeMs, undefined);
          return;
        }
        if (m.finalLsn < this.startLsn) {
          this.skipping = true;
          return;
        }
        this.beginTxn(m.xid, m.finalLsn, m.commitTimeMs, m.finalLsn);
        return;
      case 'commit':
        this.lastCommitEnd = formatLsn(m.endLsn);
        this.txn = undefined;
        this.push({ type: 'commit', next: this.lastCommitEnd });
        return;
      case 'relation':
        this.onRelation(m.oid, m.schema, m.name, m.columns);
        return;
      case 'insert': {
        const r = this.relations.get(m.oid);
        if (r)
          this.push({ type: 'change', txn: this.txn!, tableId: r.tableId, op: 'insert', before: null, after: this.row(r, m.after, null) });
        return;
      }
      case 'update': {
        const r = this.relations.get(m.oid);
        if (!r) return;
        const before = m.before ? this.row(r, m.before, null) : null;
        const tableId = r.tableId;
        if (before !== null && m.keyOnly) {
          // Only the old key (default replica identity), sent because the key changed: as in
          // Debezium, the old key is deleted and the new row inserted, or the old row would stay.
          this.push({ type: 'change', txn: this.txn!, tableId, op: 'delete', before, after: null });
          this.push({ type: 'change', txn: this.txn!, tableId, op: 'insert', before: null, after: this.row(r, m.after, null) });
          return;
        }
        this.push({ type: 'change', txn: this.txn!, tableId, op: 'update', before, after: this.row(r, m.after, before) });
        return;
      }
      case 'delete': {
        const r = this.relations.get(m.oid);
        if (r)
          this.push({ type: 'change', txn: this.txn!, tableId: r.tableId, op: 'delete', before: this.row(r, m.before, null), after: null });
        return;
      }
      default:
        return;
    }
  }

  /**
   * `commitLsn` compares the transaction with chunk watermarks (PgCdcDialect.streamPast): its
   * commit record's position, or (decoderbufs) its first record's, which lies before it, so the
   * comparison keeps de-duplicating a little longer but never stops too early. `version` is the
   * commit LSN where the log gives it first (pgoutput's Begin), so rows carry commit order.
   */
  private beginTxn(xid: number, commitLsn: bigint, commitTimeMs: number | undefined, version: bigint | undefined): void {
    this.txn = { resume: this.lastCommitEnd, dedup: { xid, commitLsn } satisfies PgTxnDedup, commitTimeMs, version };
  }

  /**
   * A relation message: maps the table's tuples. Columns other than the record's are a schema
   * change (a schema item, emitted before the tuples that follow). Resolving column types is a
   * query: messages arriving meanwhile wait in the backlog, in order.
   */
  private onRelation(oid: number, schema: string, name: string, columns: readonly RelationColumn[]): void {
    const key = `${schema}.${name}`;
    const i = this.record.tables.findIndex((t) => t.key === key);
    if (i < 0) {
      if (this.following.matches?.(schema, name)) this.addTable(oid, schema, name, columns);
      else this.relations.set(oid, null);
      return;
    }
    const tracked = this.record.tables[i];
    const changed = !sameColumns(tracked, columns);
    if (changed && !this.following.enabled) {
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${tracked.catalog.tableId} changed while captured (now ${columns.map((c) => c.name).join(', ')}) and schema changes are off: set schema-changes.enabled = true (or debezium include.schema.changes = true) to follow them`,
        { place: this.target.place },
      );
    }
    const signature = `${key}|${columns.map((c) => `${c.name}:${c.typeOid}:${c.typmod}`).join(',')}`;
    const cached = this.decoderCache.get(signature);
    if (cached && !changed) {
      this.relations.set(oid, { tableId: tracked.catalog.tableId, names: columns.map((c) => c.name), decoders: cached });
      return;
    }
    this.whileResolving(
      `reading the new columns of table ${tracked.catalog.tableId}`,
      this.following
        .resolve(
          key,
          columns.map((c) => ({ name: c.name, typeOid: c.typeOid, typmod: c.typmod })),
        )
        .then((resolved) => {
          this.decoderCache.set(signature, resolved.decoders);
          if (changed) {
            const { event, table } = relationChange(tracked, columns, resolved, this.target.place);
            const tables = [...this.record.tables];
            tables[i] = table;
            this.record = { tables };
            this.push({ type: 'schema', events: [event], schema: this.record });
          }
          this.relations.set(oid, { tableId: tracked.catalog.tableId, names: columns.map((c) => c.name), decoders: resolved.decoders });
        }),
    );
  }

  /**
   * A table the patterns select, first seen in the stream: created while the job runs (the
   * FOR ALL TABLES publication sends every change it ever had, so its relation message comes
   * before its first row). It joins the record and goes downstream as a new table.
   */
  private addTable(oid: number, schema: string, name: string, columns: readonly RelationColumn[]): void {
    const tracked = columns.map((c) => ({ name: c.name, typeOid: c.typeOid, typmod: c.typmod }));
    this.whileResolving(
      `reading the columns of table ${schema}.${name}, created while streaming`,
      this.following.discover!(schema, name, tracked).then(({ table, resolved }) => {
        this.record = { tables: [...this.record.tables, table] };
        const event = { type: 'schema-change' as const, tableId: table.catalog.tableId, changes: [], table: table.catalog, created: true };
        this.push({ type: 'schema', events: [event], schema: this.record });
        this.relations.set(oid, { tableId: table.catalog.tableId, names: table.columns.map((c) => c.name), decoders: resolved.decoders });
      }),
    );
  }

  /** Holds the messages that arrive while `work` (a query) runs, then handles them in order. */
  private whileResolving(what: string, work: Promise<void>): void {
    const generation = ++this.resolutions;
    this.resolving = true;
    this.socket()?.pause();
    work
      .then(() => {
        // Another resolution began while this one ran (a relation found by it): that one drains.
        if (generation !== this.resolutions) return;
        this.resolving = false;
        const held = this.backlog;
        this.backlog = [];
        for (let n = 0; n < held.length; n++) {
          this.onCopyData(held[n]);
          if (this.resolving) {
            // Behind what the message put back to be handled again (nothing arrives meanwhile).
            this.backlog.push(...held.slice(n + 1));
            return;
          }
        }
        if (!this.full) this.resumeInput();
      })
      .catch((err: unknown) => this.fail(err instanceof TidewayError ? err : externalError(what, err, this.target.place)));
  }

  /** A tuple as a row in the relation's column order; unchanged TOAST values come from `prev`. */
  private row(r: RelationMapping, tuple: readonly TupleValue[], prev: unknown[] | null): unknown[] {
    const out: unknown[] = new Array(r.names.length).fill(null);
    for (let i = 0; i < tuple.length && i < out.length; i++) {
      const v = tuple[i];
      if (v === null) continue;
      if (v === UNCHANGED_TOAST) {
        if (prev === null) {
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `an update of table ${r.tableId} left the large value of column '${r.names[i]}' unchanged, and PostgreSQL does not send it: set REPLICA IDENTITY FULL on the table`,
            { place: this.target.place },
          );
        }
        out[i] = prev[i];
      } else out[i] = r.decoders[i](v);
    }
    return out;
  }
}
