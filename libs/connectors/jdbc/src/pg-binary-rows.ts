import { typedValueBytes, type EncodedRow, RowKind } from '@tideway/api';
import type { ResultColumn } from './jdbc-connection.js';
import { binaryFieldReader, decodeBinaryTuple, type BinaryFieldReader } from './pg-binary-decode.js';
import type { CopyOutParser } from './pg-copy-reader.js';

/**
 * PostgreSQL -> PostgreSQL without decoding (docs/decisions/0104): the source reads
 * `COPY (query) TO STDOUT (FORMAT binary)` and hands each tuple on as it came, and the sink
 * streams the tuples into `COPY target FROM STDIN (FORMAT binary)`. Neither side converts a
 * value, and both servers use their types' send and receive functions instead of text output
 * and parsing. Offered by the Jdbc sink (RowEncodingOffer) and taken by the Jdbc source when
 * the runtime sees nothing between them.
 */
export const PG_COPY_BINARY = 'postgresql-copy-binary';

/** Marks a column whose metric size is its encoded length (strings, bytes). */
const ENCODED_LENGTH = -1;

/**
 * The fields of one source table's binary tuples: their types (for the sink to check against
 * its target's), how to decode each on demand, and what each counts in the byte metrics.
 */
export class PgBinaryLayout {
  /** Per column: its metric size when not null, or ENCODED_LENGTH. */
  readonly sizes: Int32Array;

  private constructor(
    /** Each field's PostgreSQL type oid, for the sink to check against its target's. */
    readonly typeOids: readonly number[],
    private readonly readers: readonly BinaryFieldReader[],
    sizes: readonly number[],
  ) {
    this.sizes = Int32Array.from(sizes);
  }

  /**
   * The layout of a query's columns, or undefined when a column's type has no exact binary
   * decoder here (pg-binary-decode.ts): such a table is read as text, as before.
   */
  static of(columns: readonly ResultColumn[]): PgBinaryLayout | undefined {
    const readers: BinaryFieldReader[] = [];
    const sizes: number[] = [];
    for (const c of columns) {
      if (c.typeOid === undefined) return undefined;
      const reader = binaryFieldReader(c.typeOid);
      if (!reader) return undefined;
      readers.push(reader);
      sizes.push(c.type.kind === 'string' || c.type.kind === 'bytes' ? ENCODED_LENGTH : typedValueBytes(c.type, 0));
    }
    return new PgBinaryLayout(
      columns.map((c) => c.typeOid!),
      readers,
      sizes,
    );
  }

  /** The values of the tuple at `start` (its field count first). */
  decode(buf: Buffer, start: number): unknown[] {
    return decodeBinaryTuple(this.readers, buf, start);
  }

  /** The value of field `index` of the tuple at `start`. */
  field(buf: Buffer, start: number, index: number): unknown {
    let p = start + 2;
    for (let i = 0; i < index; i++) {
      const len = int32At(buf, p);
      p += 4 + Math.max(len, 0);
    }
    const len = int32At(buf, p);
    return len < 0 ? null : this.readers[index](buf, p + 4, len);
  }
}

/**
 * One source row as its binary COPY tuple: buf[start, end). Its values are decoded only when
 * `fields` is read (by anything other than the pass-through sink).
 */
export class PgBinaryRow implements EncodedRow {
  declare readonly kind: RowKind;
  declare readonly encoding: string;
  private values: unknown[] | undefined;

  constructor(
    readonly tableId: string,
    readonly layout: PgBinaryLayout,
    readonly buf: Buffer,
    readonly start: number,
    readonly end: number,
    readonly byteSize: number,
  ) {}

  get fields(): unknown[] {
    return (this.values ??= this.layout.decode(this.buf, this.start));
  }

  set fields(values: unknown[]) {
    this.values = values;
  }

