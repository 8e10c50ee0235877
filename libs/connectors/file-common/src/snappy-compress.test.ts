/**
 * Tideway's Snappy compressor against another implementation: hysnappy's decompressor (the
 * reference C++ code built to WebAssembly) gives back every input, across block edges, long
 * runs, literals of every length class and inputs too short to compress.
 */
import { randomBytes } from 'node:crypto';
import { snappyUncompress } from 'hysnappy';
import { describe, expect, it } from 'vitest';
import { snappyCompress, snappyCompressReused } from './snappy-compress.js';

function roundTrip(input: Uint8Array): number {
  const compressed = snappyCompress(input);
  // equals, not toEqual: a deep comparison of 300 KB takes seconds
  expect(Buffer.from(snappyUncompress(compressed, input.length)).equals(input)).toBe(true);
  return compressed.length;
}

describe('snappyCompress', () => {
  it('gives back what it compressed, for inputs of every kind and size', () => {
    expect(roundTrip(new Uint8Array(0))).toBe(1);
    for (const n of [1, 14, 15, 16, 61, 256, 65_535, 65_536, 65_537, 300_000]) roundTrip(randomBytes(n));
    // long runs (copies longer than 64 bytes), across the 64 KB blocks
    expect(roundTrip(new Uint8Array(200_000).fill(7))).toBeLessThan(12_000);
    // text with repeats near and far (1- and 2-byte offsets) and literals between them
    const text = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'ab'.repeat(i % 40)} ${(i * 7919) % 1000}|`).join(''));
    expect(roundTrip(text)).toBeLessThan(text.length / 2);
    // a mix: random literals longer than 65,536 bytes inside one compressed input
    roundTrip(Buffer.concat([randomBytes(70_000), Buffer.alloc(1000, 1), randomBytes(100)]));
  });

  it('compresses a view into a larger buffer (a page inside its row group) as it compresses a copy, never reading past its end', () => {
    const text = Buffer.from(Array.from({ length: 5_000 }, (_, i) => `v${i % 97}-${i}`).join(','));
    for (const offset of [0, 1, 3, 4099]) {
      for (const length of [15, 16, 20, 4096, text.length - offset]) {
        const big = new Uint8Array(offset + length + 64).fill(0xab);
        big.set(text.subarray(0, length), offset);
        const view = big.subarray(offset, offset + length);
        const expected = Buffer.from(snappyCompress(view.slice()));
        expect(Buffer.from(snappyCompress(view)).equals(expected), `${offset}+${length}`).toBe(true);
        roundTrip(view);
      }
    }
  });

  it('reuses its output buffer: a result stays right until the next call', () => {
    const a = Buffer.from('abcabcabcabcabcabcabcabc'.repeat(10));
    const first = snappyCompressReused(a);
    expect(Buffer.from(snappyUncompress(first, a.length))).toEqual(a);
    const copy = snappyCompress(a);
    expect(Buffer.from(copy)).toEqual(Buffer.from(first));
  });
});
