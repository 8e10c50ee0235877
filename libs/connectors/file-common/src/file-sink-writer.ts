import { randomBytes } from 'node:crypto';
import type { Row, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ErrorCode, TidewayError, ValueConversionError } from '@tideway/common';
import { commitTransaction } from './file-committer.js';
import type { FileNamer } from './file-name.js';
import type { FileOutput, FileSystemAdapter } from './file-system.js';
import { type FileEncoder, isValueError } from './file-encoder.js';
import type { FileCommitInfo, FileSinkState } from './sink-types.js';
import type { TableLayout } from './table-layout.js';

/** What a file sink writer needs besides its context. */
export interface FileSinkWriterConfig {
  readonly plugin: string;
  readonly jobId: string;
  readonly fs: FileSystemAdapter;
  /** Layouts by tableId. */
  readonly layouts: ReadonlyMap<string, TableLayout>;
  readonly namer: FileNamer;
  readonly tmpPath: string;
  readonly transactional: boolean;
  readonly batchSize: number;
  /** The first hex digits of every uuidPrefix of this sink (see sinkKey), so abandon() finds its own folders. */
  readonly prefixKey: string;
}

const NON_PARTITION = 'NON_PARTITION';
/** What the sink's reused array of fields holds once a run of rows is encoded. */
const NO_FIELDS: readonly unknown[] = [];
/** SeaTunnel's uuidPrefix is 10 characters. */
const UUID_PREFIX_LENGTH = 10;

/** The folder under tmp_path holding every transaction of a job (all writers, all attempts). */
export function jobTempDir(tmpPath: string, jobId: string): string {
  return `${tmpPath.replace(/\/+$/, '')}/seatunnel/${jobId}`;
}

/** One file being written, with its encoder holding what the current batch added. */
interface OpenFile {
  readonly output: Promise<FileOutput>;
  readonly path: string;
  readonly finalPath: string;
  readonly layout: TableLayout;
  readonly encoder: FileEncoder;
  /**
   * The write of the file's last bytes while it runs: the next batch is encoded meanwhile, and
   * the next write (or the file's end) waits for it first, so one write at a time is in flight
   * and a failed one fails the next write() or prepareCommit, before anything is committed.
   */
  writing: Promise<void>;
}

/** Gives a file up: its write in flight settles and it is closed, errors dropped (the caller has one already, or is aborting). */
async function dropFile(file: OpenFile): Promise<void> {
  await file.writing.catch(() => undefined);
  const output = await file.output.catch(() => undefined); // a file that could not be created has nothing to close
  await output?.close().catch(() => undefined);
}

/**
 * Writes rows into files, one set of files per transaction (SeaTunnel's AbstractWriteStrategy):
 * transaction `T_<job>_<uuidPrefix>_<subtask>_<checkpointId>` writes under
 * `<tmp_path>/seatunnel/<job>/<uuidPrefix>/<transaction>/`; prepareCommit closes its files and
 * returns the temp -> final moves; the aggregated committer moves them. Without transactions,
 * files are written in place and a checkpoint only closes them.
 */
export class FileSinkWriter implements SinkWriter<FileCommitInfo, FileSinkState> {
  private readonly uuidPrefix: string;
  private readonly nonce = randomBytes(4).toString('hex');
  private checkpointId: number;
  private transactionId = '';
  private transactionDir = '';
  private part = 0;
  private rowsInPart = 0;
  private readonly open = new Map<string, OpenFile>();
  private moves: [string, string][] = [];
  private prepared: { transactionId: string; checkpointId: number; commit?: FileCommitInfo } | undefined;
  /** The fields of a run of rows handed to an encoder's addRows, in an array kept as long as the longest run; emptied after each call. */
  private readonly gathered: (readonly unknown[])[] = [];
  private readonly ready: Promise<void>;
  /** env.sink_error_handler: where the rows no file can hold go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;
  /** With `reject`: an encoder per table that only probes rows (FileEncoder.probe), never writes a file. */
  private readonly probes = new Map<string, FileEncoder>();

