import type { Column } from '@tideway/api';
import type { ColumnChunk, CompressionCodec, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { columnError, type FileEncoder, type Rows } from './file-encoder.js';
import type { ColumnBuilder } from './parquet-column-builder.js';
import { columnBuilderOf } from './parquet-column-builders.js';
import { NestedColumn } from './parquet-nested-shredder.js';
import { isPageCodec, type PageCodec } from './page-codecs.js';
import { buffersOf, type EncodedRowGroup, encodeRowGroup, type RawColumn } from './parquet-row-group.js';
import { collectRowGroup, type RowGroupTicket, startRowGroupThread, submitRowGroup } from './row-group-thread.js';
import { parquetSchemaOf } from './parquet-schema.js';

const MAGIC = 0x31524150; // 'PAR1'

/** The bytes a writer holds, handed over and dropped; its `offset` keeps counting, so the footer's offsets stay right. */
export function takeWritten(bytes: ByteWriter): Uint8Array | undefined {
  if (bytes.index === 0) return undefined;
  const out = bytes.getBytes().slice();
  bytes.index = 0;
  return out;
}

/** `parts` as one array (the only part itself, with no copy), and the list emptied; undefined when empty. */
function joined(parts: Uint8Array[]): Uint8Array | undefined {
  if (parts.length <= 1) return parts.pop();
  const out = Buffer.concat(parts);
  parts.length = 0;
  return out;
}

/** Rows of a batch taken at a time by addRows: the row group's size is looked at between slices. */
const SLICE = 1024;

/** Row groups handed to the row-group thread and not yet written; past this the writer waits for the oldest. */
const IN_FLIGHT = 2;

/** A column's values' way in: a flat column's builder, or a nested column's shredding. */
type ColumnWriter = Pick<ColumnBuilder, 'add' | 'addColumn'>;

/** A row group waiting to be written: sent to the row-group thread, or encoded here. */
interface PendingGroup {
  readonly rows: number;
  readonly ticket?: RowGroupTicket;
  readonly encoded?: EncodedRowGroup;
}

/**
 * Tideway's own Parquet writer: values go into column buffers in PLAIN layout as rows arrive
 * (parquet-column-builders.ts; a row, array or map column is first shredded into its leaves'
 * levels and values, parquet-nested-shredder.ts, each leaf a column of its own) and, once the row
 * group's buffered data reaches `rowGroupBytes`, the buffers are handed over and encoded
 * (parquet-row-group.ts: dictionaries, pages, statistics, compression) on the row-group thread
 * (row-group-thread.ts) while the next row group fills, or here when there is no thread (or it is
 * still starting). The footer is hyparquet-writer's Thrift writer. `take` hands over the bytes of
 * the row groups written so far.
 */
export class ParquetFileWriter implements FileEncoder {
  /** The file's own bytes (magic, footer); its `offset` counts every byte of the file, row groups' too. */
  private readonly out = new ByteWriter(1 << 16);
  /** Bytes of the file ready to be taken, in order: row groups' bytes as the encoding gave them, not copied. */
  private readonly ready: Uint8Array[] = [];
  private readonly schema: SchemaElement[];
  /** The columns' leaves: a flat column's builder, or those of a nested column's leaves. */
  private readonly builders: ColumnBuilder[];
  /** What each column's values go to. */
  private readonly writers: ColumnWriter[];
  private readonly rowGroups: RowGroup[] = [];
  private readonly pending: PendingGroup[] = [];
  /**
   * Row groups' columns the thread sent back, whose buffers the builders take for the next row
   * groups: as many sets go round as row groups are ever in flight, plus the one being filled.
   */
  private readonly spares: (readonly RawColumn[])[] = [];
  private rows = 0;
  private totalRows = 0n;
  private nextCheck = 1;
  /** A writer without a thread whose builders take each probed row and drop it (`probe`). */
  private prober: ParquetFileWriter | undefined;
  /** The builders of each column: its own, or its nested leaves. */
  private readonly columnBuilders: ColumnBuilder[][];

  /**
   * `thread`: encode row groups on the row-group thread when it can start (tests compare both
   * ways). `fieldIds`: a field id for each schema element, root first as parquetSchemaOf lists
   * them (undefined where none): the ids Iceberg readers map columns by.
   */
  constructor(
    private readonly columns: readonly Column[],
    private readonly codec: CompressionCodec,
    private readonly rowGroupBytes: number,
    private readonly thread = true,
    fieldIds?: readonly (number | undefined)[],
  ) {
    if (codec !== 'UNCOMPRESSED' && !isPageCodec(codec)) {
      throw new Error(`The Parquet writer does not compress with ${codec}.`); // refused by the sink options already
    }
    const schema = parquetSchemaOf(columns);
    if (fieldIds && fieldIds.length !== schema.length) {
      throw new Error(`${fieldIds.length} field ids were given for a Parquet schema of ${schema.length} elements.`);
    }
    this.schema = fieldIds ? schema.map((e, i) => (fieldIds[i] === undefined ? e : { ...e, field_id: fieldIds[i] })) : schema;
    const builders: ColumnBuilder[] = [];
    this.columnBuilders = [];
    let at = 1; // each column's first schema element
    this.writers = columns.map((c): ColumnWriter => {
      const flat = columnBuilderOf(c.type, this.schema[at]);
      if (flat) {
        builders.push(flat);
        this.columnBuilders.push([flat]);
        at++;
        return flat;
      }
      const nested = new NestedColumn(c.type, this.schema, at);
      builders.push(...nested.leaves);
      this.columnBuilders.push([...nested.leaves]);
      at += nested.span;
      return nested;
    });
    this.builders = builders;
    this.out.appendUint32(MAGIC);
    if (thread) startRowGroupThread(); // up by the first row group, or that one is encoded here
  }

  add(fields: readonly unknown[]): void {
    const w = this.writers;
    for (let i = 0; i < w.length; i++) w[i].add(fields[i]);
    this.rows++;
    if (this.rows >= this.nextCheck) this.checkSize();
  }

  /**
   * Converts the row's values as `add` would, on builders of its own that drop them after, so a
   * value no column of this file can hold throws naming its column and nothing is kept
   * (FileEncoder.probe). A nested leaf's held values are stored at once, as their conversion
   * would otherwise come at a later row.
   */
  probe(fields: readonly unknown[]): void {
    this.prober ??= new ParquetFileWriter(this.columns, 'UNCOMPRESSED', Number.POSITIVE_INFINITY, false);
    const p = this.prober;
    for (let i = 0; i < p.writers.length; i++) {
      try {
        p.writers[i].add(fields[i]);
        for (const b of p.columnBuilders[i]) b.storeHeld();
      } catch (err) {
        throw columnError(this.columns[i].name, err);
      } finally {
        for (const b of p.columnBuilders[i]) b.discard();
      }
    }
  }

  addRows(rows: Rows, count: number, columns?: readonly number[]): void {
    const w = this.writers;
    for (let r0 = 0; r0 < count; r0 += SLICE) {
      const r1 = Math.min(count, r0 + SLICE);
      for (let i = 0; i < w.length; i++) w[i].addColumn(rows, r0, r1, columns === undefined ? i : columns[i]);
      this.rows += r1 - r0;
      if (this.rows >= this.nextCheck) this.checkSize();
    }
  }

  /** Ends the row group once its buffered bytes reach the limit, else sets when to look again. */
  private checkSize(): void {
    let bytes = 0;
    for (const b of this.builders) bytes += b.bytes() + b.levelBytes();
    if (bytes >= this.rowGroupBytes) return this.endRowGroup();
    // look again about halfway to the limit at the rate seen so far
    this.nextCheck = this.rows + Math.max(1, Math.floor(((this.rowGroupBytes - bytes) * this.rows) / bytes / 2));
  }

  /** Sends the buffered rows to be encoded (or encodes them here) and empties the buffers. */
  private endRowGroup(): void {
    if (this.rows === 0) return;
    const columns = this.builders.map((b) => b.rawColumn());
    const codec = this.codec as 'UNCOMPRESSED' | PageCodec;
    let ticket: RowGroupTicket | undefined;
    if (this.thread) {
      // the builders' buffers go with the columns: they take those of a row group sent back
      // first, or new ones as large (once handed over, the buffers are empty and their size lost)
      const spare = this.spares.pop();
      this.builders.forEach((b, i) => b.swap(spare?.[i]));
      ticket = submitRowGroup(codec, columns, buffersOf(columns));
    }
    this.pending.push({ rows: this.rows, ticket, encoded: ticket ? undefined : encodeRowGroup(codec, columns) });
    for (const b of this.builders) b.reset();
    this.totalRows += BigInt(this.rows);
    this.rows = 0;
    this.nextCheck = 1;
    this.writeDone(IN_FLIGHT);
  }

  /** Writes the pending row groups in order: those encoded already, and waits for the oldest while more than `keep` are left. */
  private writeDone(keep: number): void {
    while (this.pending.length > 0) {
      const group = this.pending[0];
      let encoded = group.encoded;
      if (encoded === undefined) {
        const back = collectRowGroup(group.ticket!, this.pending.length > keep);
        if (back === undefined) return;
        encoded = back.group;
        this.spares.push(back.columns);
      }
      this.pending.shift();
      this.writeGroup(group.rows, encoded);
    }
  }

  private writeGroup(rows: number, group: EncodedRowGroup): void {
    this.moveWritten();
    const start = this.out.offset;
    this.ready.push(group.bytes);
    this.out.offset += group.bytes.length;
    const columns: ColumnChunk[] = [];
    let uncompressed = 0n;
    for (const chunk of group.chunks) {
      uncompressed += BigInt(chunk.uncompressed);
      columns.push({
        file_offset: BigInt(start + chunk.offset),
        meta_data: {
          ...chunk.meta,
          codec: this.codec,
          total_uncompressed_size: BigInt(chunk.uncompressed),
          total_compressed_size: BigInt(chunk.size),
          data_page_offset: BigInt(start + chunk.dataOffset),
          dictionary_page_offset: chunk.dictionary ? BigInt(start + chunk.offset) : undefined,
        },
      });
    }
    this.rowGroups.push({
      columns,
      total_byte_size: uncompressed,
      num_rows: BigInt(rows),
      file_offset: BigInt(start),
      total_compressed_size: BigInt(this.out.offset - start),
    });
  }

  /** Moves what `out` holds to the bytes ready to be taken. */
  private moveWritten(): void {
    const written = takeWritten(this.out);
    if (written) this.ready.push(written);
  }

  /** The row groups written so far: their rows, and each column chunk's values, nulls and min/max statistics. */
  get writtenRowGroups(): readonly RowGroup[] {
    return this.rowGroups;
  }

  take(): Uint8Array | undefined {
    this.writeDone(Number.POSITIVE_INFINITY);
    this.moveWritten();
    return joined(this.ready);
  }

  finish(): Uint8Array | undefined {
    this.endRowGroup();
    this.writeDone(0);
    writeMetadata(this.out, {
      version: 1,
      created_by: 'Tideway',
      schema: this.schema,
      num_rows: this.totalRows,
      row_groups: this.rowGroups,
      metadata_length: 0,
    });
    this.out.appendUint32(MAGIC);
    this.moveWritten();
    return joined(this.ready);
  }
}
