/**
 * The data files of the extra conformance set (seatunnel-extra/fixtures/fixtures.tsv): which of
 * SeaTunnel's data files go where, and how its IT puts them there. `fixture` names files of shared
 * extra/fixtures, or (absolute) a file an earlier line of the table laid. `made by` is one of:
 * - `copy`: one file of shared extra/fixtures as it is;
 * - `mkdir`: an empty folder (no file, written `-`);
 * - `lzop`, `zip`, `tar`, `tar_gz`: made by that command-line tool, as the IT makes them at
 *   test time (lzop of one file; an archive holding each file listed, separated by spaces, as
 *   one entry);
 * - `duckdb_parquet`: the rows of a json file of SeaTunnel's, written as Parquet by DuckDB,
 *   with the column types of SeaTunnel's FakeSource schema those files hold. The IT copies an
 *   e2e.parquet of its own that shared/ does not have; its configs look only at c_string,
 *   c_boolean and c_double and the partition folders. (The decimals pass through DuckDB's JSON
 *   reader as doubles, so their last digits are not e2e.json's.)
 * - `pyarrow_orc`: those rows (DuckDB's Parquet, as above) written as ORC by pyarrow (zlib), an
 *   independent ORC writer standing in for the IT's e2e.orc, which shared/ does not have; its
 *   configs look at c_string, c_boolean and c_double, and the cast config reads c_timestamp as a
 *   time, c_float as a string and the small integers as bigints.
 * - `sheetjs_xlsx`, `sheetjs_xls`: the rows of such a json file as an Excel workbook written by
 *   SheetJS, xlsx or Excel 97-2003 (BIFF8) .xls, standing in for the IT's e2e.xlsx and e2e.xls
 *   (shared/ has neither). Laid out as those are: one sheet, a header row of the column names,
 *   then a row per json row, cells as SeaTunnel's ExcelGenerator writes them (maps and arrays as
 *   JSON text, bytes as Java's list of their signed values, numbers and booleans as such, dates
 *   and timestamps as date-formatted numbers, c_row its fields' text joined by the configs'
 *   field_delimiter `;`).
 * - `xml_attr_record`: the IT's e2e.xml stood in for (shared/ has none) by the first row of such
 *   a json file: one RECORD element in a RECORDS root, its fields as attributes (the xml configs'
 *   xml_row_tag and xml_use_attr_format), named and typed as the xml configs' schema has them
 *   (not FakeSource's: c_bytes is a tinyint, c_short, c_datetime and c_time are new); their
 *   asserts want exactly one row (XML_FIELDS says which json field each comes from).
 * - `bytes:<n>`: n pseudo-random bytes, every byte value among them (no file, `-`), standing in
 *   for a file no config looks into: the binary configs copy SeaTunnel's picture cat.png byte
 *   for byte and count its 1024-byte parts (MAX_ROW 1924); 1,969,664 bytes are 1,924 parts.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import * as XLSX from 'xlsx';
import { pyarrowOrcFromParquet } from '@tideway/testing';

export interface Fixture {
  readonly files: readonly string[];
  readonly dest: string;
  readonly madeBy: string;
}

export function readFixtures(tsv: string): Fixture[] {
  return readFileSync(tsv, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [files, dest, madeBy] = line.split('\t');
      return { files: files.split(' '), dest, madeBy };
    });
}

/** The command that makes `out` from `inputs` (files in its working folder), per `made by`. */
const TOOLS: Record<string, (out: string, inputs: string[]) => [string, string[]]> = {
  lzop: (out, inputs) => ['lzop', ['-q', '-o', out, ...inputs]],
  zip: (out, inputs) => ['zip', ['-q', out, ...inputs]],
  tar: (out, inputs) => ['tar', ['-cf', out, ...inputs]],
  tar_gz: (out, inputs) => ['tar', ['-czf', out, ...inputs]],
};

