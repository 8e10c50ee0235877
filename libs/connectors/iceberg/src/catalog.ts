import { ConfigError, ErrorCode } from '@tideway/common';
import { type IcebergFileIO, localPathOf } from './file-io.js';
import { parseMetadataJson, stringifyMetadata, type TableMetadata } from './metadata.js';

/** A table identifier: namespace levels and the table's name. */
export interface TableIdent {
  readonly namespace: readonly string[];
  readonly name: string;
}

export const formatIdent = (t: TableIdent): string => [...t.namespace, t.name].join('.');

/** A table as its catalog has it now. */
export interface LoadedTable {
  readonly metadata: TableMetadata;
  readonly metadataLocation: string;
}

/** Another writer committed first: the commit must be redone on the table's new metadata. */
export class CommitConflict extends Error {
  override readonly name = 'CommitConflict';
}

/**
 * What the sink needs of an Iceberg catalog: load a table, create it, swap its metadata for the
 * next version only when nobody else did first (optimistic concurrency), drop it.
 */
export interface IcebergCatalog {
  /** The files of the catalog's tables: data, manifests, metadata. */
  readonly io: IcebergFileIO;
  /** Where new tables go (`<warehouse>/<namespace>/<table>` or the catalog's own layout). */
  defaultLocation(ident: TableIdent): string;
  load(ident: TableIdent): Promise<LoadedTable | undefined>;
  /** Creates the table with `metadata` (its first version); throws CommitConflict when it exists already. */
  create(ident: TableIdent, metadata: TableMetadata): Promise<LoadedTable>;
  /** Makes `next` the table's metadata if `base` is still current, else throws CommitConflict. */
  commit(ident: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable>;
  /** Drops the table from the catalog (its files stay, as Iceberg's drop without purge). */
  drop(ident: TableIdent): Promise<void>;
  close(): Promise<void>;
  /** How this catalog is named in messages, e.g. `hadoop catalog at /warehouse`. */
  readonly description: string;
}

/** The local path of a location (`file:` URI or absolute path); other schemes are refused (the hadoop catalog's folders). */
export function localPath(location: string): string {
  const path = localPathOf(location);
  if (path !== undefined) return path;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1];
  throw new ConfigError(
    ErrorCode.CONFIG_BAD_VALUE,
    `Iceberg location ${location}: ${scheme ? `the ${scheme}: scheme is not supported here (a local folder is needed)` : 'not an absolute path or file: URI'}.`,
  );
}

/** `base` + `/` + `child`, without doubling the slash. */
export const joinLocation = (base: string, child: string): string => `${base.replace(/\/+$/, '')}/${child}`;

export async function readMetadataFile(io: IcebergFileIO, location: string): Promise<TableMetadata> {
  return parseMetadataJson(Buffer.from(await io.read(location)).toString('utf8'));
}

export async function writeMetadataFile(io: IcebergFileIO, location: string, metadata: TableMetadata): Promise<void> {
  await io.write(location, stringifyMetadata(metadata));
}