  /** One value, decoded alone (the source's last key of a poll). */
  field(index: number): unknown {
    return this.values ? this.values[index] : this.layout.field(this.buf, this.start, index);
  }
}
// Shared by every row (one object per row is what the pass-through allocates; these need no slot in it).
Object.defineProperty(PgBinaryRow.prototype, 'kind', { value: RowKind.INSERT, writable: true });
Object.defineProperty(PgBinaryRow.prototype, 'encoding', { value: PG_COPY_BINARY });

/** The binary format's signature (https://www.postgresql.org/docs/current/sql-copy.html, "Binary Format"). */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags, header extension length. */
const HEADER_BYTES = 19;

/** Reads a big-endian int32 without Buffer#readInt32BE's argument checks (the caller checked the bounds). */
function int32At(b: Buffer, p: number): number {
  return (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
}

/**
 * Cuts `COPY ... TO STDOUT (FORMAT binary)` output into PgBinaryRows: finds each tuple's end by
 * its fields' lengths and sums its metric size on the way, decoding nothing.
 */
export class BinaryCopyParser implements CopyOutParser<PgBinaryRow> {
  readonly options = ' (FORMAT binary)';
  readonly keepsBuffer = true;
  private headerRead = false;
  private ended = false;

  constructor(
    private readonly tableId: string,
    private readonly layout: PgBinaryLayout,
  ) {}

  parse(buf: Buffer, start: number, len: number, out: PgBinaryRow[]): number {
    let pos = start;
    if (!this.headerRead) {
      if (start !== 0) throw new Error('binary COPY output: the header must be parsed from the start of a buffer');
      if (len < HEADER_BYTES) return 0;
      if (buf.compare(SIGNATURE, 0, SIGNATURE.length, 0, SIGNATURE.length) !== 0)
        throw new Error('binary COPY output does not start with its signature');
      if ((int32At(buf, 11) & 0x10000) !== 0) throw new Error('binary COPY output carries row OIDs, which were not asked for');
      const extension = int32At(buf, 15);
      if (len < HEADER_BYTES + extension) return 0;
      pos = HEADER_BYTES + extension;
      this.headerRead = true;
    }
    const layout = this.layout;
    const sizes = layout.sizes;
    const n = sizes.length;
    const tableId = this.tableId;
    while (pos + 2 <= len) {
      const count = (buf[pos] << 8) | buf[pos + 1];
      if (count === 0xffff) {
        // The trailer: a field count of -1.
        this.ended = true;
        pos += 2;
        break;
      }
      if (this.ended || count !== n) throw new Error(`binary COPY output has a row of ${count} fields where ${n} columns were expected`);
      let p = pos + 2;
      let size = 0;
      let i = 0;
      for (; i < n; i++) {
        if (p + 4 > len) break;
        const flen = int32At(buf, p);
        p += 4;
        if (flen < 0) continue;
        if (p + flen > len) break;
        const s = sizes[i];
        size += s === ENCODED_LENGTH ? flen : s;
        p += flen;
      }
      if (i < n) break;
      out.push(new PgBinaryRow(tableId, layout, buf, pos, p, size));
      pos = p;
    }
    return pos;
  }

  completes(head: Buffer, headLen: number, next: Buffer, nextLen: number): number {
    // Before the header the row boundaries are not known yet: the stream copies.
    if (!this.headerRead) return -1;
    if (headLen === 0) return 0;
    const total = headLen + nextLen;
    const at = (i: number): number => (i < headLen ? head[i] : next[i - headLen]);
    if (total < 2) return -1;
    const count = (at(0) << 8) | at(1);
    if (count === 0xffff) return 2 - headLen;
    let p = 2;
    for (let i = 0; i < count; i++) {
      if (p + 4 > total) return -1;
      const flen = (at(p) << 24) | (at(p + 1) << 16) | (at(p + 2) << 8) | at(p + 3);
      p += 4;
      if (flen > 0) p += flen;
      if (p > total) return -1;
    }
    return p - headLen;
  }

  end(left: number): void {
    if (left > 0 || (this.headerRead && !this.ended)) throw new Error('binary COPY output ended in the middle of a row');
  }
}
