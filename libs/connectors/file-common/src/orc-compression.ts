import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { decompressLz4Raw, decompressZstd } from 'hyparquet-compressors';
import { snappyUncompressor } from 'hysnappy';
import { CompressionKind } from './gen/orc_file.js';
import { ByteSink, OrcCorruptError } from './orc-rle.js';
import { inArena, u8 } from './orc-arena.js';
import { snappyCompressReused } from './snappy-compress.js';
import { lz4RawCompress, zstdCompress } from './zstd-lz4.js';

/**
 * ORC's compression framing (specification v1, "Compression"): a stream, footer or metadata
 * section is a run of chunks, each a 3-byte little-endian header (length << 1 | original) and
 * the chunk, compressed on its own (zlib: raw deflate; snappy and lz4: raw blocks; zstd: frames)
 * or stored as it was when compressing did not make it smaller. The codecs are those the Parquet
 * reader and writer use (node:zlib, lz4-napi, zstd-wasm, Tideway's snappy compressor of decision
 * 0023, hysnappy's decompressor and hyparquet-compressors' other decoders); LZO is refused by name.
 */

/** hysnappy's decompressor, its WebAssembly instance made once (its snappyUncompress makes one a call). */
let snappyDecoder: ((input: Uint8Array, outputLength: number) => Uint8Array) | undefined;

/** The compress_codec values the ORC writer takes, and the file's codec. */
export const ORC_WRITE_CODECS: Record<string, CompressionKind> = {
  none: CompressionKind.NONE,
  zlib: CompressionKind.ZLIB,
  snappy: CompressionKind.SNAPPY,
  lz4: CompressionKind.LZ4,
  zstd: CompressionKind.ZSTD,
};

export const CODEC_NAMES: Record<number, string> = {
  [CompressionKind.NONE]: 'none',
  [CompressionKind.ZLIB]: 'zlib',
  [CompressionKind.SNAPPY]: 'snappy',
  [CompressionKind.LZO]: 'lzo',
  [CompressionKind.LZ4]: 'lz4',
  [CompressionKind.ZSTD]: 'zstd',
};

/** The largest chunk a decompressed chunk may grow to (a writer's block size is at most a few MB). */
const MAX_CHUNK = 64 * 1024 * 1024;

/** Bytes an LZ4 block decodes to, counted from its sequences (the block does not say). */
function lz4DecodedLength(input: Uint8Array): number {
  let len = 0;
  let i = 0;
  while (i < input.length) {
    const token = input[i++];
    let literals = token >>> 4;
    if (literals === 15) {
      let b = 255;
      while (b === 255 && i < input.length) literals += b = input[i++];
    }
    len += literals;
    i += literals;
    if (i >= input.length) break;
    i += 2;
    let match = token & 15;
    if (match === 15) {
      let b = 255;
      while (b === 255 && i < input.length) match += b = input[i++];
    }
    len += match + 4;
    if (len > MAX_CHUNK) throw new OrcCorruptError('an lz4 chunk decodes to more than 64 MB');
  }
  return len;
}

/** The uncompressed length a snappy block starts with. */
function snappyLength(input: Uint8Array): number {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 5 && i < input.length; i++) {
    v += (input[i] & 0x7f) * mul;
    if (input[i] < 0x80) return v;
    mul *= 128;
  }
  throw new OrcCorruptError('a snappy chunk has no length');
}

/** One chunk (or any raw block) decompressed by `codec` (also the Iceberg connector's Avro data blocks). */
export function decompressChunk(codec: CompressionKind, chunk: Uint8Array): Uint8Array {
  switch (codec) {
    case CompressionKind.ZLIB:
      return inflateRawSync(chunk, { maxOutputLength: MAX_CHUNK });
    case CompressionKind.SNAPPY: {
      const n = snappyLength(chunk);
      if (n > MAX_CHUNK) throw new OrcCorruptError('a snappy chunk decodes to more than 64 MB');
      snappyDecoder ??= snappyUncompressor();
      return snappyDecoder(chunk, n);
    }
    case CompressionKind.LZ4:
      return decompressLz4Raw(chunk, lz4DecodedLength(chunk));
    case CompressionKind.ZSTD:
      return decompressZstd(chunk);
    default:
      throw new OrcCorruptError(
        `the file's codec ${CODEC_NAMES[codec] ?? `#${codec}`} is not one Tideway reads (none, zlib, snappy, lz4, zstd)`,
      );
  }
}

