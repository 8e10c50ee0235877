import { ErrorCode, ValueConversionError } from '@tideway/common';

/**
 * Whether `err`, thrown while one row's values were converted for a file, is that row's own: a
 * value the column's type cannot hold (the conversions throw ValueConversionError, TypeError,
 * RangeError, or SyntaxError from BigInt). Writing the file's bytes (disk, S3) happens elsewhere.
 */
export function isValueError(err: unknown): err is Error {
  return err instanceof ValueConversionError || err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError;
}

/** A value error of column `name` as one sentence naming it; any other error as it is. */
export function columnError(name: string, err: unknown): unknown {
  if (!isValueError(err)) return err;
  return new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Column '${name}': ${err.message}`, { cause: err });
}

/** A batch of rows' fields, as encoders that take batches (addRows) take them. */
export type Rows = readonly (readonly unknown[])[];

/**
 * Encodes the rows of one file being written. Synchronous: the sink writer takes the encoded
 * bytes after each batch and streams them to the file, so a file never sits whole in memory.
 */
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
  /**
   * Row-level error handling (the sink's handleRowErrors): throws what `add` would throw for this
   * row because of its values (a value its column's type cannot hold in this format, naming the
   * column), and changes nothing. The file sink writer calls it on an encoder of its own before
   * adding the row to its file, so a bad row leaves no part of itself in the file. An encoder
   * without it has no row-level errors: whatever its `add` throws fails the task.
   */
  probe?(fields: readonly unknown[]): void;
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

  /** The row's text as `add` appends it: a bad value throws before anything is kept. */
  protected abstract render(fields: readonly unknown[]): string;

  probe(fields: readonly unknown[]): void {
    this.render(fields);
  }

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

  protected render(fields: readonly unknown[]): string {
    return this.line(fields);
  }

  add(fields: readonly unknown[]): void {
    const line = this.line(fields); // first: a value that throws leaves no delimiter behind
    if (this.wroteRows) this.pending += this.rowDelimiter;
    this.pending += line;
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

  probe(fields: readonly unknown[]): void {
    this.inner.probe?.(fields);
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