/** `n` bytes of a fixed xorshift sequence: the same file on every run. */
function pseudoRandomBytes(n: number): Buffer {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`fixtures.tsv: bytes:${n} is not a size`);
  const out = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** SeaTunnel's FakeSource schema of e2e.json's rows (its configs' `schema`); c_row repeats it in capitals. */
const FAKE_SCHEMA: readonly (readonly [string, string])[] = [
  ['c_map', 'map<string, string>'],
  ['c_array', 'array<int>'],
  ['c_string', 'string'],
  ['c_boolean', 'boolean'],
  ['c_tinyint', 'tinyint'],
  ['c_smallint', 'smallint'],
  ['c_int', 'int'],
  ['c_bigint', 'bigint'],
  ['c_float', 'float'],
  ['c_double', 'double'],
  ['c_bytes', 'bytes'],
  ['c_date', 'date'],
  ['c_decimal', 'decimal(38, 18)'],
  ['c_timestamp', 'timestamp'],
];

/** FAKE_SCHEMA's types in DuckDB's (bytes are base64 text in the json). */
const DUCKDB_TYPES: Record<string, string> = {
  'map<string, string>': 'MAP(VARCHAR, VARCHAR)',
  'array<int>': 'INTEGER[]',
  string: 'VARCHAR',
  boolean: 'BOOLEAN',
  tinyint: 'TINYINT',
  smallint: 'SMALLINT',
  int: 'INTEGER',
  bigint: 'BIGINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  bytes: 'VARCHAR',
  date: 'DATE',
  'decimal(38, 18)': 'DECIMAL(38, 18)',
  timestamp: 'TIMESTAMP',
};

function duckdbJsonColumns(): string {
  const pairs = FAKE_SCHEMA.map(([n, t]) => [n, DUCKDB_TYPES[t]]);
  const row = pairs.map(([n, t]) => `${n.toUpperCase()} ${t}`).join(', ');
  return `{${[...pairs, ['c_row', `STRUCT(${row})`]].map(([n, t]) => `${n}: '${t}'`).join(', ')}}`;
}

/** Writes the rows of SeaTunnel's json file `src` as Parquet to `out`, by DuckDB (bytes are base64 in the json). */
async function duckdbParquet(src: string, out: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(
      `COPY (SELECT * REPLACE (from_base64(c_bytes) AS c_bytes) FROM read_json('${src}', format = 'newline_delimited', columns = ${duckdbJsonColumns()})) TO '${out}' (FORMAT parquet)`,
    );
  } finally {
    c.closeSync();
  }
}

/** Writes the rows of SeaTunnel's json file `src` as ORC to `out`: DuckDB's Parquet of them, rewritten by pyarrow. */
async function pyarrowOrc(src: string, out: string): Promise<void> {
  const parquet = `${out}.parquet`;
  await duckdbParquet(src, parquet);
  try {
    await pyarrowOrcFromParquet(parquet, out, 'zlib');
  } finally {
    rmSync(parquet, { force: true });
  }
}

type JsonRow = Record<string, unknown>;

