import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDataType, Types } from '@tideway/api';
import { afterAll, describe, expect, it } from 'vitest';
import { ColumnEncoding_Kind, CompressionKind, Footer, PostScript, StripeFooter, Type_Kind } from './gen/orc_file.js';
import { LocalFileSystem } from './local-file-system.js';
import { orcColumns, orcStripeRows, readOrcStripe, readOrcTail } from './orc-reader.js';
import { OrcFileWriter } from './orc-writer.js';
import { orcStripesDecodedOnThread, rowGroupThreadListening } from './row-group-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-orc-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fs = new LocalFileSystem();

async function rowsOf(path: string): Promise<unknown[][]> {
  const tail = await readOrcTail(fs, path);
  const rows: unknown[][] = [];
  for (let s = 0; s < tail.footer.stripes.length; s++)
    for await (const b of orcStripeRows(fs, path, s, 0, orcColumns(tail), 7, tail)) rows.push(...b);
  return rows;
}

describe('ORC reader', () => {
  it('reads a stripe of no rows (no streams), before and after stripes with rows', async () => {
    // a Tideway file of two stripes, then the same file with an empty stripe put in front of them
    const w = new OrcFileWriter([{ name: 'n', type: Types.INT, nullable: true }], CompressionKind.NONE, 1);
    w.add([1]);
    w.add([null]);
    const full = Buffer.from(w.finish()!);
    const psLen = full[full.length - 1];
    const ps = PostScript.decode(full.subarray(full.length - 1 - psLen, full.length - 1));
    const footerEnd = full.length - 1 - psLen;
    const footer = Footer.decode(full.subarray(footerEnd - Number(ps.footerLength), footerEnd));
    const stripesEnd = Number(footer.contentLength);
    const empty = StripeFooter.encode({
      streams: [],
      columns: [{ kind: ColumnEncoding_Kind.DIRECT }, { kind: ColumnEncoding_Kind.DIRECT_V2 }],
      writerTimezone: 'GMT',
    }).finish();
    const stripes = full.subarray(3, stripesEnd);
    const shifted = footer.stripes.map((s) => ({ ...s, offset: BigInt(Number(s.offset) + empty.length) }));
    const newFooter = Footer.encode({
      ...footer,
      contentLength: BigInt(stripesEnd + empty.length),
      stripes: [{ offset: 3n, indexLength: 0n, dataLength: 0n, footerLength: BigInt(empty.length), numberOfRows: 0n }, ...shifted],
    }).finish();
    const newPs = PostScript.encode({ ...ps, footerLength: BigInt(newFooter.length), metadataLength: 0n }).finish();
    const file = join(dir, 'empty-stripe.orc');
    writeFileSync(file, Buffer.concat([Buffer.from('ORC'), empty, stripes, newFooter, newPs, Buffer.of(newPs.length)]));
    expect(footer.types[1].kind).toBe(Type_Kind.INT);
    expect((await readOrcTail(fs, file)).footer.stripes.map((s) => Number(s.numberOfRows))).toEqual([0, 1, 1]);
    expect(await rowsOf(file)).toEqual([[1], [null]]);
  });
});

