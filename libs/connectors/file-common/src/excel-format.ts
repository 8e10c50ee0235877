import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Column, DataType } from '@tideway/api';
import type * as ExcelJS from 'exceljs';
import { zipReader } from './archive-entries.js';
import { columnError, type FileEncoder } from './file-encoder.js';
import { javaDoubleText, javaFloatText } from './java-text.js';
import { type DateFormat, type DateTimeFormat, formatDate, formatDateTime, formatTime, type TimeFormat } from './temporal-formats.js';
import { compileJsonValueParser, compileJsonValueWriter } from './json-format.js';
import { javaLineSplitter } from './java-line-split.js';
import { xlsRows } from './xls-format.js';

/**
 * Excel (xlsx) files, as SeaTunnel's ExcelGenerator and ExcelReadStrategy handle them, through
 * exceljs's streaming workbook writer and reader (rows go to the file as they come; a read
 * holds the file's bytes and, when it can stream the sheet, one parsed row at a time: excelRows);
 * Excel 97-2003 (.xls) files are read too (xls-format.ts). exceljs takes ~250 ms to load, so it
 * is loaded only by jobs that use the excel format (`loadExcel`).
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

/**
 * The text of a value inside a row cell (ExcelGenerator.convert): a row is written as its fields'
 * texts joined by field_delimiter; dates, times and timestamps in date_format, time_format and
 * datetime_format; floats and doubles as Java prints them; bytes as their UTF-8 text; arrays and
 * maps as JSON; null as the empty string.
 */
function compileFieldText(type: DataType, o: ExcelWriteOptions): (v: unknown) => string {
  const text = ((): ((v: unknown) => string) => {
    switch (type.kind) {
      case 'array':
      case 'map':
        return compileJsonValueWriter(type);
      case 'float':
        return (v) => javaFloatText(v as number);
      case 'double':
        return (v) => javaDoubleText(v as number);
      case 'date':
        return (v) => formatDate(v as string, o.dateFormat);
      case 'time':
        return (v) => formatTime(v as string, o.timeFormat);
      case 'timestamp':
        return (v) => formatDateTime(v as string, o.dateTimeFormat);
      case 'bytes':
        return (v) => Buffer.from(v as Uint8Array).toString('utf8');
      case 'row': {
        const fields = type.fields.map((f) => compileFieldText(f.type, o));
        return (v) => (v as unknown[]).map((x, i) => fields[i](x)).join(o.fieldDelimiter);
      }
      default:
        return (v) => String(v);
    }
  })();
  return (v) => (v === null || v === undefined ? '' : text(v));
}

