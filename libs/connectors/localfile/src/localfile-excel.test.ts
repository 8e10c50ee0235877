/**
 * Excel through the LocalFile connector, proven against another implementation: SheetJS (xlsx)
 * reads what Tideway writes (exceljs), and Tideway reads what SheetJS writes, xlsx and .xls.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import type { Row, SinkAggregatedCommitter } from '@tideway/api';
import { readAll, sinkOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-excel-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COLUMNS: [string, string][] = [
  ['id', 'bigint'],
  ['name', 'string'],
  ['ok', 'boolean'],
  ['n', 'int'],
  ['price', 'decimal(10, 2)'],
  ['d', 'double'],
  ['day', 'date'],
  ['at', 'timestamp'],
  ['tags', 'array<int>'],
];

describe('LocalFile excel', () => {
  it('writes an xlsx file SheetJS reads: a header row, then the values with their types', async () => {
    const dir = join(root, 'out');
    const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'excel', sheet_name: 'orders' }, tableOf(COLUMNS));
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const rows: Row[] = [
      [1n, 'héllo', true, 7, '12.50', 0.25, '2024-02-29', '2024-01-02T03:04:05', [1, 2]],
      [2n, null, false, null, null, null, null, null, null],
    ].map((fields) => ({ kind: '+I', tableId: 'db.t', fields }));
    await writer.write(rows);
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    const [file] = readdirSync(dir);
    expect(file).toMatch(/\.xlsx$/);
    const book = XLSX.readFile(join(dir, file), { cellDates: true });
    expect(book.SheetNames).toEqual(['orders']);
    const got = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.orders, { header: 1, raw: true, defval: null });
    expect(got[0]).toEqual(COLUMNS.map(([n]) => n));
    expect(got[1].slice(0, 6)).toEqual([1, 'héllo', true, 7, 12.5, 0.25]);
    expect((got[1][6] as Date).toISOString().slice(0, 10)).toBe('2024-02-29');
    expect((got[1][7] as Date).toISOString().slice(0, 19)).toBe('2024-01-02T03:04:05');
    expect(got[1][8]).toBe('[1,2]');
    expect(got[2]).toEqual([2, null, false, null, null, null, null, null, null]);
    // and Tideway reads its own file back
    const { rows: back } = await readAll({
      path: dir,
      file_format_type: 'excel',
      skip_header_row_number: 1,
      schema: { fields: Object.fromEntries(COLUMNS.filter(([n]) => n !== 'tags')) },
      read_columns: ['id', 'name', 'day', 'at'],
    });
    expect(back.map((r) => r.fields)).toEqual([
      [1n, 'héllo', '2024-02-29', '2024-01-02T03:04:05'],
      [2n, null, null, null],
    ]);
  });

  it("writes a row cell as SeaTunnel's ExcelGenerator does: its fields' texts, temporal ones in the configured formats, joined by field_delimiter", async () => {
    const dir = join(root, 'rows-out');
    const columns: [string, string][] = [
      ['r', 'row<ts timestamp, day date, t time, f float, d double, raw bytes, tags array<int>, inner row<n int, s string>, gone string>'],
    ];
    const sink = sinkOf(
      {
        path: dir,
        tmp_path: join(root, 'rows-tmp'),
        file_format_type: 'excel',
        field_delimiter: '|',
        date_format: 'yyyy/MM/dd',
        datetime_format: 'yyyy-MM-dd HH:mm:ss',
        time_format: 'HH:mm:ss',
      },
      tableOf(columns),
    );
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const fields = [['2024-01-02T03:04:05.123456', '2024-02-29', '07:08:09.5', 1.5, 1e21, Buffer.from('ab'), [1, 2], [3, 'x'], null]];
    await writer.write([{ kind: '+I', tableId: 'db.t', fields }]);
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    const [file] = readdirSync(dir);
    const book = XLSX.readFile(join(dir, file));
    const got = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets[book.SheetNames[0]], { header: 1, raw: true, defval: null });
    // Java's Float.toString(1.5f) and Double.toString(1e21); the nested row's fields joined by the same delimiter
    expect(got[1]).toEqual(['2024-01-02 03:04:05|2024/02/29|07:08:09|1.5|1.0E21|ab|[1,2]|3|x|']);
  });

  it('reads an xlsx file SheetJS wrote, by sheet_name, header rows skipped', async () => {
    const dir = join(root, 'in');
    mkdirSync(dir);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['other'], [1]]), 'first');
    const data = [
      ['id', 'name', 'ok', 'when'],
      [1, 'a', true, new Date('2024-03-01T00:00:00Z')],
      [2, 'b', false, new Date('2024-03-02T00:00:00Z')],
    ];
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(data, { cellDates: true }), 'data');
    XLSX.writeFile(book, join(dir, 'sheetjs.xlsx'));
    const { rows } = await readAll({
      path: dir,
      file_format_type: 'excel',
      sheet_name: 'data',
      skip_header_row_number: 1,
      schema: { fields: { id: 'int', name: 'string', ok: 'boolean', when: 'date' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      [1, 'a', true, '2024-03-01'],
      [2, 'b', false, '2024-03-02'],
    ]);
  });

  /** A workbook by SheetJS: a sheet 'first' (unless `alone`), then 'data' of `rows` of cells (dates as date-formatted numbers). */
  function sheetjsBook(rows: (XLSX.CellObject | undefined)[][], bookType: 'xlsx' | 'biff8', alone = false): Buffer {
    const ws: XLSX.WorkSheet = {};
    rows.forEach((cells, r) =>
      cells.forEach((cell, c) => {
        if (cell) ws[XLSX.utils.encode_cell({ r, c })] = cell;
      }),
    );
    ws['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length - 1, c: Math.max(...rows.map((r) => r.length)) - 1 } });
    const book = XLSX.utils.book_new();
    if (!alone) XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['other sheet']]), 'first');
    XLSX.utils.book_append_sheet(book, ws, 'data');
    return XLSX.write(book, { type: 'buffer', bookType, bookSST: true }) as Buffer;
  }

  const serial = (iso: string): number => (Date.parse(`${iso}Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;
  const long = 'x'.repeat(300) + 'é'; // past a cell record's 255 characters: only the shared string table holds it
  const BOOK: (XLSX.CellObject | undefined)[][] = [
    ['id', 'name', 'ok', 'price', 'day', 'at', 'tags', 'attrs', 'raw', 'nested'].map((v) => ({ t: 's', v })),
    [
      { t: 'n', v: 1 },
      { t: 's', v: 'héllo ✓' },
      { t: 'b', v: true },
      { t: 'n', v: 12.5 },
      { t: 'n', v: serial('2024-02-29T00:00:00'), z: 'yyyy-mm-dd' },
      { t: 'n', v: serial('2024-01-02T03:04:05'), z: 'yyyy-mm-dd hh:mm:ss' },
      { t: 's', v: '[1,2]' },
      { t: 's', v: '{"k":"v"}' },
      { t: 's', v: 'ab' },
      { t: 's', v: '7;x;2023-03-04 07:08:58' },
    ],
    [
      { t: 'n', v: -2.25e10 },
      { t: 's', v: long },
      { t: 'b', v: false },
    ],
  ];
  const BOOK_SCHEMA = {
    id: 'bigint',
    name: 'string',
    ok: 'boolean',
    price: 'decimal(10, 2)',
    day: 'date',
    at: 'timestamp',
    tags: 'array<int>',
    attrs: 'map<string, string>',
    raw: 'bytes',
    nested: { n: 'int', s: 'string', t: 'timestamp' },
  };
  const BOOK_ROWS = [
    [
      1n,
      'héllo ✓',
      true,
      '12.5',
      '2024-02-29',
      '2024-01-02T03:04:05',
      [1, 2],
      new Map([['k', 'v']]),
      Buffer.from('ab'),
      [7, 'x', '2023-03-04T07:08:58'],
    ],
    [-22500000000n, long, false, null, null, null, null, null, null, null],
  ];

  it.each([
    ['xlsx', 'book.xlsx'],
    ['biff8', 'book.xls'],
  ] as const)(
    'reads a %s workbook SheetJS wrote: every cell type, maps, arrays, bytes and rows from their text',
    async (bookType, file) => {
      const dir = join(root, `types-${bookType}`);
      mkdirSync(dir);
      writeFileSync(join(dir, file), sheetjsBook(BOOK, bookType));
      const { rows } = await readAll({
        path: dir,
        file_format_type: 'excel',
        sheet_name: 'data',
        skip_header_row_number: 1,
        field_delimiter: ';',
        schema: { fields: BOOK_SCHEMA },
      });
      expect(rows.map((r) => r.fields)).toEqual(BOOK_ROWS);
    },
  );

  it('reads the first sheet of an .xls without sheet_name, and refuses a sheet it lacks or a file that is no .xls', async () => {
    const dir = join(root, 'xls-first');
    mkdirSync(dir);
    writeFileSync(join(dir, 'b.xls'), sheetjsBook(BOOK, 'biff8'));
    const { rows } = await readAll({ path: dir, file_format_type: 'excel', schema: { fields: { c: 'string' } } });
    expect(rows.map((r) => r.fields)).toEqual([['other sheet']]);
    await expect(
      readAll({ path: dir, file_format_type: 'excel', sheet_name: 'nope', schema: { fields: { c: 'string' } } }),
    ).rejects.toThrow(/has no sheet named 'nope' \(sheets: first, data\)/);
    writeFileSync(join(dir, 'b.xls'), sheetjsBook(BOOK, 'xlsx'));
    await expect(readAll({ path: dir, file_format_type: 'excel', schema: { fields: { c: 'string' } } })).rejects.toThrow(
      /not an Excel 97-2003 \(\.xls\) workbook/,
    );
  });

  it('reads .xls dates of a workbook in the 1904 date system, and refuses an Excel 5.0/95 (BIFF5) workbook', async () => {
    const dir = join(root, 'xls-1904');
    mkdirSync(dir);
    const ws = XLSX.utils.aoa_to_sheet([['day']]);
    ws.A2 = { t: 'n', v: (Date.UTC(2024, 1, 29) - Date.UTC(1904, 0, 1)) / 86_400_000, z: 'yyyy-mm-dd' };
    ws['!ref'] = 'A1:A2';
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, ws, 'data');
    book.Workbook = { WBProps: { date1904: true } };
    writeFileSync(join(dir, 'b.xls'), XLSX.write(book, { type: 'buffer', bookType: 'biff8' }) as Buffer);
    const options = { path: dir, file_format_type: 'excel', skip_header_row_number: 1, schema: { fields: { day: 'date' } } };
    expect((await readAll(options)).rows.map((r) => r.fields)).toEqual([['2024-02-29']]);
    writeFileSync(join(dir, 'b.xls'), XLSX.write(book, { type: 'buffer', bookType: 'biff5' }) as Buffer);
    await expect(readAll(options)).rejects.toThrow(/the workbook is not BIFF8 \(Excel 97-2003\); older \.xls formats .* are not read/);
  });

  it('reads every .xlsx and .xls entry of zip archives, SheetJS workbooks (sheets before the workbook part) among them', async () => {
    const work = join(root, 'zip-work');
    const dir = join(root, 'zip');
    mkdirSync(work);
    mkdirSync(dir);
    const data = sheetjsBook([[{ t: 's', v: 'n' }], ...[1, 2, 3].map((v): XLSX.CellObject[] => [{ t: 'n', v }])], 'xlsx', true);
    writeFileSync(join(work, 'a_1.xlsx'), data);
    writeFileSync(join(work, 'a_2.xlsx'), data);
    writeFileSync(join(work, 'b.xls'), sheetjsBook([[{ t: 's', v: 'n' }], [{ t: 'n', v: 4 }]], 'biff8', true));
    writeFileSync(join(work, 'notes.txt'), 'not a workbook');
    execFileSync('zip', ['-q', join(dir, 'books.zip'), 'a_1.xlsx', 'a_2.xlsx', 'b.xls', 'notes.txt'], { cwd: work });
    for (let run = 0; run < 5; run++) {
      const { rows } = await readAll({
        path: dir,
        file_format_type: 'excel',
        archive_compress_codec: 'zip',
        skip_header_row_number: 1,
        schema: { fields: { n: 'int' } },
      });
      expect(rows.map((r) => r.fields)).toEqual([[1], [2], [3], [1], [2], [3], [4]]);
    }
  });
});
