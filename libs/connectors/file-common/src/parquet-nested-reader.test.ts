/**
 * Tideway's assembly of nested Parquet columns (parquet-nested-reader.ts) on files hyparquet-writer
 * wrote with small pages, so that lists and rows run across page boundaries: the older list shapes
 * given by hand (a bare repeated field, a 2-level list, a repeated group outside a LIST), and the
 * shapes Tideway's own nested writer makes, read whole and from a row inside a row group on (a
 * split restored mid-group). DuckDB-written files are in the localfile connector's tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, type SchemaElement } from 'hyparquet';
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDataType, type Column } from '@tideway/api';
import { LocalFileSystem } from './local-file-system.js';
import { ParquetFileEncoder } from './parquet-encoder.js';
import { ParquetFileWriter } from './parquet-file-writer.js';
import { parquetColumns, parquetMetadataOf, parquetRowGroupRows } from './parquet-source.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-nested-parquet-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fs = new LocalFileSystem();

/** Every row of the file at `path`, a row group at a time from row `offset` of each, with its columns. */
async function readFile(path: string, offset = 0, batch = 100): Promise<{ columns: Column[]; groups: unknown[][][] }> {
  const meta = await parquetMetadataOf(fs, path);
  const columns = parquetColumns(meta, path);
  const groups: unknown[][][] = [];
  for (let g = 0; g < meta.row_groups.length; g++) {
    const rows: unknown[][] = [];
    for await (const b of parquetRowGroupRows(fs, path, g, offset, columns, batch)) rows.push(...b);
    groups.push(rows);
  }
  return { columns, groups };
}

/**
 * The Parquet file `file` with its footer's schema replaced by `schema` (the same leaves in the
 * same order, with the same levels), each column chunk's path renamed to match; statistics are
 * left out. `extraRows`: rows each row group claims beyond those it holds (a corrupt file).
 */
function withFooter(file: Uint8Array, schema: SchemaElement[], extraRows = 0): Buffer {
  const meta = parquetMetadata(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer);
  const leaves: string[][] = [];
  const walk = (i: number, path: string[]): number => {
    const e = schema[i];
    const here = i === 0 ? [] : [...path, e.name];
    if (!e.num_children) {
      leaves.push(here);
      return i + 1;
    }
    let next = i + 1;
    for (let k = 0; k < e.num_children; k++) next = walk(next, here);
    return next;
  };
  walk(0, []);
  const row_groups = meta.row_groups.map((g) => ({
    ...g,
    num_rows: g.num_rows + BigInt(extraRows),
    columns: g.columns.map((c, i) => ({ ...c, meta_data: { ...c.meta_data!, path_in_schema: leaves[i], statistics: undefined } })),
  }));
  const footer = new ByteWriter();
  writeMetadata(footer, { ...meta, schema, row_groups, key_value_metadata: undefined });
  const body = file.subarray(0, file.byteLength - 8 - meta.metadata_length);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(footer.offset, 0);
  tail.write('PAR1', 4, 'latin1');
  return Buffer.concat([body, footer.getBytes(), tail]);
}

