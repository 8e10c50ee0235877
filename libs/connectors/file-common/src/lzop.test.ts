import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LzopWriter, adler32, lzopDecompress } from './lzop.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-lzop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Text with repeats at every distance class (short, < 2 KiB, < 16 KiB, farther) and a run of noise. */
function sample(): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < 60_000; i++) parts.push(`${i}\tname-${i % 977}\t${(i * 7919) % 100_000}\t${'x'.repeat(i % 40)}\n`);
  const noise = Buffer.alloc(70_000);
  let s = 7;
  for (let i = 0; i < noise.length; i++) noise[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24;
  return Buffer.concat([Buffer.from(parts.join('')), noise, Buffer.from('tail')]);
}

async function unpack(bytes: Uint8Array, chunk = 4093): Promise<Buffer> {
  const chunks = (async function* () {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  })();
  const out: Uint8Array[] = [];
  for await (const c of lzopDecompress(chunks)) out.push(c);
  return Buffer.concat(out);
}

function pack(data: Uint8Array, pieces = [1000, 300_000]): Buffer {
  const w = new LzopWriter();
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of pieces) {
    out.push(w.write(data.subarray(at, at + p)));
    at += p;
  }
  out.push(w.write(data.subarray(at)), w.end());
  return Buffer.concat(out);
}

describe('lzop', () => {
  it('adler32 is the zlib checksum', () => {
    expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
  });

  it('round-trips data of every size, compressing what repeats', async () => {
    const data = sample();
    for (const d of [data, data.subarray(0, 0), data.subarray(0, 3), data.subarray(0, 21), data.subarray(0, 262_144)]) {
      const packed = pack(d);
      expect((await unpack(packed)).equals(d)).toBe(true); // equals: toEqual walks megabytes byte by byte
    }
    expect(pack(data).length).toBeLessThan(data.length * 0.6);
  });

  it('writes what the lzop tool reads, and reads what it writes', async () => {
    const data = sample();
    const ours = join(dir, 'ours.lzo');
    writeFileSync(ours, pack(data));
    expect(execFileSync('lzop', ['-dc', ours], { maxBuffer: 1 << 26 }).equals(data)).toBe(true);
    const plain = join(dir, 'plain.txt');
    writeFileSync(plain, data);
    for (const level of ['-1', '-9']) {
      execFileSync('lzop', [level, '-f', '-o', join(dir, `theirs${level}.lzo`), plain]);
      expect((await unpack(readFileSync(join(dir, `theirs${level}.lzo`)))).equals(data)).toBe(true);
    }
  });

  it('refuses what is not lzop, or corrupt', async () => {
    await expect(unpack(Buffer.from('plain text, not lzop'))).rejects.toThrow(/not an lzop file/);
    const packed = pack(sample());
    packed[packed.length - 100] ^= 0xff;
    await expect(unpack(packed)).rejects.toThrow(/corrupt LZO data|Adler-32/);
  });
});
