import { brotliCompressSync, gzipSync } from 'node:zlib';
import { snappyCompressReused } from './snappy-compress.js';
import { lz4RawCompress, zstdCompress } from './zstd-lz4.js';

/** The codecs the flat Parquet writer compresses pages with. */
export type PageCodec = 'SNAPPY' | 'GZIP' | 'BROTLI' | 'ZSTD' | 'LZ4_RAW';

/**
 * The compressor of each codec. SNAPPY's result is a reused buffer, valid until the next call:
 * callers that keep it (hyparquet-writer's nested path) put a compressor of their own in its place.
 */
export const PAGE_COMPRESSORS: Readonly<Record<PageCodec, (page: Uint8Array) => Uint8Array>> = {
  SNAPPY: snappyCompressReused,
  GZIP: gzipSync,
  BROTLI: brotliCompressSync,
  ZSTD: zstdCompress, // loadZstd() first, on the thread that compresses
  LZ4_RAW: lz4RawCompress,
};

/** Whether `codec` is one the flat writer compresses pages with. */
export function isPageCodec(codec: string): codec is PageCodec {
  return codec in PAGE_COMPRESSORS;
}

/** Compresses one page; the result stays valid only until the next call (snappy reuses its buffer). */
export function compressPage(codec: PageCodec, page: Uint8Array): Uint8Array {
  return PAGE_COMPRESSORS[codec](page);
}
