/**
 * Encodes the rows of one file being written. Synchronous: the sink writer takes the encoded
 * bytes after each batch and streams them to the file, so a file never sits whole in memory.
 */
/** A batch of rows' fields, as encoders that take batches (addRows) take them. */
export type Rows = readonly (readonly unknown[])[];

export interface FileEncoder {
  /** Adds a row (its written columns, in order). */
  add(fields: readonly unknown[]): void;
  /**
   * Adds rows[0, count) as the sink received them: column i of the file is fields[columns[i]] of
   * each row (fields[i] without `columns`). Encoders that build columns (Parquet's flat writer)
   * take a batch faster this way; the others have only `add`. `count` lets the caller reuse one
   * array, longer than the run, from batch to batch.
   */
  addRows?(rows: Rows, count: number, columns?: readonly number[]): void;
  /** The bytes encoded since the last take, if any. */
  take(): Uint8Array | undefined;
  /** Ends the file: its last bytes (e.g. Parquet's last row group and footer). */
  finish(): Uint8Array | undefined | Promise<Uint8Array | undefined>;
}

/** An encoder of text formats: rows add text, `take` turns it into bytes in the file's charset. */
export abstract class TextFileEncoder implements FileEncoder {
  protected pending = '';

  constructor(private readonly encode: (text: string) => Uint8Array) {}

  abstract add(fields: readonly unknown[]): void;

  take(): Uint8Array | undefined {
    if (this.pending === '') return undefined;
    const out = this.encode(this.pending);
    this.pending = '';
    return out;
  }

  finish(): Uint8Array | undefined {
    return this.take();
  }
}

/** Text, csv and json: one line per row, an optional header line, in a charset. */
export class LineFileEncoder extends TextFileEncoder {
  private wroteRows = false;

  constructor(
    private readonly line: (fields: readonly unknown[]) => string,
    private readonly rowDelimiter: string,
    encode: (text: string) => Uint8Array,
    header?: string,
  ) {
    super(encode);
    if (header !== undefined) this.pending = header + rowDelimiter;
  }

  add(fields: readonly unknown[]): void {
    if (this.wroteRows) this.pending += this.rowDelimiter;
    this.pending += this.line(fields);
    this.wroteRows = true;
  }
}

/** A file encoder whose bytes are compressed as they are taken (compress_codec lzo: the lzop format). */
export class CompressedFileEncoder implements FileEncoder {
  constructor(
    private readonly inner: FileEncoder,
    private readonly stream: { write(data: Uint8Array): Uint8Array; end(): Uint8Array },
  ) {}

  add(fields: readonly unknown[]): void {
    this.inner.add(fields);
  }

  take(): Uint8Array | undefined {
    const raw = this.inner.take();
    const out = raw ? this.stream.write(raw) : undefined;
    return out && out.length > 0 ? out : undefined;
  }

  async finish(): Promise<Uint8Array | undefined> {
    const raw = await this.inner.finish();
    const head = raw ? this.stream.write(raw) : new Uint8Array(0);
    const tail = this.stream.end();
    return Buffer.concat([head, tail]);
  }
}
