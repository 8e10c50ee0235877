import pg from 'pg';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import type { ChangeStream, ChangeTxn, StreamItem } from '@tideway/connector-cdc-common';
import { externalError, type ValueDecoder } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import { formatLsn, parseLsn } from './lsn.js';
import { decodePgOutput, UNCHANGED_TOAST, type RelationColumn, type TupleValue } from './pgoutput.js';

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
  readonly publication: string;
  readonly place: Place;
}

/** Dedup data of a PostgreSQL transaction: its xid and the LSN of its commit record. */
export interface PgTxnDedup {
  readonly xid: number;
  readonly commitLsn: bigint;
}

interface RelationMapping {
  readonly table: CapturedTable;
  /** For each relation column, its index in the table's rows (-1: not captured). */
  readonly target: Int32Array;
  readonly decoders: (ValueDecoder | undefined)[];
}

const PG_EPOCH_MICROS = 946_684_800_000_000n;
/** Received items kept before the socket is paused (backpressure). */
const HIGH_WATER = 20_000;
const STATUS_INTERVAL_MS = 10_000;

/**
 * Logical replication over PostgreSQL's streaming protocol (pgoutput), on a pg client in
 * replication mode. Items are queued as they arrive; the slot's confirmed position moves only
 * through confirm(), i.e. after a checkpoint completed.
 */
