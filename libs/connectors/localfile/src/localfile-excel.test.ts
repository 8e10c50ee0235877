/**
 * Excel through the LocalFile connector, proven against another implementation: SheetJS (xlsx)
 * reads what Tideway writes (exceljs), and Tideway reads what SheetJS writes.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
});
