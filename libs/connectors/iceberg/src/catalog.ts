import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, ErrorCode } from '@tideway/common';
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

/** The local path of a location (`file:` URI or absolute path); other schemes are refused. */
export function localPath(location: string): string {
  // taken literally, not URL-decoded: Iceberg writers keep a partition value's escapes (%3A) in file names
  if (location.startsWith('file://')) return location.slice('file://'.length);
  if (location.startsWith('file:')) return location.slice('file:'.length);
  if (location.startsWith('/')) return location;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(location)?.[1];
  throw new ConfigError(
    ErrorCode.CONFIG_BAD_VALUE,
    `Iceberg location ${location}: ${scheme ? `the ${scheme}: scheme is not supported by Tideway's Iceberg connector yet (local folders only)` : 'not an absolute path or file: URI'}.`,
  );
}

/** `base` + `/` + `child`, without doubling the slash. */
export const joinLocation = (base: string, child: string): string => `${base.replace(/\/+$/, '')}/${child}`;

export async function readMetadataFile(location: string): Promise<TableMetadata> {
  return parseMetadataJson(await readFile(localPath(location), 'utf8'));
}

/** Writes a file whole, through a temporary file renamed into place (a reader sees all of it or nothing). */
export async function writeFileAtomically(location: string, bytes: Uint8Array | string): Promise<void> {
  const path = localPath(location);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomUUID()}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}

export async function writeMetadataFile(location: string, metadata: TableMetadata): Promise<void> {
  await writeFileAtomically(location, stringifyMetadata(metadata));
}

export async function removeFile(location: string): Promise<void> {
  await rm(localPath(location), { force: true });
}
