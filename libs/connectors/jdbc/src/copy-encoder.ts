import type { DataType, Row } from '@tideway/api';
import { CopyBinaryEncoder, binaryFieldWriter } from './pg-copy-binary.js';
import type { PgConnection } from './pg-connection.js';
import { pgTextEncoder } from './pg-types.js';
import type { SinkTarget } from './sink-target.js';
import type { ValueEncoder } from './value-codec.js';

/** One batch as COPY FROM STDIN data. */
export interface CopyData {
  readonly data: Buffer;
  readonly format: 'text' | 'binary';
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
    const kinds = this.target.types.map((t, i) => (oids[i] === undefined ? undefined : binaryFieldWriter(t, oids[i])));
    this.binary = kinds.every((k) => k !== undefined) ? new CopyBinaryEncoder(kinds) : null;
  }

  encode(rows: readonly Row[]): CopyData {
    const data = this.binary?.encode(rows);
    if (data) return { data, format: 'binary' };
    return { data: Buffer.from(this.text(rows), 'utf8'), format: 'text' };
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