  constructor(
    private readonly cfg: FileSinkWriterConfig,
    private readonly ctx: SinkWriterContext,
    restored?: FileSinkState[],
  ) {
    const states = restored ?? [];
    this.uuidPrefix = states[0]?.uuidPrefix ?? (cfg.prefixKey + randomBytes(5).toString('hex')).slice(0, UUID_PREFIX_LENGTH);
    this.checkpointId = states.length > 0 ? Math.max(...states.map((s) => s.checkpointId)) + 1 : 1;
    this.beginTransaction();
    const formats = Promise.all([...cfg.layouts.values()].flatMap((l) => (l.load ? [l.load()] : [])));
    this.ready = Promise.all([formats, cfg.transactional ? this.recover(states) : undefined]).then(() => undefined);
    this.ready.catch(() => undefined); // surfaced by the first write/prepareCommit
  }

  /** Folder of every transaction of this writer. */
  private get prefixDir(): string {
    return `${jobTempDir(this.cfg.tmpPath, this.cfg.jobId)}/${this.uuidPrefix}`;
  }

  private beginTransaction(): void {
    this.transactionId = `T_${this.cfg.jobId}_${this.uuidPrefix}_${this.ctx.subtaskIndex}_${this.checkpointId}`;
    // The folder also carries this writer's own nonce: a writer of an earlier attempt that is
    // still being cancelled (after a leader fail-over) drops its folder, never this one's.
    this.transactionDir = `${this.prefixDir}/${this.transactionId}-${this.nonce}`;
    this.moves = [];
    this.part = 0;
    this.rowsInPart = 0;
  }

  /**
   * After a restore: commits the transactions the checkpoint holds (idempotent: the engine may
   * commit them too) and deletes every other temp folder of this writer, left by the failed run.
   */
  private async recover(states: FileSinkState[]): Promise<void> {
    if (states.length === 0) return;
    const keep = new Set<string>();
    for (const s of states) {
      if (s.commit) {
        await commitTransaction(this.cfg.fs, s.commit, this.cfg.plugin);
        keep.add(s.commit.transactionDir);
      }
    }
    const prefix = `${this.prefixDir}/`;
    const leftovers = new Set<string>();
    for (const f of await this.cfg.fs.listFiles(this.prefixDir)) {
      const rest = f.path.startsWith(prefix) ? f.path.slice(prefix.length) : undefined;
      if (rest === undefined) continue;
      const dir = prefix + rest.split('/')[0];
      if (!keep.has(dir)) leftovers.add(dir);
    }
    for (const dir of leftovers) await this.cfg.fs.delete(dir);
  }

