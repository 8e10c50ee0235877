import type { IcebergFileIO } from './file-io.js';

/**
 * The one way the Iceberg source reads a table's files (metadata JSON, manifest lists,
 * manifests, data and delete files): all of a file, or bytes [start, end) of it, through the
 * catalog's FileIO (a local folder or S3).
 */
export function readLocation(
  io: IcebergFileIO,
  location: string,
  range?: { readonly start: number; readonly end: number },
): Promise<Uint8Array> {
  return range ? io.readRange(location, range.start, range.end) : io.read(location);
}
