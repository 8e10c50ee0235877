import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, ErrorCode } from '@tideway/common';
import { type FileOutput, type FileSystemAdapter, LocalFileSystem } from '@tideway/connector-file-common';
import { S3AccessError, S3FileSystem } from '@tideway/connector-s3file';

/**
 * Iceberg's FileIO: the files of a table (data and delete files, manifests, manifest lists,
 * metadata JSON) by their location, on a local folder (`file:` URIs or absolute paths) or in S3
 * (`s3://`, `s3a://`, `s3n://bucket/key`). S3 is configured by the catalog properties Iceberg's
 * S3FileIO and PyIceberg read: s3.endpoint, s3.access-key-id, s3.secret-access-key,
 * s3.session-token, s3.path-style-access, client.region. Exported for the Iceberg source too.
 */
export interface IcebergFileIO {
  read(location: string): Promise<Uint8Array>;
  /** Bytes [start, end) of a file. */
  readRange(location: string, start: number, end: number): Promise<Uint8Array>;
  /** Writes a whole file that readers see complete or not at all (a local file through a renamed temporary; an S3 object is atomic). */
  write(location: string, bytes: Uint8Array | string): Promise<void>;
  /** A file written in chunks (data files): it exists complete once closed. */
  create(location: string): Promise<FileOutput>;
  /** Deletes a file; a missing one is not an error. */
  delete(location: string): Promise<void>;
  exists(location: string): Promise<boolean>;
  /**
   * Every file under a folder location, recursively (a local folder walked; an S3 prefix listed
   * by ListObjectsV2 pages), as locations of the same form as `folder`, with size and time
   * written. A missing folder has none.
   */
  list(folder: string): Promise<ListedFile[]>;
  /** Refuses a location this FileIO cannot reach (an unknown scheme), in one sentence naming `where`. */
  check(location: string, where: string): void;
}

/** A file found by IcebergFileIO.list. */
export interface ListedFile {
  readonly location: string;
  readonly size: number;
  /** When it was last written (ms since the epoch). */
  readonly modifiedMs: number;
}

/** The catalog properties of S3 that the FileIO takes (Iceberg's names). */
export const S3_FILE_IO_KEYS = [
  's3.endpoint',
  's3.access-key-id',
  's3.secret-access-key',
  's3.session-token',
  's3.path-style-access',
  'client.region',
] as const;

/** Bytes per multipart upload part of a data file; smaller files go up in one PutObject. */
const S3_PART_BYTES = 16 * 1024 * 1024;

/** The local path of a location (`file:` URI or absolute path); undefined for other schemes. */
export function localPathOf(location: string): string | undefined {
  // taken literally, not URL-decoded: Iceberg writers keep a partition value's escapes (%3A) in file names
  if (location.startsWith('file://')) return location.slice('file://'.length);
  if (location.startsWith('file:')) return location.slice('file:'.length);
  if (location.startsWith('/')) return location;
  return undefined;
}

const S3_LOCATION = /^s3[an]?:\/\/([^/]+)\/?(.*)$/i;

/** The catalog keys to look at for what the S3File connector's errors name by its own options. */
const ICEBERG_KEY_OF: Record<string, string> = {
  'fs.s3a.endpoint': 's3.endpoint',
  access_key: 's3.access-key-id and s3.secret-access-key',
  'fs.s3a.aws.credentials.provider': 's3.access-key-id and s3.secret-access-key',
};

/** An S3 error in the words of Iceberg's catalog keys (the S3File connector's sentence names its own options). */
function icebergS3Error(err: unknown): unknown {
  if (!(err instanceof S3AccessError)) return err;
  const key = ICEBERG_KEY_OF[err.option];
  const sentence = err.message.replace(/; check [^;]*$/, '').replace(/\.$/, '');
  return new S3AccessError(
    key
      ? `${sentence}; check ${key} of iceberg.catalog.config.`
      : `${sentence}; check the table's location (iceberg.catalog.config warehouse).`,
    err.code,
    { cause: err },
    key ?? 'warehouse',
  );
}

