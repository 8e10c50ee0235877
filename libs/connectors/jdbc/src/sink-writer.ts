import { describeSchemaChange, type Row, type RowEncodingOffer, type SchemaChangeEvent, type SinkWriter } from '@tideway/api';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { externalError, isRowLevelDbError, rowLevelError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { RowBuffer } from './row-buffer.js';
import type { SinkConfig } from './sink-options.js';
import { sinkTarget, type SinkTarget } from './sink-target.js';
import { alterTarget } from './schema-evolution.js';
import { ensureNewTarget } from './save-mode.js';
import { TableWriter, type PgUpsertPath } from './table-writer.js';
import { CopyEncoder, type CopyData } from './copy-encoder.js';
import { CopyRuns } from './copy-runs.js';
import { PG_COPY_BINARY, PgBinaryLayout } from './pg-binary-rows.js';
import { DEFAULT_PRIOR_COMMIT_WAIT_SEC, waitUntilNotPrepared } from './prior-commit-wait.js';
import {
  attemptTag,
  beginXa,
  commitXaWhenDetached,
  prepareXa,
  preparedXids,
  rollbackOpenXa,
  rollbackAllPrepared,
  type JdbcCommitInfo,
} from './xa-transactions.js';

/** A writer's checkpointed state: prepared transactions that may not be committed yet. */
export interface JdbcWriterState {
  readonly preparedXids: string[];
}

interface TableSlot {
  readonly target: SinkTarget;
  readonly keys: readonly number[];
  /** Whether its rows are plain inserts: COPY on PostgreSQL, one multi-row INSERT on MySQL. */
  readonly inserts: boolean;
  /** PostgreSQL: encodes its COPY batches. */
  readonly copy?: CopyEncoder;
  buffer: RowBuffer;
  writer?: TableWriter;
}

/** Rows taken out of a slot's buffer to be written. */
interface TakenBatch {
  readonly slot: TableSlot;
  readonly buffer: RowBuffer;
  /** The rows already encoded for COPY (encoded before the previous batch finished writing). */
  copy?: CopyData;
}

/**
 * Buffers rows per table (batch_size in all) and writes them. Transactions: with auto_commit
 * each batch commits on its own (and is retried max_retries times on a new connection); with
 * auto_commit = false one transaction runs from checkpoint to checkpoint; with is_exactly_once
 * that transaction is prepared at prepareCommit (PREPARE TRANSACTION / XA PREPARE) and committed
 * by the committer. A restored writer commits the prepared ids in its state (their checkpoint
 * completed) and rolls back its other prepared ids (their checkpoint never completed).
 *
 * On PostgreSQL a transaction does not see, nor wait for, rows of a transaction that is still
 * prepared: a delete or upsert of a row the previous checkpoint inserted would miss it. So an
 * exactly-once writer starts its next transaction only once its earlier prepared transactions
 * are committed (the engine runs the committer while a write waits), up to
 * transaction_timeout_sec (default 60 s); then it fails the write, retryably, and failover
 * commits or rolls them back. MariaDB needs no wait: it blocks on the prepared rows' locks.
 */
export class JdbcSinkWriter implements SinkWriter<JdbcCommitInfo, JdbcWriterState> {
  private conn: JdbcConnection | undefined;
  private readonly slots = new Map<string, TableSlot>();
  private buffered = 0;
  private inTransaction = false;
  private currentXid: string | undefined;
  private seq = 0;
  private prepared: string[] = [];
  private recovered = false;
  /** Prepared ids the next transaction must see committed before it changes anything (PostgreSQL). */
  private awaitBeforeNext: string[] = [];
  /** Every write is a plain INSERT (no keys, no user query): it cannot miss a prepared row. */
  private insertOnly: boolean;
  /** Set by abortPrepare and close: a waiting transaction start gives up at once. */
  private stopping = false;
  private readonly tag = attemptTag();
  /** The batch being written while new rows fill fresh buffers: at most one at a time. */
  private inflight: Promise<void> | undefined;
  /** PostgreSQL: the COPY that plain inserts stream into across batches. */
  private readonly runs: CopyRuns;
  /** Whether each batch (auto-commit) or each checkpoint's transaction (explicit) commits. */
  private readonly explicit: boolean;
  /** How upserts reach PostgreSQL: XA transactions cannot hold a temporary table; one spanning batches empties it itself. */
  private readonly upsertPath: PgUpsertPath;
  /** env.sink_error_handler: where the rows the database refuses for themselves go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;
  /** The session opened ahead of the first batch (warmUp); every use of the session waits for it. */
  private warming: Promise<void> | undefined;

  constructor(
    private readonly cfg: SinkConfig,
    targets: readonly SinkTarget[],
    private readonly connect: () => Promise<JdbcConnection>,
    private readonly xidPrefix: string,
    private readonly place: Place,
    private readonly restoredXids: readonly string[] = [],
  ) {
    for (const t of targets) this.slots.set(t.input.tableId, this.slotFor(t));
    this.insertOnly = cfg.query === undefined && [...this.slots.values()].every((s) => s.keys.length === 0);
    this.explicit = cfg.exactlyOnce || !cfg.autoCommit;
    this.upsertPath = cfg.exactlyOnce ? 'values' : this.explicit ? 'staged-truncate' : 'staged';
    this.runs = new CopyRuns(!this.explicit && cfg.maxRetries > 0);
    if (!cfg.exactlyOnce) this.warming = this.warmUp();
  }

  /**
   * Opens the session, and on PostgreSQL learns the COPY's column types, now: while the source
   * still plans its splits and reads its first rows, so that the first batch goes out at once
   * (docs/decisions/0096). An exactly-once writer's session first settles a restore's prepared
   * transactions: it still opens on first use. A failure here is met again, and reported, by the
   * first use of the session.
   */
  private async warmUp(): Promise<void> {
    try {
      const conn = await this.openSession();
      for (const slot of this.slots.values()) if (slot.copy && !slot.copy.ready) await this.writerFor(slot, conn).prepareCopy();
    } catch {
      // The first write opens its own session and names what fails.
    }
  }

  /**
   * Row-level error handling (env.sink_error_handler): a batch the database refuses for a row's
   * sake (SQLSTATE class 22 or 23, isRowLevelDbError) is undone (to a savepoint inside a
   * transaction; a lone statement failed whole) and written again row by row, each refused row
   * going to `reject` and the others written. To make that possible each batch is written on its
   * own, in the foreground, as statements: no COPY stream across batches (plain inserts on
   * PostgreSQL become multi-row INSERTs), which is slower; it is the price of knowing the row.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
    for (const [id, slot] of this.slots) this.slots.set(id, this.slotFor(slot.target));
  }

  /**
   * PostgreSQL: plain inserts take the source's binary COPY tuples as they are, for the tables
   * whose layout fits the target (CopyEncoder.accept; docs/decisions/0104). Not with row-level
   * error handling, which writes statements and must read the values.
   */
  rowEncoding(): RowEncodingOffer | undefined {
    if (this.cfg.connection.target.dialect !== 'postgresql' || this.reject) return undefined;
    return { encoding: PG_COPY_BINARY, accepts: (tableId, layout) => this.acceptsBinary(tableId, layout) };
  }

  private async acceptsBinary(tableId: string, layout: unknown): Promise<boolean> {
    const slot = this.slots.get(tableId);
    if (!slot?.copy || !(layout instanceof PgBinaryLayout) || this.reject) return false;
    try {
      if (!slot.copy.ready) await this.writerFor(slot, await this.session()).prepareCopy();
    } catch {
      // The first write opens its own session and names what fails; its rows come as values.
      return false;
    }
    return slot.copy.accept(layout);
  }

  private slotFor(t: SinkTarget): TableSlot {
    const pg = this.cfg.connection.target.dialect === 'postgresql' && this.reject === undefined;
    const keys = this.cfg.query !== undefined || this.cfg.useCopy ? [] : t.keyIndexes;
    const inserts = this.cfg.query === undefined && (t.keyIndexes.length === 0 || this.cfg.useCopy);
    return { target: t, keys, inserts, copy: pg && inserts ? new CopyEncoder(t) : undefined, buffer: new RowBuffer(keys) };
  }

  /**
   * Schema evolution: writes what is buffered, alters the target table on a session of its own
   * (idempotently: every parallel writer of the table runs this, and a restore replays it), and
   * writes the rows that follow with the new columns. The engine sends the change only once
   * the checkpoint after the rows before it has completed, so no transaction of this job holds
   * the table; one still open here (auto_commit = false) is committed first.
   */
  async applySchemaChange(event: SchemaChangeEvent): Promise<void> {
    if (event.created) return this.addTable(event);
    const slot = this.slots.get(event.tableId);
    if (!slot) return;
    const next = sinkTarget(this.cfg, this.cfg.connection.target.dialect, event.table, this.place);
    if (!event.restored && event.changes.length > 0) {
      if (this.cfg.query !== undefined || !slot.target.ref) {
        throw new TidewayError(
          ErrorCode.CONFIG_BAD_VALUE,
          `table ${event.tableId}: the Jdbc sink writes with its own query and cannot follow ${describeSchemaChange(event)}`,
          { place: this.place },
        );
      }
      await this.flush();
      if (this.inTransaction) {
        if (this.cfg.exactlyOnce) {
          throw new TidewayError(
            ErrorCode.INTERNAL,
            `table ${event.tableId}: ${describeSchemaChange(event)} arrived while the Jdbc sink's XA transaction ${this.currentXid} was open`,
            { place: this.place },
          );
        }
        await this.conn!.execute('COMMIT');
        this.inTransaction = false;
      }
      const conn = await this.connect();
      try {
        await alterTarget(conn, slot.target, event, this.cfg.fieldIde, this.place);
      } finally {
        await conn.close();
      }
    }
    this.slots.set(event.tableId, this.slotFor(next));
  }

  /**
   * A table new to the job (created at the source while the job runs): its target is made to
   * exist as schema_save_mode says (on a session of its own; every writer of the table may run
   * this, so it is idempotent), then its rows are written like the others'. A restored event
   * only adds the slot: the target was made before the checkpoint that recorded the table.
   */
  private async addTable(event: SchemaChangeEvent): Promise<void> {
    const target = sinkTarget(this.cfg, this.cfg.connection.target.dialect, event.table, this.place);
    if (!event.restored && target.ref) {
      const conn = await this.connect();
      try {
        await ensureNewTarget(conn, this.cfg, target, this.place);
      } finally {
        await conn.close();
      }
    }
    const slot = this.slotFor(target);
    if (this.slots.has(event.tableId)) await this.flush();
    this.slots.set(event.tableId, slot);
    this.insertOnly &&= this.cfg.query === undefined && slot.keys.length === 0;
  }

  async write(rows: readonly Row[]): Promise<void> {
    for (const row of rows) {
      const slot = this.slots.get(row.tableId);
      if (!slot) {
        throw new TidewayError(
          ErrorCode.INTERNAL,
          `the Jdbc sink got a row of table ${row.tableId}, which is not one of its input tables`,
          { place: this.place },
        );
      }
      slot.buffer.add(row);
      this.buffered++;
    }
    if (this.buffered >= this.cfg.batchSize && this.reject) {
      await this.writeOut(this.takeBuffers());
      return;
    }
    if (this.buffered >= this.cfg.batchSize) {
      // Written in the background: the task group reads and converts the next rows meanwhile
      // (source and sink share its thread). The batch is encoded first, so the database gets it
      // as soon as the previous one is done; waiting for that one keeps batches in order,
      // bounds memory to three batches, and surfaces its error here.
      const batches = this.takeBuffers();
      for (const b of batches) if (b.slot.copy?.ready) b.copy = b.slot.copy.encode(b.buffer.rows());
      await this.settle();
      const writing = this.writeOut(batches);
      writing.catch(() => undefined);
      this.inflight = writing;
    }
  }

  /** Waits for the batch being written (its error, if any, is thrown here). */
  private async settle(): Promise<void> {
    const p = this.inflight;
    this.inflight = undefined;
    await p;
  }

  /** Takes every non-empty buffer, leaving fresh ones for the rows that follow. */
  private takeBuffers(): TakenBatch[] {
    const taken: TakenBatch[] = [];
    for (const slot of this.slots.values()) {
      if (slot.buffer.size === 0) continue;
      taken.push({ slot, buffer: slot.buffer });
      slot.buffer = new RowBuffer(slot.keys);
    }
    this.buffered = 0;
    return taken;
  }

  async prepareCommit(): Promise<JdbcCommitInfo | undefined> {
    await this.flush();
    if (!this.inTransaction) return undefined;
    const conn = this.conn!;
    try {
      if (this.cfg.exactlyOnce) {
        const xid = this.currentXid!;
        await prepareXa(conn, xid);
        this.inTransaction = false;
        this.currentXid = undefined;
        // Keep earlier ids only while they are still prepared (not yet committed).
        const still = new Set(await preparedXids(conn, this.xidPrefix));
        this.prepared = [...this.prepared.filter((x) => still.has(x)), xid];
        if (conn.dialect === 'postgresql' && !this.insertOnly) this.awaitBeforeNext = [...this.prepared];
        if (conn.dialect === 'mysql') {
          // MariaDB lets another session commit a prepared XA transaction only after the
          // preparing session has ended; the next batch opens a new session.
          await conn.close();
          this.conn = undefined;
        }
        return { xid };
      }
      await conn.execute('COMMIT');
      this.inTransaction = false;
      return undefined;
    } catch (err) {
      throw externalError('preparing the commit', err, this.place);
    }
  }

  snapshotState(): JdbcWriterState[] {
    return [{ preparedXids: [...this.prepared] }];
  }

  /**
   * After a failure: rolls back the open transaction only. A prepared transaction may belong to
   * a checkpoint that is completing right now (stored, its commit under way): rolling it back
   * here would lose its rows while the restored source resumes after them. Its fate is the
   * checkpoint's: the committer commits it if the checkpoint completed, and the restored
   * writer rolls it back if not.
   */
  async abortPrepare(): Promise<void> {
    this.stopping = true;
    await this.warming;
    await this.settle().catch(() => undefined);
    await this.runs.drop();
    if (!this.conn) return;
    if (this.inTransaction) await this.rollbackOpen();
  }

  async close(): Promise<void> {
    // A session still opening is closed below, not left behind.
    await this.warming;
    try {
      if (this.cfg.exactlyOnce) {
        // Work not prepared at a checkpoint is replayed after a restore: drop it unwritten (a
        // batch being written is rolled back below, so its error does not matter either).
        this.stopping = true;
        await this.settle().catch(() => undefined);
        this.takeBuffers();
        await this.runs.drop();
        if (this.inTransaction && this.conn) await this.rollbackOpen();
      } else {
        await this.flush();
        if (this.inTransaction && this.conn) {
          await this.conn.execute('COMMIT');
          this.inTransaction = false;
        }
      }
    } finally {
      await this.conn?.close();
      this.conn = undefined;
    }
  }

  /** Writes every buffered row, waits for the batch being written, and ends the open COPY. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.buffered > 0) await this.writeOut(this.takeBuffers());
    await this.endRun();
  }

  /**
   * Writes taken batches. PostgreSQL plain inserts stream into the open COPY (see CopyRuns);
   * anything else first ends that COPY, then runs in one transaction (retried max_retries times
   * outside explicit transactions). A lone multi-row INSERT is atomic by itself: it needs no
   * BEGIN and COMMIT around it.
   */
  private async writeOut(batches: readonly TakenBatch[]): Promise<void> {
    if (batches.every((b) => b.slot.copy !== undefined)) {
      for (const b of batches) await this.streamCopy(b);
      return;
    }
    await this.endRun();
    const oneStatement = batches.length === 1 && batches[0].slot.inserts;
    for (let attempt = 0; ; attempt++) {
      const conn = await this.session();
      try {
        if (this.explicit) {
          await this.ensureTransaction(conn);
          await this.writeBatches(conn, batches, true);
        } else if (oneStatement) {
          await this.writeBatches(conn, batches, false);
        } else {
          await conn.execute('BEGIN');
          try {
            await this.writeBatches(conn, batches, true);
            await conn.execute('COMMIT');
          } catch (err) {
            await conn.execute('ROLLBACK').catch(() => undefined);
            throw err;
          }
        }
        break;
      } catch (err) {
        if (this.explicit || attempt >= this.cfg.maxRetries) throw externalError('writing a batch', err, this.place);
        await this.retryPause(attempt);
      }
    }
  }

  /** Closes the session after a failed attempt and waits before the next (1 s, 2 s, ... 10 s). */
  private async retryPause(attempt: number): Promise<void> {
    await this.conn?.close();
    this.conn = undefined;
    await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** attempt, 10_000)));
  }

  /** Streams a PostgreSQL insert batch into the COPY of its table (ending a COPY of another table or format first). */
  private async streamCopy(batch: TakenBatch): Promise<void> {
    let data = batch.copy;
    if (!data) {
      const conn = await this.session();
      data = (await this.writerFor(batch.slot, conn).prepareCopy()).encode(batch.buffer.rows());
    }
    if (this.runs.isOpen() && !this.runs.isOpen(batch.slot, data.format)) await this.endRun();
    await this.copyRun(batch.slot, data.format, data.data, false);
  }

  /** Ends the open COPY, if any: its rows are inserted (and, in auto-commit mode, committed). */
  private async endRun(): Promise<void> {
    const open = this.runs.current;
    if (open) await this.copyRun(open.key as TableSlot, open.format, undefined, true);
  }

  /**
   * Writes `data` into the COPY of `slot`, opening one, and ends it when asked (or, in
   * auto-commit mode, when it is due). In auto-commit mode a failed COPY is written again whole
   * on a new session, up to max_retries times: none of its rows were inserted.
   */
  private async copyRun(slot: TableSlot, format: CopyData['format'], data: Buffer | undefined, end: boolean): Promise<void> {
    let pending: Buffer[] = data ? [data] : [];
    for (let attempt = 0; ; attempt++) {
      try {
        const conn = await this.session();
        if (this.explicit) await this.ensureTransaction(conn);
        const writer = this.writerFor(slot, conn);
        while (pending.length > 0) await this.runs.write(writer, slot, format, pending.shift()!);
        if (end || (!this.explicit && this.runs.due)) await this.runs.end();
        return;
      } catch (err) {
        const held = await this.runs.drop();
        if (this.explicit || attempt >= this.cfg.maxRetries) throw externalError('writing a batch', err, this.place);
        pending = [...held, ...pending];
        await this.retryPause(attempt);
      }
    }
  }

  /** The slot's table writer on this session (session() drops them when it opens a new one). */
  private writerFor(slot: TableSlot, conn: JdbcConnection): TableWriter {
    return (slot.writer ??= new TableWriter(conn, slot.target, slot.copy, this.upsertPath));
  }

  /** Writes the batches; with handleRowErrors, row by row after a row-level refusal (see there). */
  private async writeBatches(conn: JdbcConnection, batches: readonly TakenBatch[], inTransaction: boolean): Promise<void> {
    const reject = this.reject;
    if (!reject) return this.writeBuffers(conn, batches);
    const refused = await this.undoable(conn, inTransaction, 'tw_batch', () => this.writeBuffers(conn, batches));
    if (refused === undefined) return;
    for (const single of oneRowBatches(batches)) {
      const err = await this.undoable(conn, inTransaction, 'tw_row', () => this.writeBuffers(conn, [single]));
      if (err !== undefined) reject(single.row, rowLevelError(err));
    }
  }

  /**
   * Runs `write`; when the database refuses it for a row's sake, undoes it (to a savepoint named
   * `name` inside a transaction, else the statement failed whole) and returns that error. Any
   * other error is thrown.
   */
  private async undoable(conn: JdbcConnection, inTransaction: boolean, name: string, write: () => Promise<void>): Promise<unknown> {
    if (inTransaction) await conn.execute(`SAVEPOINT ${name}`);
    try {
      await write();
    } catch (err) {
      if (!isRowLevelDbError(err)) throw err;
      if (inTransaction) await conn.execute(`ROLLBACK TO SAVEPOINT ${name}`);
      return err;
    }
    if (inTransaction) await conn.execute(`RELEASE SAVEPOINT ${name}`);
    return undefined;
  }

  private async writeBuffers(conn: JdbcConnection, batches: readonly TakenBatch[]): Promise<void> {
    for (const { slot, buffer } of batches) {
      const w = this.writerFor(slot, conn);
      if (this.cfg.query !== undefined) await w.runQuery(this.cfg.query, buffer.rows());
      else if (slot.inserts) await w.insert(buffer.rows());
      else {
        const { upserts, deletes } = buffer.changes();
        await w.delete(deletes);
        if (this.cfg.enableUpsert && !this.cfg.upsertByQuery) await w.upsert(upserts);
        else await w.updateOrInsert(upserts);
      }
    }
  }

  private async ensureTransaction(conn: JdbcConnection): Promise<void> {
    if (this.inTransaction) return;
    if (this.cfg.exactlyOnce) {
      await this.awaitPriorCommits(conn);
      this.currentXid = `${this.xidPrefix}${this.tag}-${++this.seq}`;
      await beginXa(conn, this.currentXid);
    } else {
      await conn.execute('BEGIN');
    }
    this.inTransaction = true;
  }

  /**
   * Waits (before BEGIN, so the new transaction's snapshot includes them) until the previous
   * prepared transactions are committed or rolled back; fails retryably after the bound.
   */
  private async awaitPriorCommits(conn: JdbcConnection): Promise<void> {
    if (this.awaitBeforeNext.length === 0) return;
    const sec = this.cfg.transactionTimeoutSec > 0 ? this.cfg.transactionTimeoutSec : DEFAULT_PRIOR_COMMIT_WAIT_SEC;
    const still = await waitUntilNotPrepared(conn, this.awaitBeforeNext, sec * 1000, () => this.stopping);
    if (still.length > 0) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        this.stopping
          ? `the Jdbc sink stopped waiting for prepared transaction(s) ${still.join(', ')} to be committed: the writer is closing`
          : `the Jdbc sink's next transaction waited ${sec} s (transaction_timeout_sec, or ${DEFAULT_PRIOR_COMMIT_WAIT_SEC} s when unset) for prepared transaction(s) ${still.join(', ')} of an earlier checkpoint to be committed, and they were not (was that checkpoint aborted?); failing over commits or rolls them back`,
        { place: this.place, retryable: true },
      );
    }
    this.awaitBeforeNext = [];
  }

  private async rollbackOpen(): Promise<void> {
    if (this.cfg.exactlyOnce) await rollbackOpenXa(this.conn!, this.currentXid!);
    else await this.conn!.execute('ROLLBACK');
    this.inTransaction = false;
    this.currentXid = undefined;
  }

  /** The connection, opened (and, once, recovered from a restore) on first use, or ahead of it by warmUp. */
  private async session(): Promise<JdbcConnection> {
    await this.warming;
    return this.openSession();
  }

  private async openSession(): Promise<JdbcConnection> {
    if (this.conn) return this.conn;
    const conn = await this.connect();
    // Table writers hold the connection they were made with.
    for (const slot of this.slots.values()) slot.writer = undefined;
    try {
      if (this.cfg.transactionTimeoutSec > 0) {
        await conn.execute(
          conn.dialect === 'postgresql'
            ? `SET idle_in_transaction_session_timeout = ${this.cfg.transactionTimeoutSec * 1000}`
            : `SET SESSION idle_write_transaction_timeout = ${this.cfg.transactionTimeoutSec}`,
        );
      }
      if (this.cfg.exactlyOnce && !this.recovered) {
        const restored = new Set(this.restoredXids);
        for (const xid of this.restoredXids) await commitXaWhenDetached(conn, xid, 8);
        // What this subtask prepared after the restored checkpoint: rolled back, waiting on
        // MariaDB until the failed attempt's session has let go of it (until then it holds
        // its rows' locks, and the first write here would wait on them).
        await rollbackAllPrepared(conn, this.xidPrefix, 8, restored);
        this.recovered = true;
      }
    } catch (err) {
      await conn.close();
      throw externalError('setting up the sink session', err, this.place);
    }
    this.conn = conn;
    return conn;
  }
}

/** Each row of the batches as a batch of its own (keyed tables: their reduced changes, deletes first). */
function* oneRowBatches(batches: readonly TakenBatch[]): Generator<TakenBatch & { row: Row }> {
  for (const { slot, buffer } of batches) {
    let rows = buffer.rows();
    if (slot.keys.length > 0) {
      const { upserts, deletes } = buffer.changes();
      rows = [...deletes, ...upserts];
    }
    for (const row of rows) {
      const one = new RowBuffer(slot.keys);
      one.add(row);
      yield { slot, buffer: one, row };
    }
  }
}
