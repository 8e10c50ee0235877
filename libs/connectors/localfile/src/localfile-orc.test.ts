/**
 * ORC through the LocalFile connector (the S3File connector shares the code, file-common), proven
 * against another implementation: pyarrow reads what Tideway writes, with the same rows and
 * types, and Tideway reads what pyarrow writes, a split per stripe; bad files get one sentence
 * naming the file (and the stripe), never a crash or a hang.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Row, type SinkAggregatedCommitter } from '@tideway/api';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import { orcPeersPresent, pyarrowRead, pyarrowWrite } from '@tideway/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_TYPES, readAll, sinkOf, splitsOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-orc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const peers = orcPeersPresent();

const COLUMNS = ALL_TYPES;
const ROW1 = [
  9007199254740993n,
  'héllo',
  true,
  -8,
  300,
  70000,
  1.5,
  1e7,
  '-12345678901234567890.123456789012345678',
  Buffer.from('bytes!'),
  '2024-02-29',
  '2024-01-02T03:04:05.123456789',
  [1, 2, 3],
  new Map([['k1', 'v1']]),
  [7, 'seven'],
];
const ROW2 = [2n, ...new Array<null>(COLUMNS.length - 1).fill(null)];
/** ROW1 and ROW2 as pyarrow's reading is printed (libs/testing/src/orc_peer.py). */
const CANON1 = [
  '9007199254740993',
  'héllo',
  true,
  '-8',
  '300',
  '70000',
  1.5,
  1e7,
  '-12345678901234567890.123456789012345678',
  Buffer.from('bytes!').toString('hex'),
  '2024-02-29',
  '1704164645123456789',
  ['1', '2', '3'],
  [['k1', 'v1']],
  ['7', 'seven'],
];
const CANON2 = ['2', ...new Array<null>(COLUMNS.length - 1).fill(null)];

async function writeOrc(dir: string, options: Record<string, unknown> = {}): Promise<string[]> {
  const table = tableOf(COLUMNS);
  const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'orc', ...options }, table);
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  const rows: Row[] = [ROW1, ROW2].map((fields) => ({ kind: '+I', tableId: 'db.t', fields }));
  await writer.write(rows);
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileAggregatedCommitInfo, FileAggregatedCommitInfo>;
  expect(await committer.commit([committer.combine([info as unknown as FileAggregatedCommitInfo])])).toEqual([]);
  return readdirSync(dir).map((f) => join(dir, f));
}

describe.skipIf(!peers)('LocalFile orc', () => {
  for (const codec of ['none', 'zlib', 'snappy', 'lz4', 'zstd']) {
    it(`writes a file pyarrow reads with the same rows and types, and reads it back (compress_codec ${codec})`, async () => {
      const dir = join(root, `out-${codec}`);
      const files = await writeOrc(dir, { compress_codec: codec });
      expect(files).toEqual([expect.stringMatching(codec === 'none' ? /[^.]\.orc$/ : new RegExp(`\\.${codec}\\.orc$`))]);
      const [read] = await pyarrowRead(files[0]);
      expect(read.schema).toEqual(COLUMNS);
      expect(read.compression).toBe(codec === 'none' ? 'UNCOMPRESSED' : codec.toUpperCase());
      expect(read.rows).toEqual([CANON1, CANON2]);
      const back = await readAll({ path: dir, file_format_type: 'orc' });
      expect(back.table.columns.map((c) => c.name)).toEqual(COLUMNS.map(([n]) => n));
      expect(back.rows.map((r) => r.fields)).toEqual([ROW1, ROW2]);
    });
  }

  it('reads the stripes of a pyarrow file as splits, with read_columns, and a schema casting its columns', async () => {
    const dir = join(root, 'pyarrow');
    mkdirSync(dir, { recursive: true });
    const rows = Array.from({ length: 20_000 }, (_, i) => [String(i), i % 7 === 0 ? null : `name-${i}`, String(i % 100), String(1.5 * i)]);
    const spec = join(root, 'spec.json');
    writeFileSync(
      spec,
      JSON.stringify({
        columns: [
          ['id', 'bigint'],
          ['name', 'string'],
          ['small', 'smallint'],
          ['ratio', 'float'],
        ],
        rows,
        options: { stripe_size: 64 * 1024 },
      }),
    );
    await pyarrowWrite(spec, join(dir, 'part-0.orc'), 'zstd');
    const { splits } = await splitsOf({ path: dir, file_format_type: 'orc' });
    expect(splits.length).toBeGreaterThan(1);
    expect(new Set(splits.map((s) => s.rowGroup)).size).toBe(splits.length);

    const all = await readAll({ path: dir, file_format_type: 'orc', read_columns: ['name', 'id'] });
    expect(all.table.columns.map((c) => `${c.name} ${c.type.kind}`)).toEqual(['name string', 'id bigint']);
    expect(all.rows.map((r) => r.fields)).toEqual(rows.map((r) => [r[1], BigInt(r[0]!)]));

    const cast = await readAll({
      path: dir,
      file_format_type: 'orc',
      schema: { fields: { id: 'string', small: 'bigint', ratio: 'string' } },
    });
    expect(cast.rows.slice(0, 3).map((r) => r.fields)).toEqual([
      ['0', 0n, '0.0'],
      ['1', 1n, '1.5'],
      ['2', 2n, '3.0'],
    ]);
    await expect(readAll({ path: dir, file_format_type: 'orc', schema: { fields: { name: 'array<int>' } } })).rejects.toThrow(
      /Column name is string in .*part-0\.orc, which cannot be read as the schema's array<int>\./,
    );
  });
});