/** Whether Tideway reads the codec. */
export function isReadCodec(codec: number): boolean {
  return [CompressionKind.NONE, CompressionKind.ZLIB, CompressionKind.SNAPPY, CompressionKind.LZ4, CompressionKind.ZSTD].includes(codec);
}

/** The bytes of a compressed section (stream, footer, metadata). */
export function decompress(codec: CompressionKind, bytes: Uint8Array): Uint8Array {
  if (codec === CompressionKind.NONE) return bytes;
  const parts: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  while (pos < bytes.length) {
    if (pos + 3 > bytes.length) throw new OrcCorruptError('a compressed chunk header is cut short');
    const h = bytes[pos] | (bytes[pos + 1] << 8) | (bytes[pos + 2] << 16);
    const len = h >>> 1;
    pos += 3;
    if (pos + len > bytes.length) throw new OrcCorruptError(`a compressed chunk of ${len} bytes passes the end of its section`);
    const chunk = bytes.subarray(pos, pos + len);
    pos += len;
    let out: Uint8Array;
    if (h & 1) out = chunk;
    else {
      try {
        out = decompressChunk(codec, chunk);
      } catch (err) {
        if (err instanceof OrcCorruptError) throw err;
        throw new OrcCorruptError(`a ${CODEC_NAMES[codec]} chunk does not decompress (${(err as Error).message})`);
      }
    }
    parts.push(out);
    total += out.length;
  }
  // one chunk's bytes as they are, unless decoding writes into an arena (orc-arena.ts), which they then join
  if (parts.length === 1 && !inArena()) return parts[0];
  const joined = u8(total);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return joined;
}

/** One raw block compressed by `codec` (snappy's result is reused by the next call: copy it out). */
export function compressChunk(codec: CompressionKind, chunk: Uint8Array): Uint8Array {
  switch (codec) {
    case CompressionKind.ZLIB:
      return deflateRawSync(chunk);
    case CompressionKind.SNAPPY:
      return snappyCompressReused(chunk); // copied out before the next call
    case CompressionKind.LZ4:
      return lz4RawCompress(chunk);
    case CompressionKind.ZSTD:
      return zstdCompress(chunk); // loadZstd() first
    default:
      throw new Error(`the ORC writer does not compress with ${CODEC_NAMES[codec]}`);
  }
}

/**
 * A section compressed in chunks of at most `blockSize` bytes, each stored as it was when
 * compressing does not shrink it, written at the end of `out`; returns the bytes written.
 */
export function compressInto(codec: CompressionKind, bytes: Uint8Array, blockSize: number, out: ByteSink): number {
  const start = out.length;
  if (codec === CompressionKind.NONE) {
    out.write(bytes);
    return bytes.length;
  }
  for (let at = 0; at < bytes.length; at += blockSize) {
    const chunk = bytes.subarray(at, Math.min(bytes.length, at + blockSize));
    const packed = compressChunk(codec, chunk);
    const original = packed.length >= chunk.length;
    const body = original ? chunk : packed;
    const h = (body.length << 1) | (original ? 1 : 0);
    out.room(3 + body.length);
    out.buf[out.length] = h & 0xff;
    out.buf[out.length + 1] = (h >>> 8) & 0xff;
    out.buf[out.length + 2] = (h >>> 16) & 0xff;
    out.length += 3;
    out.write(body);
  }
  return out.length - start;
}

/** A section compressed (compressInto) into an array of its own. */
export function compress(codec: CompressionKind, bytes: Uint8Array, blockSize: number): Uint8Array {
  const out = new ByteSink(Math.min(bytes.length, blockSize) + 64);
  compressInto(codec, bytes, blockSize, out);
  return out.bytes().slice();
}
