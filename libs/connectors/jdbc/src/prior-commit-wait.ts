import type { JdbcConnection } from './jdbc-connection.js';

/**
 * How long (seconds) a writer's next transaction waits for its previous prepared transactions
 * to be committed when transaction_timeout_sec is not set. A commit normally follows within
 * moments of the checkpoint's completion; a wait this long means the checkpoint was aborted
 * (its prepared work is committed only by a later checkpoint, which cannot complete while the
 * writer blocks), so the writer gives up and lets failover restore the pipeline.
 */
export const DEFAULT_PRIOR_COMMIT_WAIT_SEC = 60;

/** Longest pause between two looks at pg_prepared_xacts. */
const MAX_POLL_MS = 200;

/**
 * Waits until none of `xids` is a prepared transaction any more on PostgreSQL (committed by
 * the committer, or rolled back). Why: PostgreSQL neither shows a still-prepared transaction's
 * rows to a later transaction nor makes it wait for them, so a DELETE or upsert of a row that
 * the previous checkpoint's transaction inserted would miss it, and the row would come back
 * when that transaction commits. Polls with a short backoff; returns the ids still prepared
 * when `timeoutMs` runs out or `stopped()` turns true (empty: all are done).
 */
export async function waitUntilNotPrepared(
  conn: JdbcConnection,
  xids: readonly string[],
  timeoutMs: number,
  stopped: () => boolean,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let pauseMs = 5;
  for (;;) {
    const res = await conn.execute('SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid = ANY($1::text[])', [
      xids,
    ]);
    const still = res.rows.map((r) => String(r[0]));
    if (still.length === 0) return [];
    const left = deadline - Date.now();
    if (left <= 0 || stopped()) return still;
    await new Promise((r) => setTimeout(r, Math.min(pauseMs, left)));
    pauseMs = Math.min(pauseMs * 2, MAX_POLL_MS);
  }
}