/** `fn`'s result, its S3 errors in Iceberg's words. */
async function s3Call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw icebergS3Error(err);
  }
}

export class FileIO implements IcebergFileIO {
  private readonly local = new LocalFileSystem();
  private readonly buckets = new Map<string, S3FileSystem>();

  constructor(private readonly props: Readonly<Record<string, string | undefined>> = {}) {}

  check(location: string, where: string): void {
    if (localPathOf(location) !== undefined || S3_LOCATION.test(location)) return;
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1];
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where}: Iceberg location ${location}: ${scheme ? `the ${scheme}: scheme is not supported by Tideway's Iceberg connector (local folders and s3://)` : 'not an absolute path, file: URI or s3:// URI'}.`,
    );
  }

  private resolve(location: string): { fs: FileSystemAdapter; path: string; local: boolean } {
    const path = localPathOf(location);
    if (path !== undefined) return { fs: this.local, path, local: true };
    const m = S3_LOCATION.exec(location);
    if (!m) {
      this.check(location, 'Iceberg FileIO');
      throw new Error('unreachable');
    }
    return { fs: this.bucket(m[1]), path: m[2], local: false };
  }

  private bucket(name: string): S3FileSystem {
    let fs = this.buckets.get(name);
    if (!fs) {
      const p = this.props;
      const region = p['client.region'] ?? process.env.AWS_REGION ?? 'us-east-1';
      const id = p['s3.access-key-id'];
      const secret = p['s3.secret-access-key'];
      fs = new S3FileSystem({
        bucket: name,
        endpoint: p['s3.endpoint'] ?? `https://s3.${region}.amazonaws.com`,
        region,
        credentials: id && secret ? { accessKeyId: id, secretAccessKey: secret, sessionToken: p['s3.session-token'] } : undefined,
        forcePathStyle: p['s3.path-style-access'] === 'true',
        partSize: S3_PART_BYTES,
      });
      this.buckets.set(name, fs);
    }
    return fs;
  }

  async read(location: string): Promise<Uint8Array> {
    const { fs, path, local } = this.resolve(location);
    if (local) return readFile(path);
    return s3Call(async () => {
      const chunks: Uint8Array[] = [];
      for await (const c of fs.read(path)) chunks.push(c);
      return Buffer.concat(chunks);
    });
  }

  readRange(location: string, start: number, end: number): Promise<Uint8Array> {
    const { fs, path } = this.resolve(location);
    return s3Call(() => fs.readRange(path, start, end));
  }

  async write(location: string, bytes: Uint8Array | string): Promise<void> {
    const { fs, path, local } = this.resolve(location);
    if (local) {
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${randomUUID()}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, path);
      return;
    }
    await s3Call(async () => {
      const out = await fs.create(path);
      await out.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
      await out.close();
    });
  }

  async create(location: string): Promise<FileOutput> {
    const { fs, path, local } = this.resolve(location);
    const out = await fs.create(path);
    if (local) return out;
    return { write: (chunk) => s3Call(() => out.write(chunk)), close: () => s3Call(() => out.close()) };
  }

  async delete(location: string): Promise<void> {
    const { fs, path, local } = this.resolve(location);
    if (local) await rm(path, { force: true });
    else await s3Call(() => fs.delete(path));
  }

  exists(location: string): Promise<boolean> {
    const { fs, path } = this.resolve(location);
    return s3Call(() => fs.exists(path));
  }

  async list(folder: string): Promise<ListedFile[]> {
    const { fs, path, local } = this.resolve(folder);
    const dir = path.replace(/\/+$/, '');
    const base = folder.replace(/\/+$/, '');
    const entries = await s3Call(() => fs.listFiles(dir));
    return entries
      .filter((e) => e.path !== dir) // the folder location is a file itself: it is not under itself
      .map((e) => ({
        // the listed path relative to the folder, put back under the folder's own form (file:, s3a:, ...)
        location: `${base}/${(local ? e.path : e.path.replace(/^\//, '')).slice(dir.length + 1)}`,
        size: e.size,
        modifiedMs: e.modifiedMs ?? 0,
      }));
  }
}
