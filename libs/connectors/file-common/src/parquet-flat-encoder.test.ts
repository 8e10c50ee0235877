/**
 * Tideway's flat Parquet writer, read back by hyparquet (the Parquet source's reader): every
 * flat type with nulls, empty strings, unicode, decimals of several precisions, extreme
 * integers and floats; several row groups and pages; a dictionary that overflows into PLAIN;
 * the same rows written by hyparquet-writer (the nested path) read back identically.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDataType, type Column } from '@tideway/api';
import type { FileEncoder } from './file-encoder.js';
import { LocalFileSystem } from './local-file-system.js';
import { newParquetEncoder, ParquetFileEncoder } from './parquet-encoder.js';
import { rowGroupsSentToThread, rowGroupThreadListening } from './row-group-thread.js';
import { ByteArrayBuilder } from './parquet-byte-array-builder.js';
import { byteDictionary } from './parquet-byte-dictionary.js';
import { ParquetFileWriter } from './parquet-file-writer.js';
import { parquetColumns, parquetMetadataOf, parquetRowGroupRows } from './parquet-source.js';
import { decimalText, timestampMicros, timestampText, unscaledDecimal } from './parquet-values.js';
import { loadZstd } from './zstd-lz4.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-flat-parquet-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fs = new LocalFileSystem();

export const FLAT_COLUMNS: Column[] = (
  [
    ['id', 'bigint'],
    ['s', 'string'],
    ['b', 'boolean'],
    ['ti', 'tinyint'],
    ['si', 'smallint'],
    ['i', 'int'],
    ['f', 'float'],
    ['d', 'double'],
    ['dec4', 'decimal(4, 1)'],
    ['dec12', 'decimal(12, 2)'],
    ['dec15', 'decimal(15, 0)'],
    ['dec18', 'decimal(18, 6)'],
    ['dec38', 'decimal(38, 18)'],
    ['by', 'bytes'],
    ['dt', 'date'],
    ['tm', 'time'],
    ['ts', 'timestamp'],
  ] as const
).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));

/** Row g: varied values, every column null on some rows, the awkward values on the first rows. */
export function flatRow(g: number): unknown[] {
  const special: unknown[][] = [
    [
      9223372036854775807n,
      '',
      true,
      127,
      32767,
      2147483647,
      3.4028234663852886e38,
      Number.MAX_VALUE,
      '999.9',
      '9999999999.99',
      '999999999999999',
      '999999999999.999999',
      '99999999999999999999.999999999999999999',
      new Uint8Array(0),
      '9999-12-31',
      '23:59:59.999999',
      '9999-12-31T23:59:59.999999',
    ],
    [
      -9223372036854775808n,
      'héllo wörld ✓ 日本 🎉',
      false,
      -128,
      -32768,
      -2147483648,
      -1.5,
      -0,
      '-999.9',
      '-9999999999.99',
      '-999999999999999',
      '-999999999999.999999',
      '-99999999999999999999.999999999999999999',
      Buffer.from([0, 255, 128, 1]),
      '0001-01-01',
      '00:00:00',
      '0001-01-01T00:00:00',
    ],
    [
      0n,
      '\u{10FFFF}\uE000 z',
      true,
      0,
      0,
      0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '0.0',
      '0.01',
      '0',
      '-0.000001',
      '0.000000000000000001',
      Buffer.from('bytes!'),
      '1969-12-31',
      '12:34:56.5',
      '1969-12-31T23:59:59.000001',
    ],
  ];
  if (g < special.length) return special[g];
  const row = [
    BigInt(g) * 1_000_003n - 5_000_000n,
    // some long enough for the writer's native UTF-8 path (32 characters and more), ASCII and not
    `value-${g % 7 === 0 ? 'ü' : ''}${g % 1000}${g % 5 === 0 ? `${'-'.repeat(30 + (g % 40))}${g % 10 === 0 ? 'ß日本🎉' : ''}` : ''}`,
    g % 3 === 0,
    (g % 256) - 128,
    ((g * 31) % 65536) - 32768,
    g * 7919 - 1_000_000,
    g / 8,
    g * 1.0000001,
    `${g % 2 ? '-' : ''}${g % 1000}.${g % 10}`,
    `${Math.floor(g / 100)}.${String(g % 100).padStart(2, '0')}`,
    String(g * 1_000_000_007),
    `${g}.${String(g % 1_000_000).padStart(6, '0')}`,
    `-${g % 100}12345678901234567.${String(g).padStart(18, '0')}`,
    Buffer.from(`b${g}`),
    new Date(Date.UTC(2000, 0, 1) + g * 86_400_000).toISOString().slice(0, 10),
    `${String(g % 24).padStart(2, '0')}:${String(g % 60).padStart(2, '0')}:07.${String(g % 1000).padStart(3, '0')}`,
    `${new Date(Date.UTC(2024, 0, 1) + g * 1000).toISOString().slice(0, 19)}.${String(g % 1_000_000).padStart(6, '0')}`,
  ];
  return row.map((v, i) => ((g + i) % 11 === 0 ? null : v));
}

