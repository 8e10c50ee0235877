/** What a file sink writer hands to the committer for one transaction (plain data). */
export interface FileCommitInfo {
  /** The transaction's temp folder, deleted after its files are moved. */
  readonly transactionDir: string;
  /** [temp file, final file] pairs. */
  readonly moves: readonly (readonly [string, string])[];
}

/** The committer's unit of work: every writer's transaction of one checkpoint. */
export interface FileAggregatedCommitInfo {
  readonly transactions: readonly FileCommitInfo[];
}

/** A file sink writer's checkpointed state (SeaTunnel's FileSinkState). */
export interface FileSinkState {
  /** Folder name shared by this writer's transactions, kept across restores. */
  readonly uuidPrefix: string;
  readonly checkpointId: number;
  /** The transaction prepared at this checkpoint ('' when nothing was prepared). */
  readonly transactionId: string;
  readonly commit?: FileCommitInfo;
}