export class PgReplicationStream implements ChangeStream<string> {
  private readonly items: StreamItem<string>[] = [];
  private readonly relations = new Map<number, RelationMapping | null>();
  private wake: (() => void) | undefined;
  private error: unknown;
  private txn: ChangeTxn<string> | undefined;
  private lastCommitEnd: string;
  private received = 0n;
  private confirmed: bigint;
  private paused = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: pg.Client,
    private readonly tables: ReadonlyMap<string, CapturedTable>,
    private readonly target: ReplicationTarget,
    start: string,
  ) {
    this.lastCommitEnd = start;
    this.confirmed = parseLsn(start);
  }

  /** Connects and starts streaming from `start` (transactions committed before it are skipped). */
  static async open(target: ReplicationTarget, tables: ReadonlyMap<string, CapturedTable>, start: string): Promise<PgReplicationStream> {
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
    const stream = new PgReplicationStream(client, tables, target, start);
    client.on('error', (err) => stream.fail(err));
    try {
      await client.connect();
    } catch (err) {
      throw externalError(`connecting to PostgreSQL at ${target.host}:${target.port} for logical replication`, err, target.place, target);
    }
    const conn = (client as unknown as { connection: { on(e: string, f: (m: { chunk: Buffer }) => void): void } }).connection;
    conn.on('copyData', (msg) => stream.onCopyData(msg.chunk));
    const sql = `START_REPLICATION SLOT "${target.slot.replace(/"/g, '""')}" LOGICAL ${start} (proto_version '1', publication_names '"${target.publication.replace(/"/g, '""').replace(/'/g, "''")}"')`;
    client.query(sql).catch((err: unknown) => stream.fail(externalError(`streaming from replication slot '${target.slot}'`, err, target.place)));
    stream.timer = setInterval(() => stream.sendStatus(), STATUS_INTERVAL_MS);
    stream.timer.unref();
    return stream;
  }

  async poll(max: number, waitMs: number): Promise<StreamItem<string>[]> {
    if (this.items.length === 0 && this.error === undefined) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
    if (this.error !== undefined) throw this.error;
    const out = this.items.length <= max ? this.items.splice(0) : this.items.splice(0, max);
    if (this.paused && this.items.length < HIGH_WATER / 2) {
      this.paused = false;
      this.socket()?.resume();
    }
    return out;
  }

  async confirm(position: string): Promise<void> {
    const lsn = parseLsn(position);
    if (lsn > this.confirmed) this.confirmed = lsn;
    this.sendStatus();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.error ??= new TidewayError(ErrorCode.INTERNAL, 'the replication stream is closed');
    await this.client.end().catch(() => undefined);
  }

  private socket(): { pause(): void; resume(): void } | undefined {
    return (this.client as unknown as { connection: { stream?: { pause(): void; resume(): void } } }).connection.stream;
  }

  private fail(err: unknown): void {
    this.error ??= err instanceof TidewayError ? err : externalError(`streaming from replication slot '${this.target.slot}'`, err, this.target.place);
    this.wake?.();
  }

  /** Standby status: written = received, flushed = applied = confirmed (what the slot may drop). */
  private sendStatus(): void {
    if (this.error !== undefined) return;
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
      this.onMessage(chunk.subarray(25));
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

  private push(item: StreamItem<string>): void {
    this.items.push(item);
    if (!this.paused && this.items.length >= HIGH_WATER) {
      this.paused = true;
      this.socket()?.pause();
    }
    this.wake?.();
  }

  private onMessage(payload: Buffer): void {
    const m = decodePgOutput(payload);
    switch (m.tag) {
      case 'begin':
        this.txn = { resume: this.lastCommitEnd, dedup: { xid: m.xid, commitLsn: m.finalLsn } satisfies PgTxnDedup };
        return;
      case 'commit':
        this.lastCommitEnd = formatLsn(m.endLsn);
        this.txn = undefined;
        this.push({ type: 'commit', next: this.lastCommitEnd });
        return;
      case 'relation':
        this.relations.set(m.oid, this.mapRelation(m.schema, m.name, m.columns));
        return;
      case 'insert': {
        const r = this.relations.get(m.oid);
        if (r) this.push({ type: 'change', txn: this.txn!, tableId: r.table.catalog.tableId, op: 'insert', before: null, after: this.row(r, m.after, null) });
        return;
      }
      case 'update': {
        const r = this.relations.get(m.oid);
        if (!r) return;
        const before = m.before ? this.row(r, m.before, null) : null;
        const tableId = r.table.catalog.tableId;
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
        if (r) this.push({ type: 'change', txn: this.txn!, tableId: r.table.catalog.tableId, op: 'delete', before: this.row(r, m.before, null), after: null });
        return;
      }
      default:
        return;
    }
  }

  private mapRelation(schema: string, name: string, columns: readonly RelationColumn[]): RelationMapping | null {
    const table = this.tables.get(`${schema}.${name}`);
    if (!table) return null;
    const names = table.catalog.columns.map((c) => c.name);
    const target = new Int32Array(columns.length);
    const decoders: (ValueDecoder | undefined)[] = [];
    columns.forEach((c, i) => {
      target[i] = names.indexOf(c.name);
      decoders.push(target[i] >= 0 ? table.columns[target[i]].decode : undefined);
    });
    const missing = names.filter((n) => !columns.some((c) => c.name === n));
    if (missing.length > 0 || columns.some((c) => !names.includes(c.name))) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `the columns of table ${table.catalog.tableId} changed while it was captured (now ${columns.map((c) => c.name).join(', ')}); schema changes are not supported, restart the job from a new snapshot`,
        { place: this.target.place },
      );
    }
    return { table, target, decoders };
  }

  /** A tuple as a row in the table's column order; unchanged TOAST values come from `prev`. */
  private row(r: RelationMapping, tuple: readonly TupleValue[], prev: unknown[] | null): unknown[] {
    const out: unknown[] = new Array(r.table.catalog.columns.length).fill(null);
    for (let i = 0; i < tuple.length; i++) {
      const t = r.target[i];
      const v = tuple[i];
      if (v === null) continue;
      if (v === UNCHANGED_TOAST) {
        if (prev === null) {
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `an update of table ${r.table.catalog.tableId} left the large value of column '${r.table.catalog.columns[t].name}' unchanged, and PostgreSQL does not send it: set REPLICA IDENTITY FULL on the table`,
            { place: this.target.place },
          );
        }
        out[t] = prev[t];
      } else out[t] = r.decoders[i]!(v);
    }
    return out;
  }
}
