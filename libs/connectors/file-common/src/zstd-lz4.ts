import { onFirstUse } from '@tideway/common';

/**
 * zstd's WebAssembly build and lz4's native addon, loaded when a writer first needs them: every
 * job whose connector imports this package loaded both at start (docs/decisions/0090).
 */
const zstdWasm = onFirstUse<typeof import('@bokuweb/zstd-wasm')>('@bokuweb/zstd-wasm', import.meta.url);
const lz4 = onFirstUse<typeof import('lz4-napi')>('lz4-napi', import.meta.url);

/** zstd's level for Parquet pages: 3, the default of zstd itself, parquet-mr and DuckDB. */
const ZSTD_LEVEL = 3;

let zstdLoading: Promise<void> | undefined;
let zstdLoaded = false;

/** Loads zstd's WebAssembly (once per thread); ZSTD pages can be compressed once it resolves. */
export function loadZstd(): Promise<void> {
  zstdLoading ??= zstdWasm()
    .init()
    .then(() => {
      zstdLoaded = true;
    });
  return zstdLoading;
}

/** A ZSTD page (one zstd frame). loadZstd must have resolved on this thread. */
export function zstdCompress(page: Uint8Array): Uint8Array {
  if (!zstdLoaded) throw new Error('zstd is not loaded on this thread yet: the writer awaits loadZstd() before its first ZSTD page.');
  return zstdWasm().compress(page, ZSTD_LEVEL);
}

/**
 * An LZ4_RAW page: one LZ4 block, no framing (Parquet's LZ4_RAW; the older LZ4 codec's Hadoop
 * framing is deprecated by the format). lz4-napi's compressSync writes the block after its
 * 4-byte uncompressed length, which is dropped.
 */
export function lz4RawCompress(page: Uint8Array): Uint8Array {
  return lz4()
    .compressSync(Buffer.from(page.buffer, page.byteOffset, page.byteLength))
    .subarray(4);
}
