import type { SinkAggregatedCommitter } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';
import type { FileAggregatedCommitInfo, FileCommitInfo } from './sink-types.js';

/**
 * Moves a transaction's temp files to their final names, then deletes its temp folder.
 * Idempotent: a file already moved (temp gone, final present) is skipped, so a commit
 * replayed after a restore changes nothing. A file whose temp and final copies are both
 * missing means data was lost (e.g. aborted) and fails loudly instead of passing silently.
 */
export async function commitTransaction(fs: FileSystemAdapter, info: FileCommitInfo, plugin: string): Promise<void> {
  for (const [temp, final] of info.moves) {
    if (await fs.exists(temp)) {
      await fs.rename(temp, final);
    } else if (!(await fs.exists(final))) {
      throw new TidewayError(
        ErrorCode.CONNECTOR_IO,
        `${plugin}: cannot commit ${final}: its temp file ${temp} is gone and the final file does not exist (the transaction was aborted or its temp folder removed).`,
      );
    }
  }
  await fs.delete(info.transactionDir);
}

/** Deletes a transaction's temp folder (its files never reach the target). */
export async function abortTransaction(fs: FileSystemAdapter, info: FileCommitInfo): Promise<void> {
  await fs.delete(info.transactionDir);
}

/** The file sinks' aggregated committer (runs on the coordinator). */
export class FileAggregatedCommitter implements SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo> {
  constructor(
    private readonly fs: FileSystemAdapter,
    private readonly plugin: string,
  ) {}

  combine(infos: FileCommitInfo[]): FileAggregatedCommitInfo {
    return { transactions: infos };
  }

  async commit(infos: FileAggregatedCommitInfo[]): Promise<FileAggregatedCommitInfo[]> {
    const retry: FileAggregatedCommitInfo[] = [];
    for (const agg of infos) {
      const failed: FileCommitInfo[] = [];
      for (const tx of agg.transactions) {
        try {
          await commitTransaction(this.fs, tx, this.plugin);
        } catch (err) {
          if (err instanceof TidewayError) throw err; // lost data: retrying cannot help
          failed.push(tx); // I/O error: the engine retries these
        }
      }
      if (failed.length > 0) retry.push({ transactions: failed });
    }
    return retry;
  }

  async abort(infos: FileAggregatedCommitInfo[]): Promise<void> {
    for (const agg of infos) for (const tx of agg.transactions) await abortTransaction(this.fs, tx);
  }
}