async function writeFile(name: string, encoder: FileEncoder, rows: readonly unknown[][]): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const r of rows) {
    encoder.add(r);
    const b = encoder.take();
    if (b) parts.push(b);
  }
  const last = await encoder.finish();
  if (last) parts.push(last);
  const path = join(root, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

async function readBack(path: string): Promise<{ columns: Column[]; rows: unknown[][]; groups: number }> {
  const meta = await parquetMetadataOf(fs, path);
  const columns = parquetColumns(meta, path);
  const rows: unknown[][] = [];
  for (let g = 0; g < meta.row_groups.length; g++)
    for await (const batch of parquetRowGroupRows(fs, path, g, 0, columns, 1000)) rows.push(...batch);
  return { columns, rows, groups: meta.row_groups.length };
}

/**
 * What a written value reads back as, by the general conversions of parquet-values.ts (the flat
 * writer parses these texts its own way): decimals in canonical text at the column's scale,
 * times and timestamps with as many fraction digits as needed.
 */
function expected(row: readonly unknown[]): unknown[] {
  return row.map((v, i) => {
    if (v === null) return null;
    const t = FLAT_COLUMNS[i].type;
    if (t.kind === 'bytes') return Buffer.from(v as Uint8Array);
    if (t.kind === 'float') return Math.fround(v as number);
    if (t.kind === 'decimal') return decimalText(unscaledDecimal(v as string, t.scale), t.scale);
    if (t.kind === 'timestamp') return timestampText(timestampMicros(v as string));
    if (t.kind === 'time') return timestampText(timestampMicros(`1970-01-01T${v as string}`)).slice(11);
    return v;
  });
}

describe('ParquetFileWriter', () => {
  it("is the sinks' writer for flat and nested schemas", () => {
    expect(newParquetEncoder(FLAT_COLUMNS, 'SNAPPY')).toBeInstanceOf(ParquetFileWriter);
    const nested = [...FLAT_COLUMNS, { name: 'arr', type: parseDataType('array<int>'), nullable: true }];
    expect(newParquetEncoder(nested, 'SNAPPY')).toBeInstanceOf(ParquetFileWriter);
  });

  it.each(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW'] as const)(
    'writes every flat type that hyparquet reads back (%s)',
    async (codec) => {
      await loadZstd(); // the sink does this before a ZSTD file's first page
      const rows = Array.from({ length: 2000 }, (_, g) => flatRow(g));
      // 64 KB row groups: several groups, each of several pages for the wide columns
      const path = await writeFile(`all-${codec}.parquet`, newParquetEncoder(FLAT_COLUMNS, codec, 64 * 1024), rows);
      const back = await readBack(path);
      expect(back.groups).toBeGreaterThan(1);
      expect(back.columns.map((c) => [c.name, c.type])).toEqual(FLAT_COLUMNS.map((c) => [c.name, c.type]));
      expect(back.rows).toEqual(rows.map(expected));
    },
  );

  it('reads back the same as the hyparquet-writer path for the same rows', async () => {
    const columns = FLAT_COLUMNS;
    const rows = Array.from({ length: 3000 }, (_, g) => flatRow(g));
    const flat = await readBack(await writeFile('same-flat.parquet', new ParquetFileWriter(columns, 'UNCOMPRESSED', 1 << 20), rows));
    const nested = await readBack(await writeFile('same-nested.parquet', new ParquetFileEncoder(columns, 'UNCOMPRESSED'), rows));
    expect(flat.rows).toEqual(nested.rows);
  });

  it.each(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD', 'LZ4_RAW'] as const)(
    'writes the same bytes whether its row groups are encoded on the row-group thread or not (%s)',
    async (codec) => {
      await loadZstd();
      expect(await rowGroupThreadListening()).toBe(true);
      const sentBefore = rowGroupsSentToThread();
      const rows = Array.from({ length: 3000 }, (_, g) => flatRow(g));
      const bytesOf = async (thread: boolean) => {
        const encoder = new ParquetFileWriter(FLAT_COLUMNS, codec, 32 * 1024, thread);
        const parts: Uint8Array[] = [];
        for (const r of rows) {
          encoder.add(r);
          const b = encoder.take();
          if (b) parts.push(b);
        }
        parts.push(encoder.finish()!);
        return Buffer.concat(parts);
      };
      const threaded = await bytesOf(true);
      expect(rowGroupsSentToThread()).toBeGreaterThan(sentBefore + 1); // row groups of 32 KB: several
      const here = await bytesOf(false);
      expect(threaded.equals(here)).toBe(true);
    },
  );

  it('reads back the same rows whether they were added one by one or in batches (addRows, as the sink hands them), with a column map', async () => {
    const rows = Array.from({ length: 5000 }, (_, g) => flatRow(g));
    const bytesOf = (fill: (e: ParquetFileWriter) => void) => {
      const encoder = new ParquetFileWriter(FLAT_COLUMNS, 'SNAPPY', 32 * 1024, false);
      fill(encoder);
      return Buffer.concat([encoder.take() ?? new Uint8Array(0), encoder.finish()!]);
    };
    const readBytes = (name: string, bytes: Buffer) => {
      const path = join(root, name);
      writeFileSync(path, bytes);
      return readBack(path);
    };
    const byRow = await readBytes(
      'by-row.parquet',
      bytesOf((e) => rows.forEach((r) => e.add(r))),
    );
    expect(byRow.rows).toEqual(rows.map(expected));
    // uneven batches, 1, 999 and 4000 rows (the last one taken in slices), and row groups of 32 KB;
    // the 999 rows handed in an array that goes on past them (as the sink reuses its array)
    const batched = await readBytes(
      'batched.parquet',
      bytesOf((e) => {
        e.addRows(rows.slice(0, 1), 1);
        e.addRows(rows.slice(1, 1500), 999);
        e.addRows(rows.slice(1000), 4000);
      }),
    );
    expect(batched.groups).toBeGreaterThan(3);
    expect(batched.rows).toEqual(byRow.rows);
    // rows that carry the file's columns in reverse order, with the map that says so: the same bytes
    const reversed = rows.map((r) => [...r].reverse());
    const map = FLAT_COLUMNS.map((_, i) => FLAT_COLUMNS.length - 1 - i);
    expect(bytesOf((e) => e.addRows(reversed, reversed.length, map)).equals(bytesOf((e) => e.addRows(rows, rows.length)))).toBe(true);
  });

  it('reads a row group from any row on (a restored split), in batches of any size', async () => {
    const rows = Array.from({ length: 4000 }, (_, g) => flatRow(g));
    const path = await writeFile('offsets.parquet', new ParquetFileWriter(FLAT_COLUMNS, 'SNAPPY', 64 * 1024, false), rows);
    const meta = await parquetMetadataOf(fs, path);
    const columns = parquetColumns(meta, path);
    expect(meta.row_groups.length).toBeGreaterThan(2);
    const groupStart = Number(meta.row_groups[0].num_rows);
    const groupRows = Number(meta.row_groups[1].num_rows);
    for (const [offset, batch] of [
      [0, 1000],
      [1, 333],
      [groupRows - 1, 7],
      [Math.floor(groupRows / 2), 64],
    ]) {
      const got: unknown[][] = [];
      for await (const b of parquetRowGroupRows(fs, path, 1, offset, columns, batch)) {
        expect(b.length).toBeLessThanOrEqual(batch);
        got.push(...b);
      }
      expect(got).toEqual(rows.slice(groupStart + offset, groupStart + groupRows).map(expected));
    }
  });

  it('keeps statistics hyparquet reads: min, max and null count per chunk', async () => {
    const rows = Array.from({ length: 500 }, (_, g) => flatRow(g));
    const path = await writeFile('stats.parquet', newParquetEncoder(FLAT_COLUMNS, 'SNAPPY'), rows);
    const meta = await parquetMetadataOf(fs, path);
    const stats = (name: string) => meta.row_groups[0].columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!.statistics!;
    const nulls = (i: number) => BigInt(rows.filter((r) => r[i] === null).length);
    expect(stats('id')).toMatchObject({ min_value: -9223372036854775808n, max_value: 9223372036854775807n, null_count: nulls(0) });
    expect(stats('i')).toMatchObject({ min_value: -2147483648, max_value: 2147483647 });
    expect(stats('b')).toMatchObject({ min_value: false, max_value: true });
    // NaN takes no part; the largest float is the first row's
    expect(stats('f')).toMatchObject({ min_value: -1.5, max_value: Math.fround(3.4028234663852886e38) });
    // byte order of UTF-8: U+10FFFF sorts after U+E000 after ASCII (JS string order would put U+10FFFF first)
    const s = stats('s');
    expect(s.min_value).toBe('');
    expect(Buffer.from(s.max_value as string).subarray(0, 4)).toEqual(Buffer.from('\u{10FFFF}'));
    expect(stats('ts')).toMatchObject({ null_count: nulls(16) });
  });

  it('orders string statistics by UTF-8 bytes, not by JS string order', async () => {
    const columns = [{ name: 'u', type: parseDataType('string'), nullable: true }];
    // JS compares UTF-16 units: U+E000 > U+10FFFF (a surrogate pair); in UTF-8 bytes U+10FFFF is the larger
    const rows = [['\uE000'], ['\u{10FFFF}'], ['a'], [null]];
    const path = await writeFile('order.parquet', newParquetEncoder(columns, 'SNAPPY'), rows);
    const stats = (await parquetMetadataOf(fs, path)).row_groups[0].columns[0].meta_data!.statistics!;
    expect([stats.min_value, stats.max_value, stats.null_count]).toEqual(['a', '\u{10FFFF}', 1n]);
  });

  it.each([true, false])(
    'gives each row group the string and bytes statistics of its own rows, not of a later one (row-group thread: %s)',
    async (thread) => {
      if (thread) expect(await rowGroupThreadListening()).toBe(true);
      const columns = [
        { name: 's', type: parseDataType('string'), nullable: true },
        { name: 'y', type: parseDataType('bytes'), nullable: true },
      ];
      // short values (no truncation in the footer), each row group with its own range; groups of 4 KB: many
      const value = (g: number) => `k${String(Math.floor(g / 7) % 997).padStart(3, '0')}-${g % 7}`;
      const rows = Array.from({ length: 4000 }, (_, g) => [value(g), Buffer.from(value(3999 - g))]);
      const path = await writeFile(`group-stats-${thread}.parquet`, new ParquetFileWriter(columns, 'SNAPPY', 4096, thread), rows);
      const meta = await parquetMetadataOf(fs, path);
      expect(meta.row_groups.length).toBeGreaterThan(3);
      let r0 = 0;
      for (const group of meta.row_groups) {
        const own = rows.slice(r0, r0 + Number(group.num_rows));
        r0 += own.length;
        for (const [i, chunk] of group.columns.entries()) {
          const sorted = own.map((r) => Buffer.from(r[i] as string | Buffer)).sort((a, b) => Buffer.compare(a, b));
          const stats = chunk.meta_data!.statistics!;
          expect(Buffer.from(stats.min_value as string | Uint8Array)).toEqual(sorted[0]);
          expect(Buffer.from(stats.max_value as string | Uint8Array)).toEqual(sorted.at(-1));
        }
      }
    },
  );

  it("gives a builder's values no bytes left from an earlier row group", () => {
    const b = new ByteArrayBuilder({ name: 'u', type: 'BYTE_ARRAY' }, false);
    for (const v of ['aaaa', 'bbbb', 'cccc']) b.add(Buffer.from(v));
    b.reset();
    b.add(Buffer.from('d'));
    b.add(null);
    const raw = b.raw();
    expect(Buffer.from(raw.values)).toEqual(Buffer.from([1, 0, 0, 0, 100]));
    expect([...raw.starts!]).toEqual([0]);
  });

  it("gives up a chunk's string dictionary that grows too large and writes that chunk PLAIN", async () => {
    const columns = [{ name: 'u', type: parseDataType('string'), nullable: true }];
    const rows = Array.from({ length: 50_000 }, (_, g) => [g % 5 === 0 ? null : `unique-value-${g}`]);
    const path = await writeFile('overflow.parquet', newParquetEncoder(columns, 'SNAPPY'), rows);
    const meta = await parquetMetadataOf(fs, path);
    expect(meta.row_groups[0].columns[0].meta_data!.encodings).not.toContain('RLE_DICTIONARY');
    expect((await readBack(path)).rows).toEqual(rows);
    const low = Array.from({ length: 1000 }, (_, g) => [['a', 'b', 'ü'][g % 3]]);
    const lowPath = await writeFile('dictionary.parquet', newParquetEncoder(columns, 'SNAPPY'), low);
    expect((await parquetMetadataOf(fs, lowPath)).row_groups[0].columns[0].meta_data!.encodings).toContain('RLE_DICTIONARY');
    expect((await readBack(lowPath)).rows).toEqual(low);
    // 5,000 values over and over: each new at first, the dictionary pays once the first 8,192 are seen
    const cycling = Array.from({ length: 20_000 }, (_, g) => [`product-${g % 5000}`]);
    const cyclingPath = await writeFile('cycling.parquet', newParquetEncoder(columns, 'SNAPPY'), cycling);
    expect((await parquetMetadataOf(fs, cyclingPath)).row_groups[0].columns[0].meta_data!.encodings).toContain('RLE_DICTIONARY');
    expect((await readBack(cyclingPath)).rows).toEqual(cycling);
  });

  it('writes a chunk PLAIN when its first 8,192 values show the dictionary would not be smaller, within the dictionary limits', () => {
    const plain = (texts: string[]) => {
      const b = new ByteArrayBuilder({ name: 'u', type: 'BYTE_ARRAY' }, true);
      for (const t of texts) b.add(t);
      return b.raw();
    };
    // 10,000 distinct values: under 32,768 entries and 1 MB, but nothing repeats
    const unique = plain(Array.from({ length: 10_000 }, (_, g) => `unique-${g}`));
    expect(byteDictionary(unique.values, unique.starts!, 10_000)).toBeUndefined();
    const repeating = plain(Array.from({ length: 10_000 }, (_, g) => `value-${g % 6000}`));
    expect(byteDictionary(repeating.values, repeating.starts!, 10_000)?.size).toBe(6000);
  });

  it('refuses a date text that is not a date, naming it, instead of writing 1970-01-01', () => {
    const encoder = newParquetEncoder([{ name: 'dt', type: parseDataType('date'), nullable: true }], 'SNAPPY');
    encoder.add(['2024-02-29']);
    expect(() => encoder.add(['next tuesday'])).toThrow(
      "A date value 'next tuesday' is not a date (YYYY-MM-DD) and cannot be written to Parquet.",
    );
  });

  it('refuses a timestamp or time text that is not one, naming it', () => {
    const encoder = newParquetEncoder(
      [
        { name: 'ts', type: parseDataType('timestamp'), nullable: true },
        { name: 'tm', type: parseDataType('time'), nullable: true },
      ],
      'SNAPPY',
    );
    encoder.add(['2024-02-29 10:00:00.5', '10:00']);
    expect(() => encoder.add(['2024-02-29T10:00:00.5Z', null])).toThrow(/timestamp value '2024-02-29T10:00:00.5Z' is not a timestamp/);
    expect(() => encoder.add([null, 'noon'])).toThrow(
      "A time value 'noon' is not a time (HH:mm:ss[.ffffff]) and cannot be written to Parquet.",
    );
  });

  it('writes a valid file with no rows, and columns that are null throughout', async () => {
    expect((await readBack(await writeFile('empty.parquet', newParquetEncoder(FLAT_COLUMNS, 'SNAPPY'), []))).rows).toEqual([]);
    const nulls = Array.from({ length: 10 }, () => FLAT_COLUMNS.map(() => null));
    expect((await readBack(await writeFile('nulls.parquet', newParquetEncoder(FLAT_COLUMNS, 'SNAPPY'), nulls))).rows).toEqual(nulls);
  });
});