/** The rows of a json-lines file, each number kept as its text (e2e.json's bigints and decimals do not fit doubles). */
function jsonRows(src: string): JsonRow[] {
  return readFileSync(src, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line.replace(/("(?:[^"\\]|\\.)*")|-?\d[\d.eE+-]*/g, (m, text?: string) => text ?? `"${m}"`)) as JsonRow);
}

/**
 * SeaTunnel's text of a value of a FakeSource type (what its readers parse back): maps and
 * arrays as JSON, bytes as their UTF-8 text, timestamps as yyyy-MM-dd HH:mm:ss, a row its
 * fields' texts joined by `;` (the configs' field_delimiter), empty for null.
 */
function fakeText(type: string, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (type === 'array<int>') return `[${(v as string[]).join(',')}]`;
  if (type === 'map<string, string>') return JSON.stringify(v);
  if (type === 'bytes') return Buffer.from(v as string, 'base64').toString('utf8');
  if (type === 'timestamp') return (v as string).replace('T', ' ');
  return typeof v === 'string' ? v : JSON.stringify(v); // numbers are their text here; booleans true or false
}

const rowText = (row: JsonRow): string => FAKE_SCHEMA.map(([n, t]) => fakeText(t, row[n.toUpperCase()])).join(';');

/** Days since Excel's day 0 (1899-12-30) of an ISO date-time, as Excel holds dates. */
const excelSerial = (iso: string): number => (Date.parse(`${iso}Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;

/** The cell SeaTunnel's ExcelGenerator writes for a value of a FakeSource type. */
function excelCell(type: string, v: unknown): XLSX.CellObject | undefined {
  if (v === null || v === undefined) return undefined;
  switch (type) {
    case 'boolean':
      return { t: 'b', v: v as boolean };
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'decimal(38, 18)':
      return { t: 'n', v: Number(v) };
    case 'bytes': // Java's Arrays.asList of the signed bytes
      return { t: 's', v: `[${[...Buffer.from(v as string, 'base64')].map((b) => (b > 127 ? b - 256 : b)).join(', ')}]` };
    case 'date':
      return { t: 'n', v: excelSerial(`${v as string}T00:00:00`), z: 'yyyy-mm-dd' };
    case 'timestamp':
      return { t: 'n', v: excelSerial(v as string), z: 'yyyy-mm-dd hh:mm:ss' };
    default:
      return { t: 's', v: fakeText(type, v) };
  }
}

/** Writes the rows of SeaTunnel's json file `src` as a one-sheet workbook by SheetJS: a header row, then the rows. */
function sheetjsWorkbook(src: string, out: string, bookType: 'xlsx' | 'biff8'): void {
  const names = [...FAKE_SCHEMA.map(([n]) => n), 'c_row'];
  const rows = jsonRows(src).map((row) => [
    ...FAKE_SCHEMA.map(([n, t]) => excelCell(t, row[n])),
    row.c_row ? { t: 's', v: rowText(row.c_row as JsonRow) } : undefined,
  ]);
  const sheet: XLSX.WorkSheet = {};
  names.forEach((n, c) => (sheet[XLSX.utils.encode_cell({ r: 0, c })] = { t: 's', v: n }));
  rows.forEach((cells, r) =>
    cells.forEach((cell, c) => {
      if (cell) sheet[XLSX.utils.encode_cell({ r: r + 1, c })] = cell;
    }),
  );
  sheet['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length, c: names.length - 1 } });
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'e2e');
  // shared strings, as Excel and POI write them (SheetJS's .xls cells of their own hold 255 characters at most)
  writeFileSync(out, XLSX.write(book, { type: 'buffer', bookType, bookSST: true }) as Buffer);
}

/**
 * The xml configs' fields (SeaTunnel's e2e.xml has them, not FakeSource's), each as the text of a
 * field of e2e.json's row of that type: c_bytes (a tinyint there) its c_tinyint, c_short its
 * c_smallint, c_array (of strings) its ints, c_datetime and c_time its c_timestamp, c_decimal
 * (decimal(10, 2)) the last 8 integer digits of its c_decimal, rounded to 2 places.
 */
const XML_FIELDS: readonly (readonly [string, (row: JsonRow) => string])[] = [
  ['c_bytes', (r) => fakeText('tinyint', r.c_tinyint)],
  ['c_short', (r) => fakeText('smallint', r.c_smallint)],
  ['c_int', (r) => fakeText('int', r.c_int)],
  ['c_bigint', (r) => fakeText('bigint', r.c_bigint)],
  ['c_string', (r) => fakeText('string', r.c_string)],
  ['c_double', (r) => fakeText('double', r.c_double)],
  ['c_float', (r) => fakeText('float', r.c_float)],
  [
    'c_decimal',
    (r) => {
      const [whole, fraction = '0'] = String(r.c_decimal).split('.');
      return Number(`${whole.slice(-8)}.${fraction}`).toFixed(2);
    },
  ],
  ['c_boolean', (r) => fakeText('boolean', r.c_boolean)],
  ['c_map', (r) => fakeText('map<string, string>', r.c_map)],
  ['c_array', (r) => JSON.stringify(r.c_array)], // its numbers are texts here: a JSON array of strings
  ['c_date', (r) => fakeText('date', r.c_date)],
  ['c_datetime', (r) => fakeText('timestamp', r.c_timestamp)],
  ['c_time', (r) => String(r.c_timestamp).slice('yyyy-MM-ddT'.length)],
];

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Writes the first row of SeaTunnel's json file `src` as the xml configs' one RECORD, its fields as attributes. */
function xmlAttrRecord(src: string, out: string): void {
  const row = jsonRows(src)[0];
  const attrs = XML_FIELDS.map(([name, text]) => ` ${name}="${xmlEscape(text(row))}"`).join('');
  writeFileSync(out, `<?xml version="1.0" encoding="UTF-8"?>\n<RECORDS>\n    <RECORD${attrs}/>\n</RECORDS>\n`);
}

/** The kinds made from a json file of SeaTunnel's by a library or by hand: `src` in, `out` written. */
const MAKERS: Record<string, (src: string, out: string) => void | Promise<void>> = {
  duckdb_parquet: duckdbParquet,
  pyarrow_orc: pyarrowOrc,
  sheetjs_xlsx: (src, out) => sheetjsWorkbook(src, out, 'xlsx'),
  sheetjs_xls: (src, out) => sheetjsWorkbook(src, out, 'biff8'),
  xml_attr_record: xmlAttrRecord,
};

/** A `fixture` file: one of shared extra/fixtures (`data`), or, absolute, one an earlier line laid. */
const fixtureFile = (file: string, data: string): string => (isAbsolute(file) ? file : join(data, file));

/**
 * The fixtures MAKERS make (DuckDB's are async), made once into a folder of their own: `lay`
 * copies them from there. `dispose` removes the folder.
 */
export async function prepareFixtures(
  fixtures: readonly Fixture[],
  data: string,
): Promise<{ made: Map<string, string>; dispose: () => void }> {
  const work = mkdtempSync(join(tmpdir(), 'tideway-fixtures-'));
  const made = new Map<string, string>();
  for (const [i, f] of fixtures.entries()) {
    const make = MAKERS[f.madeBy];
    if (!make) continue;
    const out = join(work, `${i}-${basename(f.dest)}`);
    await make(fixtureFile(f.files[0], data), out);
    made.set(f.dest, out);
  }
  return { made, dispose: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * Lays one fixture at its destination (folders made). A tool's fixture is made as SeaTunnel's
 * IT makes it, in a folder of its own removed after: each data file under a name of its own with
 * the same suffix (the IT's entries are `<random>e2e_<millis>.txt`), the output copied over.
 */
export function layFixture(f: Fixture, data: string, made: ReadonlyMap<string, string>): void {
  mkdirSync(dirname(f.dest), { recursive: true });
  if (f.madeBy === 'copy') return copyFileSync(fixtureFile(f.files[0], data), f.dest);
  if (f.madeBy === 'mkdir') return void mkdirSync(f.dest, { recursive: true }); // the IT's mkdir -p
  if (f.madeBy.startsWith('bytes:')) return writeFileSync(f.dest, pseudoRandomBytes(Number(f.madeBy.slice('bytes:'.length))));
  const ready = made.get(f.dest);
  if (ready !== undefined) return copyFileSync(ready, f.dest);
  const tool = TOOLS[f.madeBy];
  if (!tool)
    throw new Error(
      `fixtures.tsv: ${f.dest} is made by '${f.madeBy}', none of copy, mkdir, bytes:<n>, ${[...Object.keys(MAKERS), ...Object.keys(TOOLS)].join(', ')}`,
    );
  const work = mkdtempSync(join(tmpdir(), 'tideway-fixture-'));
  try {
    const inputs = f.files.map((file, i) => {
      const name = `${basename(file, extname(file))}_${i + 1}${extname(file)}`;
      copyFileSync(fixtureFile(file, data), join(work, name));
      return name;
    });
    const [command, args] = tool(basename(f.dest), inputs);
    execFileSync(command, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
    copyFileSync(join(work, basename(f.dest)), f.dest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