/** A Tideway file of one int column (uncompressed: its footer and postscript bytes can be patched). */
async function plainFile(name: string, codec = 'none'): Promise<{ dir: string; file: string; bytes: Buffer }> {
  const dir = join(root, name);
  const table = tableOf([['n', 'int']]);
  const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'orc', compress_codec: codec }, table);
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  await writer.write(Array.from({ length: 5000 }, (_, i) => ({ kind: '+I' as const, tableId: 'db.t', fields: [i * 3] })));
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileAggregatedCommitInfo, FileAggregatedCommitInfo>;
  await committer.commit([committer.combine([info as unknown as FileAggregatedCommitInfo])]);
  const file = join(dir, readdirSync(dir)[0]);
  return { dir, file, bytes: readFileSync(file) };
}

describe('LocalFile orc: bad files get one sentence naming the file and the stripe', () => {
  it('a truncated file', async () => {
    const { dir, file, bytes } = await plainFile('truncated');
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(readAll({ path: dir, file_format_type: 'orc' })).rejects.toThrow(
      new RegExp(`^${file.replace(/[.]/g, '\\.')} is not a readable ORC file: [^\\n]*(truncated|not ORC)[^\\n]*\\.$`),
    );
    writeFileSync(file, bytes.subarray(0, 2));
    await expect(readAll({ path: dir, file_format_type: 'orc' })).rejects.toThrow(/is not a readable ORC file: it has 2 bytes/);
  });

  it('a corrupt stream', async () => {
    const { dir, file, bytes } = await plainFile('corrupt', 'zlib');
    const broken = Buffer.from(bytes);
    broken.fill(0xff, 3, 40); // the stripe's first stream: a chunk header claiming 8 MB
    writeFileSync(file, broken);
    await expect(readAll({ path: dir, file_format_type: 'orc' })).rejects.toThrow(
      /corrupt\/[^ ]*\.orc: stripe 0 of 1: stream .* does not decompress \(a compressed chunk of \d+ bytes passes the end of its section\) \(the file is corrupt\)\./,
    );
    // RLE bytes that end early, in an uncompressed file
    const plain = await plainFile('corrupt-rle');
    const cut = Buffer.from(plain.bytes);
    cut.fill(0x7f, 3, 5); // a DIRECT header of 256 values of 64 bits, more than the stream holds
    writeFileSync(plain.file, cut);
    await expect(readAll({ path: plain.dir, file_format_type: 'orc' })).rejects.toThrow(
      /stripe 0 of 1, column n: .*\(the file is corrupt\)\./,
    );
  });

  it('an unknown codec or type', async () => {
    const { dir, file, bytes } = await plainFile('codec');
    const psLen = bytes[bytes.length - 1];
    const ps = bytes.length - 1 - psLen;
    // the postscript: footerLength (0x08 varint), then compression (0x10)
    let at = ps + 1;
    while (bytes[at] & 0x80) at++;
    expect(bytes[at + 1]).toBe(0x10);
    for (const [code, name] of [
      [3, 'lzo'],
      [9, '#9'],
    ] as const) {
      const patched = Buffer.from(bytes);
      patched[at + 2] = code;
      writeFileSync(file, patched);
      await expect(readAll({ path: dir, file_format_type: 'orc' })).rejects.toThrow(
        new RegExp(
          `codec/[^ ]*\\.orc is not a readable ORC file: its codec ${name} is not one Tideway reads \\(none, zlib, snappy, lz4, zstd\\)\\.`,
        ),
      );
    }
    // the footer's type of column n: { kind: INT } is 0x22 0x02 0x08 0x03
    const type = bytes.indexOf(Buffer.from([0x22, 0x02, 0x08, 0x03]));
    expect(type).toBeGreaterThan(0);
    for (const [kind, what] of [
      [13, /column n is an ORC uniontype, which no SeaTunnel type holds/],
      [99, /column n has ORC type kind 99, which Tideway does not know\./],
    ] as const) {
      const patched = Buffer.from(bytes);
      patched[type + 3] = kind;
      writeFileSync(file, patched);
      await expect(readAll({ path: dir, file_format_type: 'orc' })).rejects.toThrow(what);
    }
  });
});
