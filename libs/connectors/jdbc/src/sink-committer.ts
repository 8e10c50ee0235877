import type { SinkCommitter } from '@tideway/api';
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { describeDbError } from './db-errors.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { commitXa, rollbackXa, type JdbcCommitInfo } from './xa-transactions.js';

/**
 * Commits the transactions writers prepared at a checkpoint (COMMIT PREPARED / XA COMMIT),
 * `maxAttempts` tries each. Idempotent: committing an id that is already committed succeeds, so
 * a replay after a restore does nothing twice.
 */
export class JdbcSinkCommitter implements SinkCommitter<JdbcCommitInfo> {
  constructor(
    private readonly connect: () => Promise<JdbcConnection>,
    private readonly maxAttempts: number,
    private readonly place: Place,
  ) {}

  async commit(infos: JdbcCommitInfo[]): Promise<JdbcCommitInfo[]> {
    if (infos.length === 0) return [];
    let conn = await this.connect();
    try {
      for (const info of infos) {
        for (let attempt = 1; ; attempt++) {
          try {
            if (await commitXa(conn, info.xid)) break;
            throw new Error(`the database still holds ${info.xid} in the session that prepared it`);
          } catch (err) {
            if (attempt >= this.maxAttempts) {
              throw new TidewayError(
                ErrorCode.EXTERNAL_SYSTEM,
                `committing prepared transaction ${info.xid} failed ${attempt} times (max_commit_attempts): ${describeDbError(err)}`,
                { place: this.place, cause: err, retryable: true },
              );
            }
            await conn.close();
            await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5000)));
            conn = await this.connect();
          }
        }
      }
      return [];
    } finally {
      await conn.close();
    }
  }

  async abort(infos: JdbcCommitInfo[]): Promise<void> {
    if (infos.length === 0) return;
    const conn = await this.connect();
    try {
      for (const info of infos) await rollbackXa(conn, info.xid);
    } finally {
      await conn.close();
    }
  }
}
