/**
 * The file operations the file connectors need, so LocalFile and S3File share their sink and
 * source code. Paths are '/'-separated; for an object store they are keys.
 */
export interface FileSystemAdapter {
  /** For messages, e.g. `local file system` or `s3://bucket`. */
  readonly description: string;
  /** Creates (or truncates) a file for writing; missing parent folders are created. */
  create(path: string): Promise<FileOutput>;
  /** Moves a file, replacing `to`; missing parent folders of `to` are created. */
  rename(from: string, to: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Deletes a file or a folder with everything in it; a missing path is not an error. */
  delete(path: string): Promise<void>;
  /** Creates a folder and its parents (a no-op for object stores). */
  mkdirs(path: string): Promise<void>;
  /** Names of the files and folders right under `path` (none when it does not exist). */
  children(path: string): Promise<string[]>;
  /** Deletes a folder only when it is empty (object stores have no empty folders: a no-op there). */
  deleteIfEmpty(path: string): Promise<void>;
  /** Every file under `path` (recursively), or `path` itself when it is a file. */
  listFiles(path: string): Promise<FileEntry[]>;
  /** The file's bytes as a stream of chunks. */
  read(path: string): AsyncIterable<Uint8Array>;
  /** Bytes [start, end) of a file (Parquet readers jump to the footer and to column chunks). */
  readRange(path: string, start: number, end: number): Promise<Uint8Array>;
}

export interface FileEntry {
  readonly path: string;
  readonly size: number;
  /** When the file was last written (ms since the epoch), where the listing gives it. */
  readonly modifiedMs?: number;
}

/** A file being written. Chunks are appended in order; close makes them durable. */
export interface FileOutput {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}
