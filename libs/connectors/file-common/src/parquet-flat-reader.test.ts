import { parseDataType } from '@tideway/api';
import { type ColumnChunk, parquetMetadata, parquetSchema } from 'hyparquet';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { describe, expect, it } from 'vitest';
import { newParquetEncoder } from './parquet-encoder.js';
import { FlatColumnPages, readChunks } from './parquet-flat-reader.js';

/** A column chunk's metadata: its bytes at [start, start + size), the first `dict` of them a dictionary page. */
const chunk = (start: number, size: number, dict = 0): ColumnChunk =>
  ({
    file_offset: 0n,
    meta_data: {
      dictionary_page_offset: dict ? BigInt(start) : undefined,
      data_page_offset: BigInt(start + dict),
      total_compressed_size: BigInt(size),
    },
  }) as unknown as ColumnChunk;

/** A file of `n` bytes, byte i being i % 251, and the ranges read from it. */
function file(n: number) {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = i % 251;
  const reads: [number, number][] = [];
  const read = async (from: number, to: number) => {
    reads.push([from, to]);
    return bytes.slice(from, to);
  };
  return { bytes, reads, read };
}

describe('readChunks', () => {
  it('reads chunks next to each other in one read, and gives each its own bytes, in the order asked', async () => {
    const f = file(40_000);
    const chunks = [chunk(20_000, 5_000), chunk(4, 10_000, 300), chunk(10_004, 9_996)];
    const got = await readChunks(f.read, chunks);
    expect(f.reads).toEqual([[4, 25_000]]);
    expect(got.map((b) => [...b])).toEqual([
      [...f.bytes.slice(20_000, 25_000)],
      [...f.bytes.slice(4, 10_004)],
      [...f.bytes.slice(10_004, 20_000)],
    ]);
  });

  it('reads apart chunks more than 8 KB apart, and stops a read at 8 MB', async () => {
    const f = file(20 * 1024 * 1024);
    const mb = 1024 * 1024;
    const chunks = [
      chunk(0, 1_000),
      chunk(1_000 + 8 * 1024, 1_000),
      chunk(2_000 + 8 * 1024 + 8 * 1024 + 1, 1_000),
      chunk(mb, 5 * mb),
      chunk(6 * mb, 5 * mb),
    ];
    const got = await readChunks(f.read, chunks);
    expect(f.reads).toEqual([
      [0, 2_000 + 8 * 1024],
      [2_000 + 16 * 1024 + 1, 3_000 + 16 * 1024 + 1],
      [mb, 6 * mb],
      [6 * mb, 11 * mb],
    ]);
    chunks.forEach((c, i) => {
      const start = Number(c.meta_data!.data_page_offset);
      const want = f.bytes.subarray(start, start + Number(c.meta_data!.total_compressed_size));
      expect(Buffer.from(got[i]).equals(Buffer.from(want))).toBe(true);
    });
  });
});

describe('FlatColumnPages', () => {
  it('refuses a dictionary-encoded page with no dictionary page before it, naming the column, instead of giving indexes as values', async () => {
    const encoder = newParquetEncoder([{ name: 's', type: parseDataType('string'), nullable: true }], 'UNCOMPRESSED');
    for (let i = 0; i < 100; i++) encoder.add([`v${i % 3}`]);
    const parts = [encoder.take(), await encoder.finish()].filter((b): b is Uint8Array => b !== undefined);
    const bytes = new Uint8Array(Buffer.concat(parts));
    const meta = parquetMetadata(bytes.buffer);
    const m = meta.row_groups[0].columns[0].meta_data!;
    expect(m.dictionary_page_offset).toBeDefined();
    const schemaPath = getTreePath(parquetSchema(meta), ['s']);
    const decoder = {
      pathInSchema: ['s'],
      type: m.type,
      element: schemaPath[1].element,
      schemaPath,
      codec: m.codec,
      parsers: DEFAULT_PARSERS,
    };
    const from = Number(m.dictionary_page_offset);
    const to = from + Number(m.total_compressed_size);
    const batch = Array.from({ length: 100 }, () => [] as unknown[]);
    // the whole chunk reads the strings
    new FlatColumnPages(bytes.subarray(from, to), decoder, 'f.parquet: column s').fill(batch, 0, (v) => v);
    expect(batch.map((r) => r[0])).toEqual(Array.from({ length: 100 }, (_, i) => `v${i % 3}`));
    // from the data page on, the dictionary is missing
    const pages = new FlatColumnPages(bytes.subarray(Number(m.data_page_offset), to), decoder, 'f.parquet: column s');
    expect(() => pages.fill(batch, 0, (v) => v)).toThrow(
      'f.parquet: column s: a dictionary-encoded page with no dictionary page before it (a corrupt file)',
    );
  });
});