/** What a written cell holds for a value of `type` (ExcelGenerator.setCellValue). */
function compileCell(type: DataType, o: ExcelWriteOptions): (v: unknown) => unknown {
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
    case 'row':
      return compileFieldText(type, o);
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
  readonly dateFormat: DateFormat;
  readonly dateTimeFormat: DateTimeFormat;
  readonly timeFormat: TimeFormat;
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
    this.cells = columns.map((c) => compileCell(c.type, o));
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

  /** The row's cell values, converted before any is kept (a bad value throws naming its column). */
  private convert(fields: readonly unknown[]): unknown[] {
    const values: unknown[] = new Array(this.columns.length);
    for (let i = 0; i < this.columns.length; i++) {
      const v = fields[i];
      if (v === null || v === undefined) continue;
      try {
        values[i] = this.cells[i](v);
      } catch (err) {
        throw columnError(this.columns[i].name, err);
      }
    }
    return values;
  }

  probe(fields: readonly unknown[]): void {
    this.convert(fields);
  }

  add(fields: readonly unknown[]): void {
    const values = this.convert(fields);
    const row = this.sheet.addRow([]);
    for (let i = 0; i < this.columns.length; i++) {
      if (values[i] === undefined) continue;
      const cell = row.getCell(this.positions[i] + 1);
      cell.value = values[i] as ExcelJS.CellValue;
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

/**
 * Converts a read cell value to a Tideway value of `type` (ExcelReadStrategy's convert): maps and
 * arrays from their JSON text, bytes the UTF-8 of the text, a row from its fields' texts joined
 * by `fieldDelimiter` (a Java regex), each converted as a cell of its field's type.
 */
export function compileExcelValue(type: DataType, fieldDelimiter: string): (v: unknown) => unknown {
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
    case 'bytes':
      return unlessEmpty((v) => Buffer.from(text(v), 'utf8'));
    case 'array':
    case 'map': {
      const json = compileJsonValueParser(type);
      return unlessEmpty((v) => json(text(v)));
    }
    case 'row': {
      const fields = type.fields.map((f) => compileExcelValue(f.type, fieldDelimiter));
      const split = javaLineSplitter(fieldDelimiter); // Java's String.split, as SeaTunnel splits the cell
      return unlessEmpty((v) => {
        const parts = split(text(v));
        return fields.map((convert, i) => convert(parts[i]));
      });
    }
    default:
      return unlessEmpty(text); // string, and the types SeaTunnel reads back from their text
  }
}

/** The parts of an xlsx that exceljs's streaming reader must have read before a sheet to stream it. */
const BEFORE_SHEETS = ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml'];

/**
 * Whether exceljs's streaming reader streams this xlsx's sheets: it does when the workbook, its
 * relationships and shared strings come before the first sheet in the zip (as Excel and POI write
 * them). Otherwise (SheetJS puts the sheets first; a workbook without shared strings, as
 * Tideway's writer makes, has none) it parks each sheet in a temporary file until the end, and
 * its unzip stream can end before it has handed over the entries still buffered, so the workbook
 * goes missing ("Cannot read properties of undefined (reading 'sheets')") or the sheet does.
 */
async function streamsSheets(file: Buffer): Promise<boolean> {
  const zip = await zipReader().fromBufferPromise(file, { lazyEntries: true });
  const offsets = new Map<string, number>();
  let firstSheet = Infinity;
  try {
    for await (const entry of zip.eachEntry()) {
      if (/^xl\/worksheets\/sheet\d+\.xml$/.test(entry.fileName)) firstSheet = Math.min(firstSheet, entry.relativeOffsetOfLocalHeader);
      else offsets.set(entry.fileName, entry.relativeOffsetOfLocalHeader);
    }
  } finally {
    zip.close();
  }
  return BEFORE_SHEETS.every((n) => (offsets.get(n) ?? Infinity) < firstSheet);
}

/**
 * The rows of one sheet of an excel file named `name` (a file's path or an archive entry's name),
 * cell values as exceljs reads them, absent rows left out. The file is held as its bytes (an xlsx
 * is a zip, whose directory is at its end). An .xls file (by its name, as SeaTunnel tells them
 * apart) is read by xlsRows. Without sheet_name the first sheet of an xlsx is parsed row by row
 * when exceljs can stream it (streamsSheets); otherwise, and with sheet_name, the workbook is
 * read whole (as SeaTunnel's POI reader does): a streamed sheet's name is known only once
 * workbook.xml has been read, and writers such as SheetJS put that entry after the sheets.
 */
export async function* excelRows(
  bytes: AsyncIterable<Uint8Array>,
  name: string,
  sheetName: string | undefined,
  where: string,
): AsyncGenerator<unknown[]> {
  const file = await buffer(bytes);
  if (name.endsWith('.xls')) {
    yield* xlsRows(file, sheetName, where);
    return;
  }
  const lib = await loadExcel();
  if (sheetName !== undefined || !(await streamsSheets(file))) {
    const book = new lib.Workbook();
    await book.xlsx.load(file as unknown as ExcelJS.Buffer); // exceljs's Buffer type predates Node's generic one
    const sheet = sheetName === undefined ? book.worksheets[0] : book.getWorksheet(sheetName);
    if (!sheet) {
      if (sheetName === undefined) throw new Error(`${where}: the workbook has no sheet`);
      throw new Error(`${where} has no sheet named '${sheetName}' (sheets: ${book.worksheets.map((w) => w.name).join(', ')})`);
    }
    for (let r = 1; r <= sheet.rowCount; r++) {
      const row = sheet.findRow(r);
      if (row) yield (row.values as unknown[]).slice(1); // exceljs rows are 1-based
    }
    return;
  }
  const reader = new lib.stream.xlsx.WorkbookReader(Readable.from([file]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'emit',
  });
  for await (const sheet of reader) {
    for await (const row of sheet) yield (row.values as unknown[]).slice(1);
    return;
  }
}
