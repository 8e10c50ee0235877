import { describe, expect, it } from 'vitest';
import {
  ByteSink,
  ByteSource,
  OrcCorruptError,
  type OrcInt,
  readBooleans,
  readByteRle,
  readIntRleV1,
  readIntRleV2,
  writeBooleans,
  writeByteRle,
  writeIntRleV2,
} from './orc-rle.js';

const src = (bytes: number[]): ByteSource => new ByteSource(Uint8Array.from(bytes), 'test');

describe('ORC run-length decoding: the specification examples', () => {
  it('byte RLE: a run and literals', () => {
    expect([...readByteRle(src([0x61, 0x00]), 100)]).toEqual(new Array(100).fill(0));
    expect([...readByteRle(src([0xfe, 0x44, 0x45]), 2)]).toEqual([0x44, 0x45]);
  });

  it('integer RLE v1: a run and literals', () => {
    expect(Array.from(readIntRleV1(src([0x61, 0x00, 0x07]), 100, false))).toEqual(new Array(100).fill(7));
    expect(Array.from(readIntRleV1(src([0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b]), 5, false))).toEqual([2, 3, 6, 7, 11]);
  });

  it('integer RLE v2: short repeat, direct, patched base and delta', () => {
    expect(Array.from(readIntRleV2(src([0x0a, 0x27, 0x10]), 5, false))).toEqual([10000, 10000, 10000, 10000, 10000]);
    expect(Array.from(readIntRleV2(src([0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef]), 4, false))).toEqual([
      23713, 43806, 57005, 48879,
    ]);
    expect(
      Array.from(
        readIntRleV2(
          src([
            0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c,
            0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8,
          ]),
          20,
          false,
        ),
      ),
    ).toEqual([2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190]);
    expect(Array.from(readIntRleV2(src([0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46]), 10, false))).toEqual([
      2, 3, 5, 7, 11, 13, 17, 19, 23, 29,
    ]);
  });

  it('refuses a stream that ends early or holds more values than asked, naming the stream', () => {
    expect(() => readIntRleV2(src([0x5e, 0x03, 0x5c]), 4, false)).toThrow(OrcCorruptError);
    expect(() => readIntRleV2(src([0x5e, 0x03, 0x5c]), 4, false)).toThrow(/the test stream ends early/);
    expect(() => readIntRleV2(src([0x0a, 0x27, 0x10]), 3, false)).toThrow(/passes the 3 integers expected/);
    expect(() => readByteRle(src([0x61, 0x00]), 10)).toThrow(/passes the 10 values expected/);
  });
});

function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return a / 2 ** 32;
  };
}

describe('ORC run-length encoding reads back', () => {
  it('integer RLE v2 of runs, steps, small and 64-bit values, signed and unsigned', () => {
    const r = prng(7);
    for (let round = 0; round < 200; round++) {
      const signed = round % 2 === 0;
      const values: OrcInt[] = [];
      const n = Math.floor(r() * 2000);
      while (values.length < n) {
        const k = r();
        const len = 1 + Math.floor(r() * 600);
        const base = Math.floor(r() * 2 ** (1 + Math.floor(r() * 50))) * (signed && r() < 0.5 ? -1 : 1);
        if (k < 0.2) for (let i = 0; i < len; i++) values.push(base);
        else if (k < 0.4) for (let i = 0; i < len; i++) values.push(base + i * Math.floor(r() * 100 - (signed ? 50 : 0)));
        else if (k < 0.5) {
          const big = BigInt.asIntN(64, BigInt(Math.floor(r() * 2 ** 32)) * 2n ** 32n + BigInt(Math.floor(r() * 2 ** 32)));
          values.push(signed ? big : BigInt.asUintN(64, big));
        } else for (let i = 0; i < len; i++) values.push(Math.floor(r() * 2 ** Math.floor(r() * 53)) * (signed && r() < 0.5 ? -1 : 1));
      }
      const clean = values.slice(0, n).map((v) => (typeof v === 'number' && !signed && v < 0 ? -v : v));
      const sink = new ByteSink();
      writeIntRleV2(sink, clean, signed);
      const back = readIntRleV2(new ByteSource(sink.bytes(), 'test'), clean.length, signed);
      expect(Array.from(back, String)).toEqual(clean.map(String));
    }
  });

  it('byte RLE and booleans', () => {
    const r = prng(9);
    for (let round = 0; round < 30; round++) {
      const bytes = Uint8Array.from({ length: Math.floor(r() * 3000) }, () => (r() < 0.5 ? 7 : Math.floor(r() * 256)));
      const sink = new ByteSink();
      writeByteRle(sink, bytes);
      expect(readByteRle(new ByteSource(sink.bytes(), 'test'), bytes.length)).toEqual(bytes);
      const bits = Uint8Array.from({ length: Math.floor(r() * 3000) }, () => (r() < 0.8 ? 1 : 0));
      const bsink = new ByteSink();
      writeBooleans(bsink, bits);
      expect(readBooleans(new ByteSource(bsink.bytes(), 'test'), bits.length)).toEqual(bits);
    }
  });
});