describe('ORC reader on the row-group thread', () => {
  /** Every type, nulls in every column, values past 2^53, before 1970, not ASCII; nested ones. */
  const columns = (
    [
      ['b', 'boolean'],
      ['t', 'tinyint'],
      ['i', 'int'],
      ['l', 'bigint'],
      ['f', 'float'],
      ['d', 'double'],
      ['dec', 'decimal(10, 3)'],
      ['big', 'decimal(38, 6)'],
      ['day', 'date'],
      ['ts', 'timestamp'],
      ['tz', 'timestamp_tz'],
      ['few', 'string'],
      ['text', 'string'],
      ['bin', 'bytes'],
      ['list', 'array<bigint>'],
      ['map', 'map<string, decimal(5, 1)>'],
      ['rec', 'row<x int, y timestamp>'],
    ] as const
  ).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));
  const frac = (k: number) =>
    k % 4 === 0
      ? ''
      : `.${String(k * 12_345)
          .padStart(9, '0')
          .replace(/0+$/, '')}`;
  const rowOf = (k: number): unknown[] =>
    [
      k % 3 === 0,
      (k % 200) - 100,
      k * 7 - 50_000,
      k % 5 === 0 ? -9_007_199_254_740_993n - BigInt(k) : BigInt(k) * 1_000_003n,
      Math.fround(k / 8),
      k % 13 === 0 ? Number.NaN : k * -0.1,
      `${k % 2 === 0 && k > 0 ? '-' : ''}${k}.${String(k % 1000).padStart(3, '0')}`,
      `${k + 1}2345678901234567890.000001`,
      `${1960 + (k % 80)}-0${1 + (k % 9)}-2${k % 8}`,
      `${1965 + (k % 70)}-12-31T23:59:${String(k % 60).padStart(2, '0')}${frac(k)}`,
      `2024-06-0${1 + (k % 9)}T01:02:03${frac(k + 1)}+00:00`,
      ['x', 'yy', 'zzz'][k % 3],
      k % 4 === 0 ? `é ${k} ✓` : `row ${k} ${'a'.repeat(k % 30)}`,
      Buffer.of(k & 255, 0, 255),
      Array.from({ length: k % 4 }, (_, j) => (j === 2 ? null : BigInt(k * j))),
      new Map(Array.from({ length: k % 3 }, (_, j) => [`m${j}`, j === 1 ? null : `${k % 100}.${j}`])),
      [k, `2001-02-03T04:05:0${k % 10}`],
    ].map((v, c) => (k % (4 + c) === 2 ? null : v));

  it('reads every type the same on the thread as on its own thread, and names a corrupt column either way', async () => {
    const file = join(dir, 'types.orc');
    const w = new OrcFileWriter(columns, CompressionKind.SNAPPY, 16 * 1024);
    const rows = Array.from({ length: 3000 }, (_, k) => rowOf(k));
    w.addRows(rows, rows.length);
    writeFileSync(file, w.finish()!);
    const tail = await readOrcTail(fs, file);
    expect(tail.footer.stripes.length).toBeGreaterThan(2);
    const read = async (thread: boolean) => {
      const out: unknown[][] = [];
      for (let s = 0; s < tail.footer.stripes.length; s++) {
        const stripe = readOrcStripe(fs, tail, s, columns, thread);
        for await (const b of orcStripeRows(fs, file, s, 0, columns, 500, tail, stripe)) out.push(...b);
      }
      return out;
    };
    expect(await read(false)).toEqual(rows);
    expect(await rowGroupThreadListening()).toBe(true);
    const before = orcStripesDecodedOnThread();
    expect(await read(true)).toEqual(rows);
    expect(orcStripesDecodedOnThread()).toBe(before + tail.footer.stripes.length);
    // every stripe decoded on the thread before the first is made into rows: each in an arena of its own (orc-arena.ts), none
    // handed out again while its values are being made, and those given back reused by the stripes after
    for (let round = 0; round < 2; round++) {
      const all = Array.from({ length: tail.footer.stripes.length }, (_, s) => readOrcStripe(fs, tail, s, columns, true));
      const out: unknown[][] = [];
      for (let s = all.length - 1; s >= 0; s--) {
        const batch: unknown[][] = [];
        for await (const b of orcStripeRows(fs, file, s, 0, columns, 500, tail, all[s])) batch.push(...b);
        out.unshift(...batch);
      }
      expect(out).toEqual(rows);
    }
    expect(orcStripesDecodedOnThread()).toBe(before + 3 * tail.footer.stripes.length);

    // RLE that ends early (column i's DATA stream, uncompressed): the thread fails, the stripe is decoded again here to name the column
    const plain = new OrcFileWriter([columns[2]], CompressionKind.NONE, 1 << 20);
    plain.addRows(rows, rows.length);
    const bytes = Buffer.from(plain.finish()!);
    const broken = join(dir, 'broken.orc');
    const cut = Buffer.from(bytes);
    cut.fill(0x7f, 3, 5); // a DIRECT header of 256 values of 64 bits, more than the stream holds
    writeFileSync(broken, cut);
    const brokenTail = await readOrcTail(fs, broken);
    for (const thread of [true, false])
      await expect(readOrcStripe(fs, brokenTail, 0, [columns[2]], thread)).rejects.toThrow(
        /broken\.orc: stripe 0 of 1, column i: .*\(the file is corrupt\)\.$/,
      );
  });
});
