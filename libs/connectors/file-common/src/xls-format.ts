/**
 * Excel 97-2003 workbooks (.xls: BIFF8 records in an OLE compound file), which SeaTunnel's
 * ExcelReadStrategy reads through POI's HSSFWorkbook beside xlsx. One sheet's cells come out in
 * the shape exceljs gives an xlsx row, so compileExcelValue converts both alike: strings, numbers,
 * booleans, a Date for a number in a date format, a formula's cached result, a hole for an empty
 * cell (errors are null, as POI's ERROR cells are to SeaTunnel). The file is read whole, as POI
 * reads it: the compound file's directory and a sheet's position are anywhere in it.
 */

const SIGNATURE = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const END_OF_CHAIN = 0xfffffffe;
/** Sector numbers from here up are markers, not sectors (free, end of chain, FAT and DIFAT sectors). */
const MAX_SECTOR = 0xfffffffa;

/** The streams of a compound file ([MS-CFB]), by name in lower case. */
function compoundStreams(file: Buffer, where: string): Map<string, Buffer> {
  if (file.length < 512 || !file.subarray(0, 8).equals(SIGNATURE))
    throw new Error(`${where} is not an Excel 97-2003 (.xls) workbook: no OLE compound file signature`);
  const sectorSize = 2 ** file.readUInt16LE(0x1e);
  const miniSectorSize = 2 ** file.readUInt16LE(0x20);
  const broken = (): never => {
    throw new Error(`${where}: the .xls file's sector chains are broken (a truncated or damaged file)`);
  };
  const sector = (n: number): Buffer => {
    const at = (n + 1) * sectorSize; // the header takes the first sector's place
    if (n >= MAX_SECTOR || at + sectorSize > file.length) broken();
    return file.subarray(at, at + sectorSize);
  };
  const perSector = sectorSize / 4;
  // The FAT's sectors: 109 in the header, the rest in a chain of DIFAT sectors.
  const fatSectorCount = file.readUInt32LE(0x2c);
  const fatSectors: number[] = [];
  for (let i = 0; i < 109 && fatSectors.length < fatSectorCount; i++) fatSectors.push(file.readUInt32LE(0x4c + 4 * i));
  for (let difat = file.readUInt32LE(0x44), hops = 0; fatSectors.length < fatSectorCount; hops++) {
    if (hops > file.length / sectorSize) broken();
    const s = sector(difat);
    for (let i = 0; i < perSector - 1 && fatSectors.length < fatSectorCount; i++) fatSectors.push(s.readUInt32LE(4 * i));
    difat = s.readUInt32LE(sectorSize - 4);
  }
  const table = (sectors: readonly Buffer[]): Uint32Array => {
    const out = new Uint32Array(sectors.length * perSector);
    sectors.forEach((s, i) => {
      for (let j = 0; j < perSector; j++) out[i * perSector + j] = s.readUInt32LE(4 * j);
    });
    return out;
  };
  const fat = table(fatSectors.map(sector));
  const chain = (start: number, links: Uint32Array): number[] => {
    const out: number[] = [];
    for (let s = start; s !== END_OF_CHAIN; s = links[s]) {
      if (s >= links.length || out.length >= links.length) broken();
      out.push(s);
    }
    return out;
  };
  const directory = Buffer.concat(chain(file.readUInt32LE(0x30), fat).map(sector));
  const entries: { name: string; type: number; start: number; size: number }[] = [];
  for (let at = 0; at + 128 <= directory.length; at += 128) {
    const nameBytes = Math.min(64, directory.readUInt16LE(at + 0x40));
    entries.push({
      name: directory.toString('utf16le', at, at + Math.max(0, nameBytes - 2)),
      type: directory[at + 0x42],
      start: directory.readUInt32LE(at + 0x74),
      size: directory.readUInt32LE(at + 0x78), // the low 32 bits: a workbook stream is never 4 GB
    });
  }
  const root = entries[0];
  if (root?.type !== 5) broken();
  const firstMiniFat = file.readUInt32LE(0x3c);
  const miniFat = firstMiniFat === END_OF_CHAIN ? new Uint32Array(0) : table(chain(firstMiniFat, fat).map(sector));
  const miniStream = root.start === END_OF_CHAIN ? Buffer.alloc(0) : Buffer.concat(chain(root.start, fat).map(sector));
  const miniCutoff = file.readUInt32LE(0x38);
  const streams = new Map<string, Buffer>();
  for (const e of entries) {
    if (e.type !== 2) continue; // streams only, not storages
    const data =
      e.size < miniCutoff
        ? Buffer.concat(chain(e.start, miniFat).map((m) => miniStream.subarray(m * miniSectorSize, (m + 1) * miniSectorSize)))
        : Buffer.concat(chain(e.start, fat).map(sector));
    if (data.length < e.size) broken();
    streams.set(e.name.toLowerCase(), data.subarray(0, e.size)); // compound file names compare without case
  }
  return streams;
}

