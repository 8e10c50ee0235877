import { PassThrough, Readable } from 'node:stream';
import type { Column, DataType } from '@tideway/api';
import type * as ExcelJS from 'exceljs';
import type { FileEncoder } from './file-encoder.js';
import { javaDoubleText } from './java-text.js';
import { compileJsonValueWriter } from './json-format.js';

/**
 * Excel (xlsx) files, as SeaTunnel's ExcelGenerator and ExcelReadStrategy handle them, through
 * exceljs's streaming workbook writer and reader (rows go to the file as they come; a read
 * holds one row at a time). exceljs takes ~250 ms to load, so it is loaded only by jobs that
 * use the excel format (`loadExcel`).
 */
let excel: typeof ExcelJS | undefined;

/** Loads exceljs once; writers await it before their first row. */
export async function loadExcel(): Promise<typeof ExcelJS> {
  excel ??= ((await import('exceljs')) as unknown as { default: typeof ExcelJS }).default;
  return excel;
}

/** Excel's number formats for SeaTunnel's date_format / datetime_format / time_format patterns. */
const excelPattern = (javaPattern: string): string =>
  javaPattern.replace(/'T'/g, '"T"').replace(/S/g, '0').replace(/HH/g, 'hh').replace(/H/g, 'h');

/** What a written cell holds for a value of `type` (ExcelGenerator.setCellValue). */
function compileCell(type: DataType, fieldDelimiter: string): (v: unknown) => unknown {
  switch (type.kind) {
    case 'bigint':
      return (v) => Number(v);
    case 'decimal':
      return (v) => Number.parseFloat(String(v));
    case 'bytes':
      // Java's Arrays.asList of the signed bytes, as SeaTunnel writes them
      return (v) => `[${[...(v as Uint8Array)].map((b) => (b > 127 ? b - 256 : b)).join(', ')}]`;
    case 'array':
    case 'map':
      return compileJsonValueWriter(type);
    case 'row': {
      const parts = type.fields.map((f) => compileCell(f.type, fieldDelimiter));
      return (v) => (v as unknown[]).map((x, i) => (x === null || x === undefined ? '' : String(parts[i](x)))).join(fieldDelimiter);
    }
    case 'date':
      return (v) => new Date(`${v as string}T00:00:00Z`);
    case 'timestamp':
      return (v) => new Date(`${(v as string).slice(0, 23)}Z`);
    case 'time':
      return (v) => new Date(`1899-12-30T${(v as string).slice(0, 12)}Z`);
    default:
      return (v) => v;
  }
}

export interface ExcelWriteOptions {
  readonly sheetName?: string;
  readonly fieldDelimiter: string;
  readonly dateFormat: string;
  readonly dateTimeFormat: string;
  readonly timeFormat: string;
}

/**
 * One xlsx file: a header row of the column names, then a row per input row, each value in the
 * cell of its column's index in the upstream row (SeaTunnel's sink_columns leave gaps).
 */
export class ExcelFileEncoder implements FileEncoder {
  private readonly chunks: Buffer[] = [];
  private readonly book: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly sheet: ExcelJS.Worksheet;
  private readonly cells: ((v: unknown) => unknown)[];
  private readonly formats: (string | undefined)[];

  constructor(
    private readonly columns: readonly Column[],
    private readonly positions: readonly number[],
    o: ExcelWriteOptions,
  ) {
    if (!excel) throw new Error('exceljs is not loaded (loadExcel)');
    const out = new PassThrough();
    out.on('data', (c: Buffer) => this.chunks.push(c));
    this.book = new excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    this.sheet = this.book.addWorksheet(o.sheetName ?? `Sheet${Math.floor(Math.random() * 2 ** 31)}`);
    this.cells = columns.map((c) => compileCell(c.type, o.fieldDelimiter));
    this.formats = columns.map((c) =>
      c.type.kind === 'string' || c.type.kind === 'bytes' || c.type.kind === 'array' || c.type.kind === 'map' || c.type.kind === 'row'
        ? '@'
        : c.type.kind === 'date'
          ? excelPattern(o.dateFormat)
          : c.type.kind === 'timestamp'
            ? excelPattern(o.dateTimeFormat)
            : c.type.kind === 'time'
              ? excelPattern(o.timeFormat)
              : undefined,
    );
    const header = this.sheet.getRow(1);
    columns.forEach((c, i) => (header.getCell(positions[i] + 1).value = c.name));
    header.commit();
  }

