import { createHash, randomBytes } from 'node:crypto';
import { isUnknownXid } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';

/** What a writer's prepareCommit hands to the committer: one prepared transaction. */
export interface JdbcCommitInfo {
  readonly xid: string;
}

/**
 * The id prefix of one sink subtask's transactions (`sink`: what tells the job's Jdbc sinks apart):
 * stable across restarts of the job, so a
 * restored writer can find what its earlier attempt prepared. Letters, digits and dashes only:
 * safe to inline in SQL, and short enough for MySQL's 64-byte gtrid.
 */
export function xidPrefix(jobId: string, subtask: number, sink: string): string {
  return `${jobXidPrefix(jobId)}${createHash('sha1').update(sink).digest('hex').slice(0, 6)}-${subtask}-`;
}

/** The id prefix shared by every transaction of a job (all subtasks, all attempts). */
export function jobXidPrefix(jobId: string): string {
  return `tw-${createHash('sha1').update(jobId).digest('hex').slice(0, 12)}-`;
}

/** A fresh per-attempt tag, so ids never repeat across restarts. */
export function attemptTag(): string {
  return randomBytes(4).toString('hex');
}

function literal(xid: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(xid)) throw new Error(`transaction id '${xid}' has characters other than letters, digits, '-' and '_'`);
  return `'${xid}'`;
}

/** Starts the transaction that will be prepared under `xid`. */
export async function beginXa(conn: JdbcConnection, xid: string): Promise<void> {
  await conn.execute(conn.dialect === 'postgresql' ? 'BEGIN' : `XA START ${literal(xid)}`);
}

/** Ends and prepares the open transaction: it survives disconnects and restarts until committed or rolled back. */
export async function prepareXa(conn: JdbcConnection, xid: string): Promise<void> {
  if (conn.dialect === 'postgresql') {
    await conn.execute(`PREPARE TRANSACTION ${literal(xid)}`);
  } else {
    await conn.execute(`XA END ${literal(xid)}`);
    await conn.execute(`XA PREPARE ${literal(xid)}`);
  }
}

/** Rolls back the open (not yet prepared) transaction. */
export async function rollbackOpenXa(conn: JdbcConnection, xid: string): Promise<void> {
  if (conn.dialect === 'postgresql') {
    await conn.execute('ROLLBACK');
  } else {
    await conn.execute(`XA END ${literal(xid)}`).catch(() => undefined);
    await conn.execute(`XA ROLLBACK ${literal(xid)}`);
  }
}

/**
 * Commits a prepared transaction. Idempotent: an id the database no longer has was committed
 * already (true). False when the database still lists the id but will not commit it yet:
 * MariaDB keeps a prepared XA transaction attached to the session that prepared it until that
 * session ends, and answers "unknown XID" meanwhile, so "unknown" alone does not mean done.
 */
export async function commitXa(conn: JdbcConnection, xid: string): Promise<boolean> {
  try {
    await conn.execute(conn.dialect === 'postgresql' ? `COMMIT PREPARED ${literal(xid)}` : `XA COMMIT ${literal(xid)}`);
    return true;
  } catch (err) {
    if (!isUnknownXid(err)) throw err;
    return !(await preparedXids(conn, xid)).includes(xid);
  }
}

/** commitXa, waiting (up to `attempts` tries) while the id is still attached to an ending session. */
export async function commitXaWhenDetached(conn: JdbcConnection, xid: string, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await commitXa(conn, xid)) return;
    if (attempt >= attempts) throw new Error(`prepared transaction ${xid} is still held by another session`);
    await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2000)));
  }
}

/** Rolls back a prepared transaction; an unknown id is fine (already gone). */
export async function rollbackXa(conn: JdbcConnection, xid: string): Promise<void> {
  try {
    await conn.execute(conn.dialect === 'postgresql' ? `ROLLBACK PREPARED ${literal(xid)}` : `XA ROLLBACK ${literal(xid)}`);
  } catch (err) {
    if (!isUnknownXid(err)) throw err;
  }
}

/** Prepared transactions whose id starts with `prefix`. */
export async function preparedXids(conn: JdbcConnection, prefix: string): Promise<string[]> {
  if (conn.dialect === 'postgresql') {
    const res = await conn.execute('SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)', [
      prefix,
    ]);
    return res.rows.map((r) => String(r[0]));
  }
  const res = await conn.execute('XA RECOVER');
  // Rows: formatID, gtrid_length, bqual_length, data (gtrid followed by bqual).
  return res.rows.map((r) => String(r[3]).slice(0, Number(r[1]))).filter((x) => x.startsWith(prefix));
}

/**
 * Rolls back every prepared transaction whose id starts with `prefix` (but those in `keep`),
 * waiting (up to `attempts` tries) on MariaDB while an id is still attached to the session that
 * prepared it (it answers "unknown XID" until that session has ended). Idempotent.
 */
export async function rollbackAllPrepared(
  conn: JdbcConnection,
  prefix: string,
  attempts: number,
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const left = (await preparedXids(conn, prefix)).filter((xid) => !keep.has(xid));
    if (left.length === 0) return;
    if (attempt > attempts) throw new Error(`prepared transaction(s) ${left.join(', ')} are still held by other sessions`);
    for (const xid of left) await rollbackXa(conn, xid);
    if (attempt > 1) await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2000)));
  }
}