  /**
   * Row-level errors: a row whose partition field is null, or with a value its column's type
   * cannot hold in the file's format (an unparseable date or timestamp for Parquet or ORC, an
   * integer out of INT64's range, a null map key), is handed to `reject` and the rest is written.
   * Rows are then added one at a time, each converted first by a probe encoder, so a bad row
   * leaves nothing of itself in a file. Creating, writing, closing and moving files (a full
   * disk, no permission, S3 refusing or away) still fails the task.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  async write(rows: readonly Row[]): Promise<void> {
    await this.ready;
    const touched = new Set<OpenFile>();
    for (let i = 0; i < rows.length; ) {
      const layout = this.layoutOf(rows[i].tableId);
      // binary files are written whole, one file per source file: batch_size cannot cut them
      if (this.rowsInPart >= this.cfg.batchSize && !layout.fileNameOf) {
        await this.flush(touched);
        await this.closeFiles();
        this.part++;
        this.rowsInPart = 0;
      }
      i = this.addRun(rows, i, layout, touched);
    }
    await this.flush(touched);
  }

  private layoutOf(tableId: string): TableLayout {
    return this.cfg.layouts.get(tableId) ?? this.unknownTable(tableId);
  }

  /**
   * Adds the rows from `from` on that are of its table and fit the current part (batch_size),
   * and returns where it stopped. A table written to one file (not partitioned, no file per row)
   * whose encoder takes batches gets them in one call, its rows' fields gathered in an array
   * reused from batch to batch; other rows go one at a time to their file's encoder.
   */
  private addRun(rows: readonly Row[], from: number, layout: TableLayout, touched: Set<OpenFile>): number {
    const tableId = layout.tableId;
    const room = layout.fileNameOf ? Number.POSITIVE_INFINITY : this.cfg.batchSize - this.rowsInPart;
    let to = from + 1;
    while (to < rows.length && to - from < room && rows[to].tableId === tableId) to++;
    this.rowsInPart += to - from;
    const reject = this.reject;
    if (reject) {
      for (let r = from; r < to; r++) this.addChecked(rows[r], layout, touched, reject);
      return to;
    }
    if (!layout.partitionDir && !layout.fileNameOf) {
      const file = this.fileOf(layout, '', undefined);
      touched.add(file);
      const encoder = file.encoder;
      if (encoder.addRows) {
        const fields = this.gathered;
        const n = to - from;
        for (let r = from; r < to; r++) fields[r - from] = rows[r].fields;
        try {
          encoder.addRows(fields, n, layout.columns);
        } finally {
          // the rows are the caller's: keep none alive past this call. Not `length = 0`, which
          // drops the array's store: growing it again to a batch's size took about 100 KB of
          // allocation a batch of 4096 rows, and the scavenges that come with it.
          fields.fill(NO_FIELDS, 0, n);
        }
      } else {
        for (let r = from; r < to; r++) encoder.add(layout.pick(rows[r].fields));
      }
      return to;
    }
    for (let r = from; r < to; r++) {
      const fields = rows[r].fields;
      const file = this.fileOf(layout, layout.partitionDir?.(fields) ?? '', layout.fileNameOf?.(fields));
      touched.add(file);
      file.encoder.add(layout.pick(fields));
    }
    return to;
  }

  /** Adds one row after probing it (handleRowErrors); a row no file can hold goes to `reject` instead. */
  private addChecked(row: Row, layout: TableLayout, touched: Set<OpenFile>, reject: (row: Row, error: Error) => void): void {
    const fields = row.fields;
    let partition: string;
    let own: string | undefined;
    let picked: readonly unknown[];
    try {
      partition = layout.partitionDir?.(fields) ?? '';
      own = layout.fileNameOf?.(fields);
      picked = layout.pick(fields);
      this.probeOf(layout)?.probe?.(picked);
    } catch (err) {
      if (!isValueError(err)) throw err;
      this.rowsInPart--;
      const message = `${this.cfg.plugin}: a row of ${layout.tableId} cannot be written to a ${layout.format} file: ${err.message}`;
      reject(row, new ValueConversionError(ErrorCode.VALUE_CONVERSION, message, { cause: err }));
      return;
    }
    const file = this.fileOf(layout, partition, own);
    touched.add(file);
    file.encoder.add(picked);
  }

  /** The table's probe encoder, when its format has row-level errors. */
  private probeOf(layout: TableLayout): FileEncoder | undefined {
    let encoder = this.probes.get(layout.tableId);
    if (!encoder) {
      encoder = layout.newEncoder();
      this.probes.set(layout.tableId, encoder);
    }
    return encoder.probe ? encoder : undefined;
  }

  /** The open file of a table's partition (and own file name), opened if it is not. */
  private fileOf(layout: TableLayout, partition: string, own: string | undefined): OpenFile {
    // the table id alone when there is one file per table: no string made per row
    const key = partition === '' && own === undefined ? layout.tableId : `${layout.tableId}\u0000${partition}\u0000${own ?? ''}`;
    let file = this.open.get(key);
    if (!file) {
      file = this.openFile(layout, partition, own);
      this.open.set(key, file);
    }
    return file;
  }

