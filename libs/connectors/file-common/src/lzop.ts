import { lzo1xCompress, lzo1xDecompress } from './lzo1x.js';

/**
 * The lzop file format (what SeaTunnel's compress_codec = lzo writes and reads, through
 * airlift's LzopCodec): a header, then blocks of at most 256 KiB, each LZO1X-compressed (or
 * stored when that is not smaller) with an Adler-32 of its uncompressed bytes, then a 0 length.
 */

const MAGIC = [0x89, 0x4c, 0x5a, 0x4f, 0x00, 0x0d, 0x0a, 0x1a, 0x0a];
const BLOCK = 256 * 1024;
const F_ADLER32_D = 0x1;
const F_ADLER32_C = 0x2;
const F_H_EXTRA_FIELD = 0x40;
const F_CRC32_D = 0x100;
const F_CRC32_C = 0x200;
const F_H_FILTER = 0x800;
const F_H_CRC32 = 0x1000;

export function adler32(data: Uint8Array, start = 1): number {
  let a = start & 0xffff;
  let b = (start >>> 16) & 0xffff;
  for (let i = 0; i < data.length; ) {
    const end = Math.min(i + 5552, data.length);
    for (; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const u32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const u16 = (n: number): number[] => [(n >>> 8) & 0xff, n & 0xff];

/** Writes an lzop stream: `write` as bytes come, `end` for the last block and the end marker. */
export class LzopWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private started = false;

  /** lzop bytes for `data` (whole blocks only; the rest waits for more data or end()). */
  write(data: Uint8Array): Uint8Array {
    this.pending.push(data);
    this.pendingBytes += data.length;
    return this.drain(false);
  }

  end(): Uint8Array {
    const out = this.drain(true);
    return concat([out, new Uint8Array(4)]);
  }

  private header(): Uint8Array {
    // version 0x1030, lib 0x2080, needed 0x0940, method 1 (LZO1X-1), level 5, flags, mode, mtime, no name
    const body = [...u16(0x1030), ...u16(0x2080), ...u16(0x0940), 1, 5, ...u32(F_ADLER32_D), ...u32(0o100644), ...u32(0), ...u32(0), 0];
    return new Uint8Array([...MAGIC, ...body, ...u32(adler32(new Uint8Array(body)))]);
  }

  private drain(all: boolean): Uint8Array {
    const parts: Uint8Array[] = [];
    if (!this.started) {
      parts.push(this.header());
      this.started = true;
    }
    if (this.pendingBytes >= BLOCK || (all && this.pendingBytes > 0)) {
      let data = concat(this.pending);
      let at = 0;
      while (data.length - at >= BLOCK || (all && at < data.length)) {
        const block = data.subarray(at, Math.min(at + BLOCK, data.length));
        const packed = lzo1xCompress(block);
        const stored = packed.length >= block.length;
        parts.push(new Uint8Array([...u32(block.length), ...u32(stored ? block.length : packed.length), ...u32(adler32(block))]));
        parts.push(stored ? block : packed);
        at += block.length;
      }
      data = data.subarray(at);
      this.pending = data.length > 0 ? [data.slice()] : [];
      this.pendingBytes = data.length;
    }
    return concat(parts);
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads exactly n bytes from a chunk stream, keeping what is left over. */
class ByteReader {
  private buf: Uint8Array = new Uint8Array(0);
  private readonly it: AsyncIterator<Uint8Array>;
  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.it = chunks[Symbol.asyncIterator]();
  }
  async take(n: number): Promise<Uint8Array> {
    if (this.buf.length < n) {
      // gather chunks first and copy once: a 256 KiB block from 64 KiB reads would otherwise copy quadratically
      const parts = [this.buf];
      let have = this.buf.length;
      while (have < n) {
        const r = await this.it.next();
        if (r.done) throw new Error(`the lzop stream ends early (needed ${n} bytes, ${have} left)`);
        parts.push(r.value);
        have += r.value.length;
      }
      this.buf = concat(parts);
    }
    const out = this.buf.slice(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  async u32(): Promise<number> {
    const b = await this.take(4);
    return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  }
  async u16(): Promise<number> {
    const b = await this.take(2);
    return (b[0] << 8) | b[1];
  }
}

/** The uncompressed bytes of an lzop stream, block by block (never the whole file in memory). */
export async function* lzopDecompress(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const r = new ByteReader(chunks);
  const magic = await r.take(9);
  if (MAGIC.some((b, i) => magic[i] !== b)) throw new Error('not an lzop file (wrong magic bytes)');
  const version = await r.u16();
  await r.u16(); // library version
  if (version >= 0x0940) await r.u16(); // version needed to extract
  const method = (await r.take(1))[0];
  if (method < 1 || method > 3) throw new Error(`lzop method ${method} is not LZO1X`);
  if (version >= 0x0940) await r.take(1); // level
  const flags = await r.u32();
  if (flags & F_H_FILTER) throw new Error('lzop filters are not supported');
  await r.u32(); // mode
  await r.u32(); // mtime
  if (version >= 0x0940) await r.u32(); // mtime high
  const nameLength = (await r.take(1))[0];
  await r.take(nameLength);
  await r.u32(); // header checksum (adler32 or crc32 per F_H_CRC32): the block checksums guard the data
  void F_H_CRC32;
  if (flags & F_H_EXTRA_FIELD) {
    const extra = await r.u32();
    await r.take(extra);
    await r.u32();
  }
  for (;;) {
    const size = await r.u32();
    if (size === 0) return;
    const packedSize = await r.u32();
    const dAdler = flags & F_ADLER32_D ? await r.u32() : undefined;
    if (flags & F_CRC32_D) await r.u32();
    if (packedSize < size && flags & F_ADLER32_C) await r.u32();
    if (packedSize < size && flags & F_CRC32_C) await r.u32();
    const packed = await r.take(packedSize);
    const data = packedSize < size ? lzo1xDecompress(packed, size) : packed;
    if (dAdler !== undefined && adler32(data) !== dAdler) throw new Error('an lzop block fails its Adler-32 check');
    yield data;
  }
}
