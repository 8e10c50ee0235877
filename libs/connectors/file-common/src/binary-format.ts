import { formatType, Types, type CatalogTable, type Column, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import type { FileEncoder } from './file-encoder.js';
import type { TableLayout } from './table-layout.js';

/**
 * The binary format (SeaTunnel's BinaryReadStrategy / BinaryWriteStrategy): a source reads whole
 * files as rows of at most 1024 bytes `(data, relativePath, partIndex)`; a sink writes each
 * relativePath's parts, in order, into that file under `path`. A LocalFile binary -> binary job
 * copies a folder tree byte for byte.
 */
export const BINARY_COLUMNS: readonly Column[] = [
  { name: 'data', type: Types.BYTES, nullable: true },
  { name: 'relativePath', type: Types.STRING, nullable: true },
  { name: 'partIndex', type: Types.BIGINT, nullable: true },
];

/** Bytes per row, as SeaTunnel reads them. */
export const BINARY_PART_BYTES = 1024;

/** The relativePath of a file under the source's `path` (its name when `path` is the file itself). */
export function relativePathOf(basePath: string, file: string): string {
  const base = basePath.replace(/\/+$/, '');
  if (file === base) return file.slice(file.lastIndexOf('/') + 1);
  return file.startsWith(`${base}/`) ? file.slice(base.length + 1) : file.slice(file.lastIndexOf('/') + 1);
}

/** The rows of one file from part `offset` on, in batches: exact 1024-byte parts, the last one shorter. */
export async function* binaryParts(
  chunks: AsyncIterable<Uint8Array>,
  relativePath: string,
  offset: number,
  batchRows: number,
): AsyncGenerator<unknown[][]> {
  let carry = Buffer.alloc(0);
  let part = 0;
  let batch: unknown[][] = [];
  const emit = (data: Buffer): void => {
    if (part >= offset) batch.push([data, relativePath, BigInt(part)]);
    part++;
  };
  for await (const chunk of chunks) {
    carry = carry.length === 0 ? Buffer.from(chunk) : Buffer.concat([carry, chunk]);
    let at = 0;
    for (; carry.length - at >= BINARY_PART_BYTES; at += BINARY_PART_BYTES) emit(Buffer.from(carry.subarray(at, at + BINARY_PART_BYTES)));
    carry = carry.subarray(at);
    if (batch.length >= batchRows) {
      yield batch;
      batch = [];
    }
  }
  if (carry.length > 0) emit(Buffer.from(carry));
  if (batch.length > 0) yield batch;
}

/** One binary file being written: the parts of one relativePath, checked to come in order. */
class BinaryFileEncoder implements FileEncoder {
  private last = -1n;
  private pending: Uint8Array[] = [];

  constructor(private readonly plugin: string) {}

  add(fields: readonly unknown[]): void {
    const part = BigInt(fields[2] as bigint | number);
    if (part !== this.last + 1n) {
      throw new TidewayError(
        ErrorCode.VALUE_CONVERSION,
        `${this.plugin}: binary file ${String(fields[1])}: part ${part} came after part ${this.last} (parts must arrive in order, and a file must not span a checkpoint).`,
      );
    }
    this.last = part;
    this.pending.push(fields[0] as Uint8Array);
  }

  take(): Uint8Array | undefined {
    if (this.pending.length === 0) return undefined;
    const out = Buffer.concat(this.pending);
    this.pending = [];
    return out;
  }

  finish(): Uint8Array | undefined {
    return this.take();
  }
}

/** The layout of a binary sink: its input must be a binary source's rows, unchanged. */
export function binaryLayout(o: PluginOptions, table: CatalogTable, plugin: string, path: string): TableLayout {
  const shape = table.columns.map((c) => `${c.name} ${formatType(c.type)}`).join(', ');
  if (shape !== BINARY_COLUMNS.map((c) => `${c.name} ${formatType(c.type)}`).join(', ')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${plugin}: the binary format writes what a binary source reads (data bytes, relativePath string, partIndex bigint); table ${table.tableId} has ${shape}. Read the files with file_format_type = "binary" and do not change the schema in between.`,
      { place: o.place('file_format_type') },
    );
  }
  if (o.has('partition_by'))
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${plugin}: binary files keep their relativePath; partition_by does not apply.`, {
      place: o.place('partition_by'),
    });
  return {
    tableId: table.tableId,
    path,
    format: 'binary',
    suffix: '',
    pick: (fields) => fields as unknown[],
    newEncoder: () => new BinaryFileEncoder(plugin),
    fileNameOf: (fields) => {
      const rel = String(fields[1]);
      if (rel === '' || rel.startsWith('/') || rel.split('/').includes('..')) {
        throw new TidewayError(
          ErrorCode.VALUE_CONVERSION,
          `${plugin}: binary relativePath '${rel}' would leave ${path}; it must be a path below it.`,
        );
      }
      return rel;
    },
  };
}
