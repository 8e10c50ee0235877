import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type * as yauzl from 'yauzl';
import { onFirstUse } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';

/**
 * The zip and tar readers (with their streams, about 30 modules), loaded by the first archive
 * read: every job whose connector imports this package (LocalFile, S3File, Kafka's formats)
 * loaded them at start, in its main thread and its task threads (docs/decisions/0090).
 */
const tarStream = onFirstUse<typeof import('tar-stream')>('tar-stream', import.meta.url);
export const zipReader = onFirstUse<typeof yauzl>('yauzl', import.meta.url);

/** SeaTunnel's archive_compress_codec values Tideway reads. */
export const ARCHIVE_CODECS = ['none', 'zip', 'tar', 'tar_gz'] as const;
export type ArchiveCodec = (typeof ARCHIVE_CODECS)[number];

/** One file inside an archive, its bytes streamed. */
export interface ArchiveEntry {
  readonly name: string;
  readonly bytes: AsyncIterable<Uint8Array>;
}

/** Zip archives need random access (the directory is at the end): ranges through the adapter. */
function adapterReader(fs: FileSystemAdapter, path: string): yauzl.RandomAccessReader {
  AdapterReader ??= class extends zipReader().RandomAccessReader {
    constructor(
      private readonly fs: FileSystemAdapter,
      private readonly path: string,
    ) {
      super();
    }

    override _readStreamForRange(start: number, end: number): Readable {
      const { fs, path } = this;
      const piece = 1 << 20;
      return Readable.from(
        (async function* () {
          for (let at = start; at < end; at += piece) yield Buffer.from(await fs.readRange(path, at, Math.min(end, at + piece)));
        })(),
      );
    }
  };
  return new AdapterReader(fs, path);
}

let AdapterReader: (new (fs: FileSystemAdapter, path: string) => yauzl.RandomAccessReader) | undefined;

async function* zipEntries(fs: FileSystemAdapter, path: string, size: number): AsyncGenerator<ArchiveEntry> {
  const zip = await zipReader().fromRandomAccessReaderPromise(adapterReader(fs, path), size, { lazyEntries: true });
  try {
    // yauzl 3's async iteration of entries (eachEntry), absent from its type definitions
    for await (const entry of (zip as unknown as { eachEntry(): AsyncIterable<yauzl.Entry> }).eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      yield { name: entry.fileName, bytes: await zip.openReadStreamPromise(entry) };
    }
  } finally {
    zip.close();
  }
}

async function* tarEntries(bytes: AsyncIterable<Uint8Array>, gzip: boolean): AsyncGenerator<ArchiveEntry> {
  const input = Readable.from(bytes);
  const tar = tarStream().extract();
  (gzip ? input.pipe(createGunzip()) : input).pipe(tar);
  for await (const entry of tar) {
    if (entry.header.type !== 'file') {
      entry.resume();
      continue;
    }
    yield { name: entry.header.name, bytes: entry as unknown as AsyncIterable<Uint8Array> }; // a Readable of the entry's bytes
    entry.resume(); // whatever the reader left unread, so the next header can be parsed
  }
}

/**
 * The files of an archive in their order in it (SeaTunnel's resolveArchiveCompressedInputStream),
 * streamed: an entry is read while it is yielded, and no archive is held whole in memory.
 * Folders are skipped; `none` is the file itself.
 */
export async function* archiveEntries(
  fs: FileSystemAdapter,
  path: string,
  codec: ArchiveCodec,
  size: number,
): AsyncGenerator<ArchiveEntry> {
  switch (codec) {
    case 'none':
      yield { name: path, bytes: fs.read(path) };
      return;
    case 'zip':
      yield* zipEntries(fs, path, size);
      return;
    case 'tar':
    case 'tar_gz':
      yield* tarEntries(fs.read(path), codec === 'tar_gz');
  }
}
