import type { SplitEnumerator, SplitEnumeratorContext, SourceSplit } from '@tideway/api';

/**
 * One file to read, or one row group of a Parquet file (one stripe of an ORC file); `offset` is
 * how many lines after the skipped header (rows of the row group or stripe) were consumed.
 */
export interface FileSplit extends SourceSplit {
  readonly path: string;
  readonly offset: number;
  /** The Parquet row group (ORC stripe) this split reads (absent: the whole file). */
  readonly rowGroup?: number;
  /** The item of `tables_configs` the file belongs to (absent: the source has one table). */
  readonly table?: number;
  /**
   * The table's partition columns (parse_partition_from_path), in order. They travel with the
   * split because readers run in workers where the source was not prepared (no file listing),
   * so their own table has no partition columns; absent in states written before this field.
   */
  readonly partitionKeys?: readonly string[];
}

/** The enumerator's checkpointed state: files not yet handed to a reader. */
export interface FileEnumeratorState {
  readonly pending: readonly FileSplit[];
}

/**
 * Hands every file to one reader (SeaTunnel assigns by the split id's hash modulo the
 * parallelism, so the same file always goes to the same reader), then tells readers no more
 * splits will come: the file list is fixed when the job starts.
 */
export class FileSplitEnumerator implements SplitEnumerator<FileSplit, FileEnumeratorState> {
  private readonly pending: FileSplit[];

  constructor(
    private readonly ctx: SplitEnumeratorContext<FileSplit>,
    splits: readonly FileSplit[],
    restored?: FileEnumeratorState,
  ) {
    this.pending = restored ? [...restored.pending] : [...splits];
  }

  open(): void {}

  run(): void {
    for (const subtask of this.ctx.registeredReaders()) this.assign(subtask);
  }

  registerReader(subtask: number): void {
    this.assign(subtask);
  }

  handleSplitRequest(subtask: number): void {
    this.assign(subtask);
  }

  addSplitsBack(splits: FileSplit[]): void {
    this.pending.push(...splits);
    for (const subtask of this.ctx.registeredReaders()) this.assign(subtask);
  }

  private assign(subtask: number): void {
    const mine = this.pending.filter((s) => ownerOf(s.splitId, this.ctx.parallelism) === subtask);
    if (mine.length > 0) {
      const ids = new Set(mine.map((s) => s.splitId));
      for (let i = this.pending.length - 1; i >= 0; i--) if (ids.has(this.pending[i].splitId)) this.pending.splice(i, 1);
      this.ctx.assignSplits(subtask, mine);
    }
    this.ctx.signalNoMoreSplits(subtask);
  }

  snapshotState(): FileEnumeratorState {
    return { pending: [...this.pending] };
  }

  close(): void {}
}

/** Java's String.hashCode modulo the parallelism (non-negative). */
export function ownerOf(splitId: string, parallelism: number): number {
  let h = 0;
  for (let i = 0; i < splitId.length; i++) h = (Math.imul(31, h) + splitId.charCodeAt(i)) | 0;
  return ((h % parallelism) + parallelism) % parallelism;
}