/** BIFF8 record types read here ([MS-XLS] 2.3). */
const R = {
  FORMULA: 0x0006,
  EOF: 0x000a,
  DATEMODE: 0x0022,
  FILEPASS: 0x002f,
  CONTINUE: 0x003c,
  BOUNDSHEET: 0x0085,
  MULRK: 0x00bd,
  RSTRING: 0x00d6,
  XF: 0x00e0,
  SST: 0x00fc,
  LABELSST: 0x00fd,
  NUMBER: 0x0203,
  LABEL: 0x0204,
  BOOLERR: 0x0205,
  STRING: 0x0207,
  RK: 0x027e,
  FORMAT: 0x041e,
  BOF: 0x0809,
} as const;

interface BiffRecord {
  readonly type: number;
  readonly data: Buffer;
}

/** The records of a BIFF stream from `at` on. */
function* biffRecords(stream: Buffer, at: number, where: string): Generator<BiffRecord> {
  while (at + 4 <= stream.length) {
    const type = stream.readUInt16LE(at);
    const end = at + 4 + stream.readUInt16LE(at + 2);
    if (end > stream.length) throw new Error(`${where}: the .xls workbook stream ends inside a record (a truncated file)`);
    yield { type, data: stream.subarray(at + 4, end) };
    at = end;
  }
}

/** An XLUnicodeString at `at` ([MS-XLS] 2.5.294): a count of characters (16 or 8 bits), flags, the characters. */
function unicodeString(data: Buffer, at: number, countBytes: 1 | 2): string {
  const count = countBytes === 2 ? data.readUInt16LE(at) : data[at];
  const start = at + countBytes + 1;
  return data[at + countBytes] & 1 ? data.toString('utf16le', start, start + 2 * count) : data.toString('latin1', start, start + count);
}

/**
 * The shared string table: the SST record and its CONTINUE records, read as one stream, where a
 * string's characters that go on in the next record start again with a flags byte (their width).
 */
function sharedStrings(parts: readonly Buffer[], where: string): string[] {
  let part = 0;
  let at = 8; // after the total and unique counts
  const next = (): void => {
    while (part < parts.length && at >= parts[part].length) {
      part++;
      at = 0;
    }
    if (part >= parts.length) throw new Error(`${where}: the .xls shared string table ends early (a damaged file)`);
  };
  const byte = (): number => {
    next();
    return parts[part][at++];
  };
  const u16 = (): number => byte() | (byte() << 8);
  const u32 = (): number => (u16() | (u16() << 16)) >>> 0;
  const skip = (n: number): void => {
    for (let left = n; left > 0; ) {
      next();
      const k = Math.min(left, parts[part].length - at);
      at += k;
      left -= k;
    }
  };
  const chars = (count: number, wide: boolean): string => {
    let out = '';
    for (let left = count; left > 0; ) {
      if (at >= parts[part].length) {
        next();
        wide = (parts[part][at++] & 1) === 1;
      }
      const width = wide ? 2 : 1;
      const n = Math.min(left, Math.floor((parts[part].length - at) / width));
      if (n === 0) throw new Error(`${where}: a character of the .xls shared string table is split between records`);
      out += parts[part].toString(wide ? 'utf16le' : 'latin1', at, at + n * width);
      at += n * width;
      left -= n;
    }
    return out;
  };
  const unique = parts[0].length >= 8 ? parts[0].readUInt32LE(4) : 0;
  const out: string[] = [];
  for (let i = 0; i < unique; i++) {
    const count = u16();
    const flags = byte();
    const runs = flags & 0x08 ? u16() : 0;
    const extended = flags & 0x04 ? u32() : 0;
    out.push(chars(count, (flags & 0x01) === 1));
    skip(4 * runs + extended); // rich text runs and phonetic data: not values
  }
  return out;
}

/** An RK number ([MS-XLS] 2.5.217): a 30-bit integer or a double's high 30 bits, maybe to divide by 100. */
function rkNumber(rk: number): number {
  let n: number;
  if (rk & 0x02) n = rk >> 2;
  else {
    const b = Buffer.alloc(8);
    b.writeUInt32LE((rk & 0xfffffffc) >>> 0, 4);
    n = b.readDoubleLE(0);
  }
  return rk & 0x01 ? n / 100 : n;
}

/**
 * Whether a number format shows a date or time (POI's DateUtil.isADateFormat): Excel's built-in
 * date formats (14-22, 45-47), or a format that, without its quoted text, escapes and [colour]
 * or [$-locale] parts, is made of date and time letters (an AM/PM, elapsed [h] or a fraction of
 * seconds may follow).
 */
function isDateFormat(id: number, format: string | undefined): boolean {
  if ((id >= 14 && id <= 22) || (id >= 45 && id <= 47)) return true;
  if (format === undefined) return false;
  const bare = format
    .split(';')[0]
    .replace(/"[^"]*"|\\.|_.|\*./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .replace(/\[([hms]+)\]/gi, '$1')
    .replace(/AM\/PM|A\/P/gi, '');
  return /[ymdhs]/i.test(bare) && /^[ymdhse\-/,.: T年月日]+0*$/i.test(bare);
}

