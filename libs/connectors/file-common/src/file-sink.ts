import { createHash } from 'node:crypto';
import type { PluginContext, Sink, SinkAggregatedCommitter, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { FileAggregatedCommitter } from './file-committer.js';
import { FileNamer } from './file-name.js';
import { FileSinkWriter, jobTempDir } from './file-sink-writer.js';
import type { FileSystemAdapter } from './file-system.js';
import { applySaveModes, type DataSaveMode, type SchemaSaveMode } from './save-mode.js';
import type { FileAggregatedCommitInfo, FileCommitInfo, FileSinkState } from './sink-types.js';
import { buildTableLayout, type TableLayout } from './table-layout.js';

/**
 * Five hex digits naming one sink vertex of a job the same way on the coordinator and on every
 * worker: its config block and its input tables (a sink that reads several sources is cloned
 * into one pipeline per source, with one input table each). Writers start their uuidPrefix with
 * it, so the sink of one pipeline can drop its own temp folders without touching another's.
 */
export function sinkKey(ctx: PluginContext): string {
  const place = ctx.options.place();
  const identity = `${place.file ?? ''}:${place.line ?? 0}:${ctx.inputTables.map((t) => t.tableId).join(',')}`;
  return createHash('sha256').update(identity).digest('hex').slice(0, 5);
}

/**
 * A file sink (LocalFile, S3File) over a FileSystemAdapter. Exactly-once with
 * is_enable_transaction (the default): files appear in `path` only when their checkpoint
 * commits, and a replayed commit is a no-op.
 */
export class FileSink implements Sink<FileCommitInfo, FileAggregatedCommitInfo, FileSinkState> {
  private readonly layouts = new Map<string, TableLayout>();
  /** See sinkKey. */
  private readonly key: string;
  /**
   * A restore may change its parallelism: a writer's states name its own temp folder and the
   * moves of its prepared transaction, so a writer given several old writers' states commits
   * each (idempotently) and names its new transactions after the new job and subtask.
   */
  readonly rescalable = true;

  constructor(
    private readonly ctx: PluginContext,
    private readonly fs: FileSystemAdapter,
    private readonly plugin: string,
  ) {
    if (ctx.inputTables.length === 0) {
      throw new ConfigError(ErrorCode.CONFIG_WIRING, `${plugin} sink has no input table.`, { place: ctx.options.place() });
    }
    for (const table of ctx.inputTables) this.layouts.set(table.tableId, buildTableLayout(ctx.options, table, plugin));
    this.key = sinkKey(ctx);
  }

  /** schema_save_mode, then data_save_mode, for each target folder. */
  async prepare(): Promise<void> {
    const o = this.ctx.options;
    const folders = new Set([...this.layouts.values()].map((l) => l.path));
    for (const folder of folders) {
      await applySaveModes(this.fs, folder, o.get<SchemaSaveMode>('schema_save_mode'), o.get<DataSaveMode>('data_save_mode'), this.plugin);
    }
  }

  createWriter(ctx: SinkWriterContext, restored?: FileSinkState[]): SinkWriter<FileCommitInfo, FileSinkState> {
    const o = this.ctx.options;
    const first = this.layouts.values().next().value as TableLayout;
    return new FileSinkWriter(
      {
        plugin: this.plugin,
        jobId: this.ctx.jobId,
        fs: this.fs,
        layouts: this.layouts,
        namer: new FileNamer(String(o.get('file_name_expression')), String(o.get('filename_time_format')), first.suffix),
        tmpPath: String(o.get('tmp_path')),
        transactional: o.get<boolean>('is_enable_transaction'),
        batchSize: o.get<number>('batch_size'),
        prefixKey: this.key,
      },
      ctx,
      restored,
    );
  }

  /**
   * The pipeline ended (finished, or the job was cancelled): deletes this sink's folders in the
   * job's temp folder, prepared transactions included (their files never reach `path`: no
   * restore can commit them). Only this sink's: another pipeline of the job may still be writing
   * into the same job folder, which goes once it is empty.
   */
  async abandon(): Promise<void> {
    if (!this.ctx.options.get<boolean>('is_enable_transaction')) return;
    const jobDir = jobTempDir(String(this.ctx.options.get('tmp_path')), this.ctx.jobId);
    for (const name of await this.fs.children(jobDir)) if (name.startsWith(this.key)) await this.fs.delete(`${jobDir}/${name}`);
    await this.fs.deleteIfEmpty(jobDir);
  }

  createAggregatedCommitter(): SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo> {
    return new FileAggregatedCommitter(this.fs, this.plugin);
  }
}