describe('the nested Parquet reader', () => {
  it('reads the older list shapes: a bare repeated field, a 2-level list, a repeated group', async () => {
    // hyparquet-writer writes 3-level lists only: the file is written with them, then its footer
    // is given the older shapes, whose levels are the same (a 3-level list of required elements
    // has the levels of a 2-level list; a required one, those of a bare repeated field)
    const n = 2000;
    const ints = Array.from({ length: n }, (_, g) => (g % 3 === 0 ? [] : Array.from({ length: g % 5 }, (_, k) => g + k)));
    const texts = Array.from({ length: n }, (_, g) => (g % 4 === 0 ? null : g % 4 === 1 ? [] : [`t${g}`, `u${g}`]));
    const pairs = Array.from({ length: n }, (_, g) => (g % 2 === 0 ? [] : [{ k: g, v: g % 3 === 0 ? null : `v${g}` }]));
    const list = (name: string, repetition: 'OPTIONAL' | 'REQUIRED'): SchemaElement[] => [
      { name, repetition_type: repetition, num_children: 1, converted_type: 'LIST' },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ];
    const written = parquetWriteBuffer({
      schema: [
        { name: 'root', num_children: 3 },
        ...list('ints', 'REQUIRED'),
        { name: 'element', type: 'INT32', repetition_type: 'REQUIRED' },
        ...list('texts', 'OPTIONAL'),
        { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        ...list('pairs', 'REQUIRED'),
        { name: 'element', repetition_type: 'REQUIRED', num_children: 2 },
        { name: 'k', type: 'INT32', repetition_type: 'REQUIRED' },
        { name: 'v', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      ],
      columnData: [
        { name: 'ints', data: ints },
        { name: 'texts', data: texts },
        { name: 'pairs', data: pairs },
      ],
      pageSize: 512,
      rowGroupSize: 700,
    });
    const legacy = (extraRows = 0) =>
      withFooter(
        new Uint8Array(written),
        [
          { name: 'root', num_children: 3 },
          { name: 'ints', type: 'INT32', repetition_type: 'REPEATED' },
          { name: 'texts', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
          { name: 'item', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REPEATED' },
          { name: 'pairs', repetition_type: 'REPEATED', num_children: 2 },
          { name: 'k', type: 'INT32', repetition_type: 'REQUIRED' },
          { name: 'v', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        ],
        extraRows,
      );
    const path = join(root, 'legacy.parquet');
    writeFileSync(path, legacy());
    const { columns, groups } = await readFile(path);
    expect(columns.map((c) => c.type)).toEqual(['array<int>', 'array<string>', 'array<row<k int, v string>>'].map(parseDataType));
    expect(groups.map((g) => g.length)).toEqual([700, 700, 600]);
    expect(groups.flat()).toEqual(Array.from({ length: n }, (_, g) => [ints[g], texts[g], pairs[g].map((p) => [p.k, p.v])]));
    // a footer that claims more rows than the chunks hold: refused, naming the file, row group and leaf
    const corrupt = join(root, 'legacy-corrupt.parquet');
    writeFileSync(corrupt, legacy(1));
    await expect(readFile(corrupt)).rejects.toThrow(
      `${corrupt}: row group 0, column ints: the column chunk ended before its row group's rows did (a truncated or corrupt file)`,
    );
  });

  it.each([
    ["Tideway's own writer", (columns: Column[]) => new ParquetFileWriter(columns, 'SNAPPY', 40_000)],
    ['hyparquet-writer', (columns: Column[]) => new ParquetFileEncoder(columns, 'SNAPPY', 40_000)],
  ])('reads nested files of %s, whole and from a row inside each row group on', async (name, writerOf) => {
    const columns: Column[] = (
      [
        ['id', 'bigint'],
        ['tags', 'array<string>'],
        ['grid', 'array<array<int>>'],
        ['attrs', 'map<string, array<bigint>>'],
        ['item', 'row<name string, sizes array<double>, at row<day date, price decimal(10, 2)>>'],
      ] as const
    ).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));
    const row = (g: number): unknown[] => [
      BigInt(g),
      g % 5 === 0 ? null : g % 5 === 1 ? [] : [`a${g}`, null, `b${g}`],
      g % 4 === 0 ? [] : [[g], [], null, [g, g + 1]],
      g % 3 === 0
        ? null
        : new Map<string, unknown>([
            [`k${g}`, g % 2 ? [BigInt(g), null] : null],
            ['z', []],
          ]),
      g % 6 === 0 ? null : [g % 2 ? null : `n${g}`, g % 7 === 0 ? null : [g / 2, g / 4], g % 8 === 0 ? null : ['2024-02-29', `${g}.05`]],
    ];
    const encoder = writerOf(columns);
    const parts: Uint8Array[] = [];
    for (let g = 0; g < 3000; g++) {
      encoder.add(row(g));
      const out = encoder.take();
      if (out) parts.push(out);
    }
    const last = encoder.finish();
    if (last) parts.push(last);
    const path = join(root, `nested-${name.replace(/\W+/g, '-')}.parquet`);
    writeFileSync(path, Buffer.concat(parts));
    const whole = await readFile(path, 0, 333);
    expect(whole.columns).toEqual(columns);
    expect(whole.groups.length).toBeGreaterThan(2);
    expect(whole.groups.flat()).toEqual(Array.from({ length: 3000 }, (_, g) => row(g)));
    const offset = 37;
    const from = await readFile(path, offset, 50);
    expect(from.groups).toEqual(whole.groups.map((g) => g.slice(offset)));
  });
});