/** A date cell's value as POI's getLocalDateTimeCellValue gives it (to the millisecond), as a UTC Date. */
function excelDate(serial: number, date1904: boolean): Date {
  const days = Math.floor(serial);
  const ms = Math.floor((serial - days) * 86_400_000 + 0.5);
  // 1900 dates: day 1 is 1900-01-01 and Excel counts a 1900-02-29 (day 60) that did not exist
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 61 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  return new Date(epoch + days * 86_400_000 + ms);
}

/**
 * The rows of one sheet of an .xls file (the first without `sheetName`), in row order: each the
 * values of its cells by column. Only BIFF8 (Excel 97 and later) workbooks; older ones, and
 * encrypted ones, are refused with the reason, as POI refuses them.
 */
export function xlsRows(file: Buffer, sheetName: string | undefined, where: string): unknown[][] {
  const streams = compoundStreams(file, where);
  // POI's names of the workbook stream ("Book" is Excel 5.0/95's: its BOF says so below)
  const book = streams.get('workbook') ?? streams.get('book');
  if (!book) throw new Error(`${where} has no Excel workbook stream (an OLE file of another kind)`);
  const records = [...biffRecords(book, 0, where)];
  const bof = records[0];
  if (bof?.type !== R.BOF || bof.data.readUInt16LE(0) !== 0x0600)
    throw new Error(`${where}: the workbook is not BIFF8 (Excel 97-2003); older .xls formats (Excel 5.0/95 and before) are not read`);
  let date1904 = false;
  const formats = new Map<number, string>();
  const xfFormats: number[] = [];
  const sheets: { name: string; at: number }[] = [];
  let strings: string[] = [];
  for (let i = 1; i < records.length && records[i].type !== R.EOF; i++) {
    const { type, data } = records[i];
    if (type === R.FILEPASS) throw new Error(`${where} is an encrypted .xls workbook, which is not read`);
    else if (type === R.DATEMODE) date1904 = data.readUInt16LE(0) === 1;
    else if (type === R.FORMAT) formats.set(data.readUInt16LE(0), unicodeString(data, 2, 2));
    else if (type === R.XF) xfFormats.push(data.readUInt16LE(2));
    else if (type === R.BOUNDSHEET) sheets.push({ at: data.readUInt32LE(0), name: unicodeString(data, 6, 1) });
    else if (type === R.SST) {
      const parts = [data];
      while (records[i + 1]?.type === R.CONTINUE) parts.push(records[++i].data);
      strings = sharedStrings(parts, where);
    }
  }
  const sheet = sheetName === undefined ? sheets[0] : sheets.find((s) => s.name === sheetName);
  if (!sheet) {
    if (sheetName === undefined) throw new Error(`${where}: the .xls workbook has no sheet`);
    throw new Error(`${where} has no sheet named '${sheetName}' (sheets: ${sheets.map((s) => s.name).join(', ')})`);
  }
  const dateFormatted = xfFormats.map((id) => isDateFormat(id, formats.get(id)));
  const number = (v: number, xf: number): number | Date => (dateFormatted[xf] && v >= 0 ? excelDate(v, date1904) : v);
  const rows = new Map<number, unknown[]>();
  const set = (data: Buffer, value: unknown, col = data.readUInt16LE(2)): void => {
    const r = data.readUInt16LE(0);
    let row = rows.get(r);
    if (!row) rows.set(r, (row = []));
    row[col] = value;
  };
  let depth = 0; // a sheet's embedded charts are substreams of their own, BOF to EOF
  let formulaString: Buffer | undefined; // a FORMULA whose string result is in the STRING record after it
  for (const { type, data } of biffRecords(book, sheet.at, where)) {
    if (type === R.BOF) depth++;
    else if (type === R.EOF && --depth === 0) break;
    if (depth !== 1) continue;
    switch (type) {
      case R.STRING:
        if (formulaString) set(formulaString, unicodeString(data, 0, 2));
        formulaString = undefined;
        break;
      case R.LABELSST:
        set(data, strings[data.readUInt32LE(6)]);
        break;
      case R.LABEL:
      case R.RSTRING:
        set(data, unicodeString(data, 6, 2));
        break;
      case R.NUMBER:
        set(data, number(data.readDoubleLE(6), data.readUInt16LE(4)));
        break;
      case R.RK:
        set(data, number(rkNumber(data.readUInt32LE(6)), data.readUInt16LE(4)));
        break;
      case R.MULRK:
        for (let at = 4, col = data.readUInt16LE(2); at + 6 <= data.length - 2; at += 6, col++)
          set(data, number(rkNumber(data.readUInt32LE(at + 2)), data.readUInt16LE(at)), col);
        break;
      case R.BOOLERR:
        set(data, data[7] === 0 ? data[6] === 1 : null);
        break;
      case R.FORMULA:
        formulaString = undefined;
        if (data.readUInt16LE(12) !== 0xffff) set(data, number(data.readDoubleLE(6), data.readUInt16LE(4)));
        else if (data[6] === 0)
          formulaString = data; // its STRING record follows (after a shared formula's, if any)
        else set(data, data[6] === 1 ? data[8] === 1 : data[6] === 3 ? '' : null);
        break;
    }
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, cells]) => cells);
}
