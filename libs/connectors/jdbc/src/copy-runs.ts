import type { CopyIn } from './pg-copy-in.js';
import type { TableWriter } from './table-writer.js';

/** An auto-commit COPY ends once it holds this much data: a failure loses no more than this. */
export const MAX_RUN_BYTES = 16 << 20;
/** ... or has been open this long, so its rows become visible (checked as batches arrive). */
export const MAX_RUN_MS = 1000;

interface Run {
  /** The table slot it writes. */
  readonly key: object;
  readonly format: 'text' | 'binary';
  readonly stream: CopyIn;
  readonly started: number;
  bytes: number;
  /** The batches written into it, while retries may need to write them again. */
  readonly kept: Buffer[];
}

/**
 * The COPY a Jdbc writer keeps open on its PostgreSQL session: batches of one table in one
 * format stream into it until the writer ends it (a checkpoint, another statement, another
 * table, or, in auto-commit mode, its size or age bound). See CopyIn for why.
 */
export class CopyRuns {
  private run: Run | undefined;

  /** @param keep keep each run's batches until it ends, to write them again after a failure. */
  constructor(private readonly keep: boolean) {}

  /** Whether a COPY is open for `key` in `format` (or, without arguments, at all). */
  isOpen(key?: object, format?: 'text' | 'binary'): boolean {
    if (!this.run) return false;
    return key === undefined || (this.run.key === key && this.run.format === format);
  }

  /** The table and format of the open COPY. */
  get current(): { key: object; format: 'text' | 'binary' } | undefined {
    return this.run ? { key: this.run.key, format: this.run.format } : undefined;
  }

  /** Whether the open COPY has reached its size or age bound. */
  get due(): boolean {
    return this.run !== undefined && (this.run.bytes >= MAX_RUN_BYTES || Date.now() - this.run.started >= MAX_RUN_MS);
  }

  /** Writes a batch into the COPY of `key` (opened through `writer` when none is open). */
  async write(writer: TableWriter, key: object, format: 'text' | 'binary', data: Buffer): Promise<void> {
    if (this.run && !this.isOpen(key, format)) throw new Error('a COPY of another table or format is still open');
    const run = (this.run ??= { key, format, stream: await writer.openCopy(format), started: Date.now(), bytes: 0, kept: [] });
    if (this.keep) run.kept.push(data);
    run.bytes += data.length;
    await run.stream.write(data);
  }

  /** Ends the open COPY: its rows are inserted (committed, outside a transaction). */
  async end(): Promise<void> {
    if (!this.run) return;
    await this.run.stream.end();
    this.run = undefined;
  }

  /** Abandons the open COPY (after a failure, or work to drop); returns the batches it kept. */
  async drop(): Promise<Buffer[]> {
    const run = this.run;
    this.run = undefined;
    if (!run) return [];
    await run.stream.abort();
    return run.kept;
  }
}
