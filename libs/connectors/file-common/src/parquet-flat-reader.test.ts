import { parseDataType } from '@tideway/api';
import { type ColumnChunk, type ColumnMetaData, type FileMetaData, parquetMetadata, parquetSchema, type SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
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

/** An uncompressed one-column file of `values` through the flat writer, its chunk's bytes and a decoder of the column. */
async function oneColumn(type: string, values: readonly unknown[]) {
  const encoder = newParquetEncoder([{ name: 'c', type: parseDataType(type), nullable: true }], 'UNCOMPRESSED');
  for (const v of values) encoder.add([v]);
  const parts = [encoder.take(), await encoder.finish()].filter((b): b is Uint8Array => b !== undefined);
  const bytes = new Uint8Array(Buffer.concat(parts));
  const meta = parquetMetadata(bytes.buffer);
  const m = meta.row_groups[0].columns[0].meta_data!;
  return { ...chunkOf(bytes, m, getTreePath(parquetSchema(meta), ['c'])), meta: m };
}

/** The bytes of the chunk `m` describes in file `bytes`, and a decoder of its column (`schemaPath`, hyparquet's default parsers). */
function chunkOf(bytes: Uint8Array, m: ColumnMetaData, schemaPath: SchemaTree[]) {
  const decoder = {
    pathInSchema: m.path_in_schema,
    type: m.type,
    element: schemaPath[1].element,
    schemaPath,
    codec: m.codec,
    parsers: DEFAULT_PARSERS,
  };
  const from = Number(m.dictionary_page_offset ?? m.data_page_offset);
  return { chunk: bytes.subarray(from, from + Number(m.total_compressed_size)), decoder };
}

/** Reads `rows` values of a chunk in batches of `size`, after skipping `skip`. */
function readAll(pages: FlatColumnPages, rows: number, size: number, skip = 0): unknown[] {
  pages.skip(skip);
  const got: unknown[] = [];
  for (let r = skip; r < rows; r += size) {
    const batch = Array.from({ length: Math.min(size, rows - r) }, () => [] as unknown[]);
    pages.fill(batch, 0, (v) => v);
    got.push(...batch.map((b) => b[0]));
  }
  return got;
}

describe('FlatColumnPages', () => {
  it('reads PLAIN pages of strings and of bytes a batch at a time, nulls and empty values included, from any row on', async () => {
    // unique strings: the chunk's dictionary does not pay, so its pages are PLAIN
    const strings = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 3 ? null : i % 11 === 5 ? '' : `row-${i}-${'é'.repeat(i % 4)}`));
    const s = await oneColumn('string', strings);
    expect(s.meta.encodings).not.toContain('RLE_DICTIONARY');
    expect(readAll(new FlatColumnPages(s.chunk, s.decoder, 'c'), strings.length, 999)).toEqual(strings);
    expect(readAll(new FlatColumnPages(s.chunk, s.decoder, 'c'), strings.length, 4096, 12_345)).toEqual(strings.slice(12_345));
    const bytes = strings.map((v) => (v === null ? null : Buffer.from(v)));
    const b = await oneColumn('bytes', bytes);
    const got = readAll(new FlatColumnPages(b.chunk, b.decoder, 'c'), bytes.length, 1000);
    expect(got.map((v) => (v === null ? null : Buffer.from(v as Uint8Array).toString()))).toEqual(strings);
  });

  it('reads PLAIN pages of booleans and dictionary-encoded pages a batch at a time, nulls included', async () => {
    const booleans = Array.from({ length: 30_000 }, (_, i) => (i % 5 === 2 ? null : i % 3 === 0));
    const b = await oneColumn('boolean', booleans);
    expect(readAll(new FlatColumnPages(b.chunk, b.decoder, 'c'), booleans.length, 777)).toEqual(booleans);
    expect(readAll(new FlatColumnPages(b.chunk, b.decoder, 'c'), booleans.length, 4096, 9_999)).toEqual(booleans.slice(9_999));
    const strings = Array.from({ length: 30_000 }, (_, i) => (i % 5 === 2 ? null : `s${i % 300}`));
    const s = await oneColumn('string', strings);
    expect(s.meta.encodings).toContain('RLE_DICTIONARY');
    expect(readAll(new FlatColumnPages(s.chunk, s.decoder, 'c'), strings.length, 777)).toEqual(strings);
    expect(readAll(new FlatColumnPages(s.chunk, s.decoder, 'c'), strings.length, 4096, 20_001)).toEqual(strings.slice(20_001));
  });

  it('reads the data pages v2 of another writer (hyparquet-writer), required and optional columns, PLAIN and dictionary-encoded', () => {
    const n = 20_000;
    const columnData = [
      { name: 'id', data: Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_003n), type: 'INT64' as const, nullable: false },
      { name: 'x', data: Array.from({ length: n }, (_, i) => i / 8), type: 'DOUBLE' as const, nullable: false },
      { name: 'name', data: Array.from({ length: n }, (_, i) => `name-${i}`), type: 'STRING' as const, nullable: false },
      { name: 'tag', data: Array.from({ length: n }, (_, i) => (i % 4 === 1 ? null : `t${i % 9}`)), type: 'STRING' as const },
      { name: 'flag', data: Array.from({ length: n }, (_, i) => (i % 6 === 0 ? null : i % 5 < 2)), type: 'BOOLEAN' as const },
    ];
    const file = parquetWriteBuffer({ columnData, codec: 'SNAPPY', pageSize: 16 * 1024 });
    const meta = parquetMetadata(file);
    const tree = parquetSchema(meta);
    const bytes = new Uint8Array(file);
    expect(meta.row_groups.length).toBeGreaterThan(1);
    const encodings = meta.row_groups[1].columns.map((k) => k.meta_data!.encodings);
    expect(encodings[2]).not.toContain('RLE_DICTIONARY'); // name: unique strings, PLAIN
    expect(encodings[3]).toContain('RLE_DICTIONARY'); // tag
    columnData.forEach((c, i) => {
      const schemaPath = getTreePath(tree, [c.name]);
      expect(schemaPath[1].element.repetition_type).toBe(c.nullable === false ? 'REQUIRED' : 'OPTIONAL');
      let start = 0;
      for (const group of meta.row_groups) {
        const rows = Number(group.num_rows);
        const m = group.columns[i].meta_data!;
        const header = parquetHeader({ view: new DataView(file, Number(m.data_page_offset)), offset: 0 });
        expect(header.type, c.name).toBe('DATA_PAGE_V2');
        const { chunk, decoder } = chunkOf(bytes, m, schemaPath);
        const want = c.data.slice(start, start + rows);
        expect(readAll(new FlatColumnPages(chunk, decoder, c.name), rows, 3000), c.name).toEqual(want);
        expect(readAll(new FlatColumnPages(chunk, decoder, c.name), rows, 4096, 777), c.name).toEqual(want.slice(777));
        start += rows;
      }
      expect(start).toBe(n);
    });
  });

  it('reads data pages v1 of a required column (no definition levels)', () => {
    // two PLAIN pages of a REQUIRED string column, uncompressed, as parquet-mr writes a non-null column
    const values = Array.from({ length: 300 }, (_, i) => `r${i}-${'ü'.repeat(i % 3)}`);
    const out = new ByteWriter();
    for (const page of [values.slice(0, 120), values.slice(120)]) {
      const body = Buffer.concat(
        page.flatMap((v) => {
          const text = Buffer.from(v);
          const length = Buffer.alloc(4);
          length.writeUInt32LE(text.length);
          return [length, text];
        }),
      );
      writePageHeader(out, {
        type: 'DATA_PAGE',
        uncompressed_page_size: body.length,
        compressed_page_size: body.length,
        data_page_header: {
          num_values: page.length,
          encoding: 'PLAIN',
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      });
      out.appendBytes(body);
    }
    const tree = parquetSchema({
      schema: [
        { name: 'root', num_children: 1 },
        { name: 'c', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      ],
    } as unknown as FileMetaData);
    const schemaPath = getTreePath(tree, ['c']);
    const decoder = {
      pathInSchema: ['c'],
      type: 'BYTE_ARRAY' as const,
      element: schemaPath[1].element,
      schemaPath,
      codec: 'UNCOMPRESSED' as const,
      parsers: DEFAULT_PARSERS,
    };
    const chunk = new Uint8Array(out.getBuffer());
    expect(readAll(new FlatColumnPages(chunk, decoder, 'c'), values.length, 77)).toEqual(values);
    expect(readAll(new FlatColumnPages(chunk, decoder, 'c'), values.length, 50, 130)).toEqual(values.slice(130));
  });

  it('refuses a dictionary index past the dictionary, and a run of indexes past its page, naming the column', async () => {
    // 100 present values of 3 entries: definition levels (length 3: one RLE run of 100 ones), bit width 2, one bit-packed run of 13 groups
    const strings = Array.from({ length: 100 }, (_, i) => `v${i % 3}`);
    const s = await oneColumn('string', strings);
    const at = Buffer.from(s.chunk).indexOf(Buffer.from([3, 0, 0, 0, 0xc8, 1, 1, 2, 0x1b]));
    expect(at).toBeGreaterThan(0);
    const outOfRange = s.chunk.slice();
    outOfRange[at + 9] = 0xff; // the first four indexes become 3
    expect(() => readAll(new FlatColumnPages(outOfRange, s.decoder, 'f.parquet: column c'), 100, 10)).toThrow(
      'f.parquet: column c: a value refers to dictionary entry 3 of 3 (a corrupt file)',
    );
    const overrun = s.chunk.slice();
    overrun[at + 7] = 7; // 7 bits an index: the run's 13 groups need more bytes than the page has
    expect(() => readAll(new FlatColumnPages(overrun, s.decoder, 'f.parquet: column c'), 100, 10)).toThrow(
      /^f\.parquet: column c: a data page could not be decoded \(a corrupt file\): /,
    );
  });

  it('refuses a PLAIN page whose value runs past its end, naming the column', async () => {
    const strings = Array.from({ length: 10_000 }, (_, i) => `value-${i}`);
    const s = await oneColumn('string', strings);
    // the first value's 4-byte length, made far longer than the page
    const at = Buffer.from(s.chunk).indexOf('value-0') - 4;
    expect([...s.chunk.subarray(at, at + 4)]).toEqual([7, 0, 0, 0]);
    s.chunk.set([0xff, 0xff, 0, 0], at);
    expect(() => readAll(new FlatColumnPages(s.chunk, s.decoder, 'f.parquet: column c'), strings.length, 100)).toThrow(
      'f.parquet: column c: a page ends before its values do (a truncated or corrupt file)',
    );
  });

  it('refuses a dictionary-encoded page with no dictionary page before it, naming the column, instead of giving indexes as values', async () => {
    const {
      chunk: whole,
      decoder,
      meta: m,
    } = await oneColumn(
      'string',
      Array.from({ length: 100 }, (_, i) => `v${i % 3}`),
    );
    expect(m.dictionary_page_offset).toBeDefined();
    const batch = Array.from({ length: 100 }, () => [] as unknown[]);
    // the whole chunk reads the strings
    new FlatColumnPages(whole, decoder, 'f.parquet: column c').fill(batch, 0, (v) => v);
    expect(batch.map((r) => r[0])).toEqual(Array.from({ length: 100 }, (_, i) => `v${i % 3}`));
    // from the data page on, the dictionary is missing
    const dataPages = whole.subarray(Number(m.data_page_offset) - Number(m.dictionary_page_offset));
    expect(() => new FlatColumnPages(dataPages, decoder, 'f.parquet: column c').fill(batch, 0, (v) => v)).toThrow(
      'f.parquet: column c: a dictionary-encoded page with no dictionary page before it (a corrupt file)',
    );
  });
});
