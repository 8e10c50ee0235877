import { randomUUID } from 'node:crypto';
import { access, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  CommitConflict,
  type IcebergCatalog,
  joinLocation,
  type LoadedTable,
  localPath,
  readMetadataFile,
  type TableIdent,
} from './catalog.js';
import { FileIO } from './file-io.js';
import { stringifyMetadata, type TableMetadata } from './metadata.js';

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Iceberg's Hadoop catalog on a local folder: a table is the folder
 * `<warehouse>/<namespace...>/<table>`, its versions `metadata/vN.metadata.json`, and
 * `metadata/version-hint.text` names the latest. A commit creates the next version's file only if
 * no other writer created it first: the file is written aside and hard-linked into place, which
 * fails when the name exists (the atomic create-if-absent the layout needs). Object stores have
 * no such operation, so an S3 warehouse is refused.
 */
export class HadoopCatalog implements IcebergCatalog {
  readonly description: string;
  readonly io = new FileIO();

  constructor(private readonly warehouse: string) {
    if (/^s3[an]?:/i.test(warehouse)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `iceberg.catalog.config: a hadoop catalog cannot be on S3 (warehouse ${warehouse}): its commits need an atomic create-if-absent of the next metadata file, which S3 does not have; use a sql or rest catalog there.`,
      );
    }
    localPath(warehouse); // refuses other schemes
    this.description = `hadoop catalog at ${warehouse}`;
  }

  defaultLocation(ident: TableIdent): string {
    return joinLocation(this.warehouse, [...ident.namespace, ident.name].join('/'));
  }

  private metadataDir(ident: TableIdent): string {
    return joinLocation(this.defaultLocation(ident), 'metadata');
  }

  private versionFile(ident: TableIdent, version: number): string {
    return joinLocation(this.metadataDir(ident), `v${version}.metadata.json`);
  }

  async load(ident: TableIdent): Promise<LoadedTable | undefined> {
    const hint = localPath(joinLocation(this.metadataDir(ident), 'version-hint.text'));
    let version = Number.parseInt((await readFile(hint, 'utf8').catch(() => '0')).trim(), 10) || 0;
    if (version === 0 && !(await exists(localPath(this.versionFile(ident, 1))))) return undefined;
    // the hint is written after the version file: a newer one may exist
    while (await exists(localPath(this.versionFile(ident, version + 1)))) version++;
    const metadataLocation = this.versionFile(ident, version);
    return { metadata: await readMetadataFile(this.io, metadataLocation), metadataLocation };
  }

  private async put(ident: TableIdent, version: number, metadata: TableMetadata): Promise<LoadedTable> {
    const target = this.versionFile(ident, version);
    const dir = localPath(this.metadataDir(ident));
    await mkdir(dir, { recursive: true });
    const tmp = `${dir}/.${randomUUID()}.metadata.json.tmp`;
    await writeFile(tmp, stringifyMetadata(metadata));
    try {
      await link(tmp, localPath(target));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        throw new CommitConflict(`version ${version} of ${ident.name} was committed by another writer`);
      throw err;
    } finally {
      await rm(tmp, { force: true });
    }
    await this.io.write(joinLocation(this.metadataDir(ident), 'version-hint.text'), `${version}`);
    return { metadata, metadataLocation: target };
  }

  create(ident: TableIdent, metadata: TableMetadata): Promise<LoadedTable> {
    return this.put(ident, 1, metadata);
  }

  commit(ident: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable> {
    const version = Number(/v(\d+)\.metadata\.json$/.exec(base.metadataLocation)?.[1] ?? Number.NaN);
    if (!Number.isInteger(version)) throw new Error(`${base.metadataLocation} is not a hadoop catalog metadata file (vN.metadata.json).`);
    return this.put(ident, version + 1, next);
  }

  async drop(ident: TableIdent): Promise<void> {
    await rm(localPath(this.defaultLocation(ident)), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}
