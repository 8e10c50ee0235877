import type { DataType, Row } from '@tideway/api';
import { CopyBinaryEncoder, PgOid, binaryFieldWriter } from './pg-copy-binary.js';
import { PgBinaryLayout, PgBinaryRow } from './pg-binary-rows.js';
import type { PgConnection } from './pg-connection.js';
import { pgTextEncoder } from './pg-types.js';
import type { SinkTarget } from './sink-target.js';
import type { ValueEncoder } from './value-codec.js';

/** One batch as COPY FROM STDIN data. */
export interface CopyData {
  readonly data: Buffer;
  readonly format: 'text' | 'binary';
}

/** Types whose binary form is the text's UTF-8 bytes, alike in all three. */
const TEXT_OIDS = new Set<number>([PgOid.TEXT, PgOid.VARCHAR, PgOid.BPCHAR]);

/** The rows' tuples, one after another: the bytes of rows adjacent in one source buffer copied in one piece. */
function copyTuples(rows: readonly PgBinaryRow[]): Buffer {
  let total = 0;
  for (let i = 0; i < rows.length; i++) total += rows[i].end - rows[i].start;
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  let i = 0;
  while (i < rows.length) {
    const { buf, start } = rows[i];
    let end = rows[i].end;
    i++;
    while (i < rows.length && rows[i].buf === buf && rows[i].start === end) end = rows[i++].end;
    pos += buf.copy(out, pos, start, end);
  }
  return out;
}

const COPY_SPECIAL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escapeCopyChar = (c: string) => COPY_ESCAPES[c];

/** A value in COPY's text format (tab-separated, backslash escapes). */
function copyField(text: string): string {
  COPY_SPECIAL.lastIndex = 0;
  return COPY_SPECIAL.test(text) ? text.replace(COPY_SPECIAL, escapeCopyChar) : text;
}

/** Types whose text (numbers, booleans, ISO dates and times) never holds a tab, newline or backslash. */
const PLAIN_TEXT_KINDS = new Set<DataType['kind']>([
  'boolean',
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'float',
  'double',
  'decimal',
  'date',
  'time',
  'timestamp',
  'timestamp_tz',
]);

/**
 * Encodes batches of one input table for `COPY target FROM STDIN`: in the binary format when
 * the target's column types allow it (PostgreSQL's COPY-in backend, the bottleneck of a sync,
 * then spends about a third less CPU per row), in the text format otherwise, and for a batch
 * holding a value that has no exact binary form here. Encoding needs no connection once the
 * target's column types are known, so a batch is encoded while the previous one is written.
 */
export class CopyEncoder {
  private readonly textEncoders: ValueEncoder[];
  /** Per column: whether its text can hold characters COPY escapes (text, JSON, bytes' \\x, arrays). */
  private readonly copyEscapes: boolean[];
  /** undefined until the target's column types are read; null when some column has no binary writer. */
  private binary: CopyBinaryEncoder | null | undefined;
  /** The target's column type oids, once read. */
  private oids: readonly (number | undefined)[] = [];
  /** The source layout whose binary tuples go into the COPY as they are (accept()). */
  private passThrough: PgBinaryLayout | undefined;

  constructor(private readonly target: SinkTarget) {
    this.textEncoders = target.types.map((t) => pgTextEncoder(t));
    this.copyEscapes = target.types.map((t) => !PLAIN_TEXT_KINDS.has(t.kind));
  }

  /** Whether encode() can run: the target's column types have been read. */
  get ready(): boolean {
    return this.binary !== undefined;
  }

  /** Reads the target's column types, once, to choose the format. */
  async prepare(conn: PgConnection, table: string): Promise<void> {
    if (this.binary !== undefined) return;
    const oids = await conn.columnTypeOids(table, this.target.columns);
    this.oids = oids;
    const kinds = this.target.types.map((t, i) => (oids[i] === undefined ? undefined : binaryFieldWriter(t, oids[i])));
    this.binary = kinds.every((k) => k !== undefined) ? new CopyBinaryEncoder(kinds) : null;
  }

  /**
   * Whether the binary tuples of `layout` can go into the target's COPY as they are: one field
   * per target column, in order, each of the column's type or, among text, varchar and bpchar,
   * of another of the three (their binary form is the same UTF-8 text, and the receiving
   * column applies its length as for any input). Call after prepare().
   */
  accept(layout: PgBinaryLayout): boolean {
    const oids = this.oids;
    if (layout.typeOids.length !== oids.length) return false;
    for (let i = 0; i < oids.length; i++) {
      const target = oids[i];
      const source = layout.typeOids[i];
      if (target === undefined) return false;
      if (target !== source && !(TEXT_OIDS.has(target) && TEXT_OIDS.has(source))) return false;
    }
    this.passThrough = layout;
    return true;
  }

  encode(rows: readonly Row[]): CopyData {
    if (this.passThrough && rows.length > 0 && this.allPassThrough(rows))
      return { data: copyTuples(rows as readonly PgBinaryRow[]), format: 'binary' };
    const data = this.binary?.encode(rows);
    if (data) return { data, format: 'binary' };
    return { data: Buffer.from(this.text(rows), 'utf8'), format: 'text' };
  }

  /** Whether every row is a binary tuple of the accepted layout (any other row is encoded from its values). */
  private allPassThrough(rows: readonly Row[]): boolean {
    const layout = this.passThrough;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!(r instanceof PgBinaryRow) || r.layout !== layout) return false;
    }
    return true;
  }

  /** Rows in COPY's text format. */
  private text(rows: readonly Row[]): string {
    // One flat string per batch, joined from arrays: appending to a string builds a rope
    // that the socket write must flatten again, and the garbage dominated the CPU profile.
    const n = this.textEncoders.length;
    const lines = new Array<string>(rows.length + 1);
    const cells = new Array<string>(n);
    for (let r = 0; r < rows.length; r++) {
      const fields = rows[r].fields;
      for (let i = 0; i < n; i++) {
        const v = fields[i];
        if (v === null || v === undefined) cells[i] = '\\N';
        else {
          const text = String(this.textEncoders[i](v));
          cells[i] = this.copyEscapes[i] ? copyField(text) : text;
        }
      }
      lines[r] = cells.join('\t');
    }
    lines[rows.length] = '';
    return lines.join('\n');
  }
}