  private unknownTable(tableId: string): never {
    throw new TidewayError(
      ErrorCode.INTERNAL,
      `${this.cfg.plugin}: a row of table '${tableId}' reached the sink, which was planned for ${[...this.cfg.layouts.keys()].join(', ')}.`,
    );
  }

  private openFile(layout: TableLayout, partition: string, own?: string): OpenFile {
    const name = own ?? this.cfg.namer.name(this.transactionId, this.part);
    const finalPath = `${layout.path === '/' ? '' : layout.path}/${partition === '' ? '' : `${partition}/`}${name}`;
    const tableIndex = [...this.cfg.layouts.keys()].indexOf(layout.tableId);
    const path = this.cfg.transactional
      ? `${this.transactionDir}/${tableIndex}/${partition === '' ? NON_PARTITION : partition}/${name}`
      : finalPath;
    const output = this.cfg.fs.create(path);
    output.catch(() => undefined); // awaited in flush
    return { output, path, finalPath, layout, encoder: layout.newEncoder(), writing: Promise.resolve() };
  }

  private async flush(files: Iterable<OpenFile>): Promise<void> {
    for (const file of files) {
      const chunk = file.encoder.take();
      if (!chunk) continue;
      const output = await file.output;
      await file.writing;
      file.writing = output.write(chunk);
      file.writing.catch(() => undefined); // awaited by the file's next write or its end
    }
  }

  /** Ends a file: its encoder's last bytes, then close; a failed write or encoding still closes it. */
  private async finishFile(file: OpenFile): Promise<void> {
    const output = await file.output;
    try {
      await file.writing;
      const last = await file.encoder.finish();
      if (last) await output.write(last);
    } catch (err) {
      await dropFile(file);
      throw err;
    }
    await output.close();
  }

  /** Closes every open file and records its move; after a failure the others are closed all the same. */
  private async closeFiles(): Promise<void> {
    const files = [...this.open.values()];
    this.open.clear();
    for (let i = 0; i < files.length; i++) {
      try {
        await this.finishFile(files[i]);
      } catch (err) {
        for (const rest of files.slice(i + 1)) await dropFile(rest);
        throw err;
      }
      if (this.cfg.transactional) this.moves.push([files[i].path, files[i].finalPath]);
    }
  }

  async prepareCommit(checkpointId: number): Promise<FileCommitInfo | undefined> {
    await this.ready;
    await this.closeFiles();
    const commit = this.cfg.transactional && this.moves.length > 0 ? { transactionDir: this.transactionDir, moves: this.moves } : undefined;
    this.prepared = { transactionId: this.transactionId, checkpointId, commit };
    this.checkpointId = checkpointId + 1;
    this.beginTransaction();
    return commit;
  }

  snapshotState(checkpointId: number): FileSinkState[] {
    const p = this.prepared;
    if (p && p.checkpointId === checkpointId) {
      return [{ uuidPrefix: this.uuidPrefix, checkpointId, transactionId: p.transactionId, commit: p.commit }];
    }
    return [{ uuidPrefix: this.uuidPrefix, checkpointId, transactionId: '' }];
  }

  /**
   * After a failure: drops the open transaction only. The last prepared one may still be
   * committed (its checkpoint can complete after this failure, and a restore re-commits what its
   * checkpoint holds); a restored writer deletes what no checkpoint kept.
   */
  async abortPrepare(): Promise<void> {
    this.prepared = undefined;
    const files = [...this.open.values()];
    this.open.clear();
    for (const file of files) await dropFile(file);
    if (this.cfg.transactional) await this.cfg.fs.delete(this.transactionDir);
  }

  async close(): Promise<void> {
    const files = [...this.open.values()];
    this.open.clear();
    for (const file of files) await this.finishFile(file);
    // Rows after the last prepareCommit belong to no checkpoint: their temp files can never be committed.
    if (this.cfg.transactional) await this.cfg.fs.delete(this.transactionDir);
  }
}