  add(fields: readonly unknown[]): void {
    const row = this.sheet.addRow([]);
    for (let i = 0; i < this.columns.length; i++) {
      const v = fields[i];
      if (v === null || v === undefined) continue;
      const cell = row.getCell(this.positions[i] + 1);
      cell.value = this.cells[i](v) as ExcelJS.CellValue;
      const fmt = this.formats[i];
      if (fmt) cell.numFmt = fmt;
    }
    row.commit();
  }

  take(): Uint8Array | undefined {
    if (this.chunks.length === 0) return undefined;
    return Buffer.concat(this.chunks.splice(0));
  }

  async finish(): Promise<Uint8Array | undefined> {
    this.sheet.commit();
    await this.book.commit();
    return this.take();
  }
}

/** Converts a read cell value to a Tideway value of `type` (ExcelReadStrategy's convert). */
export function compileExcelValue(type: DataType): (v: unknown) => unknown {
  const scalar = (v: unknown): unknown => {
    if (v === null || v === undefined || v === '') return null;
    if (typeof v === 'object' && !(v instanceof Date)) {
      const o = v as { result?: unknown; text?: unknown; richText?: { text: string }[] };
      if (o.richText) return o.richText.map((r) => r.text).join('');
      return o.result ?? o.text ?? null; // formula results, hyperlinks
    }
    return v;
  };
  const text = (v: unknown): string =>
    typeof v === 'number' ? javaDoubleText(v) : v instanceof Date ? v.toISOString().slice(0, 19) : String(v);
  const unlessEmpty =
    (f: (v: unknown) => unknown) =>
    (raw: unknown): unknown => {
      const v = scalar(raw);
      return v === null ? null : f(v);
    };
  switch (type.kind) {
    case 'boolean':
      return unlessEmpty((v) => (typeof v === 'boolean' ? v : String(v).toLowerCase() === 'true'));
    case 'tinyint':
    case 'smallint':
    case 'int':
      return unlessEmpty((v) => Math.trunc(Number(v)));
    case 'bigint':
      return unlessEmpty((v) => BigInt(typeof v === 'number' ? Math.trunc(v) : String(v).replace(/\.0+$/, '')));
    case 'float':
    case 'double':
      return unlessEmpty((v) => Number(v));
    case 'decimal':
      return unlessEmpty((v) => String(v));
    case 'date':
      return unlessEmpty((v) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10)));
    case 'timestamp':
      return unlessEmpty((v) =>
        v instanceof Date
          ? v
              .toISOString()
              .slice(0, 23)
              .replace(/\.000$/, '')
          : String(v).replace(' ', 'T'),
      );
    case 'time':
      return unlessEmpty((v) => (v instanceof Date ? v.toISOString().slice(11, 19) : String(v)));
    default:
      return unlessEmpty(text); // string, and the types SeaTunnel reads back from their text
  }
}

/**
 * The rows of one sheet of an xlsx stream, cell values as exceljs reads them. Without sheet_name
 * the first sheet is streamed row by row. With sheet_name the workbook is read whole (as
 * SeaTunnel's POI reader does): a streamed sheet's name is known only once workbook.xml has been
 * read, and writers such as SheetJS put that entry after the sheets.
 */
export async function* excelRows(
  bytes: AsyncIterable<Uint8Array>,
  sheetName: string | undefined,
  where: string,
): AsyncGenerator<unknown[]> {
  const lib = await loadExcel();
  if (sheetName !== undefined) {
    const book = new lib.Workbook();
    await book.xlsx.read(Readable.from(bytes));
    const sheet = book.getWorksheet(sheetName);
    if (!sheet) throw new Error(`${where} has no sheet named '${sheetName}' (sheets: ${book.worksheets.map((w) => w.name).join(', ')})`);
    for (let r = 1; r <= sheet.rowCount; r++) yield (sheet.getRow(r).values as unknown[]).slice(1);
    return;
  }
  const reader = new lib.stream.xlsx.WorkbookReader(Readable.from(bytes), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'emit',
  });
  for await (const sheet of reader) {
    for await (const row of sheet) yield (row.values as unknown[]).slice(1); // exceljs rows are 1-based
    return;
  }
}
