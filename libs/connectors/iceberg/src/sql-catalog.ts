import { randomUUID } from 'node:crypto';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import pg from 'pg';
import {
  CommitConflict,
  formatIdent,
  type IcebergCatalog,
  joinLocation,
  type LoadedTable,
  readMetadataFile,
  type TableIdent,
  writeMetadataFile,
} from './catalog.js';
import type { IcebergFileIO } from './file-io.js';
import type { TableMetadata } from './metadata.js';

/** The connection of a sql/jdbc catalog's `uri`: jdbc:postgresql://host:port/db or postgresql[+driver]://user:pass@host:port/db. */
export function pgConfigOf(uri: string, user: string | undefined, password: string | undefined): pg.ClientConfig {
  const m = /^(?:jdbc:postgresql|postgres(?:ql)?(?:\+[a-z0-9]+)?):\/\/(.*)$/i.exec(uri);
  if (!m) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `iceberg.catalog.config: uri ${uri} is not a PostgreSQL address (jdbc:postgresql://host:port/db or postgresql://user:password@host:port/db); Tideway's sql catalog keeps its tables in PostgreSQL only.`,
    );
  }
  const url = new URL(`postgresql://${m[1]}`);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 5432,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
    user: user ?? (url.username ? decodeURIComponent(url.username) : undefined),
    password: password ?? (url.password ? decodeURIComponent(url.password) : undefined),
  };
}

/**
 * Iceberg's SQL catalog (Iceberg's JdbcCatalog, PyIceberg's SqlCatalog) in PostgreSQL: the table
 * `iceberg_tables` (catalog_name, table_namespace, table_name, metadata_location,
 * previous_metadata_location) names each table's current metadata file, and a commit is a
 * compare-and-swap UPDATE of metadata_location (no row updated: another writer committed first).
 * Namespaces are rows of `iceberg_namespace_properties` (PyIceberg's `exists` property).
 */
export class SqlCatalog implements IcebergCatalog {
  readonly description: string;
  private client?: pg.Client;
  /** Whether iceberg_tables has Iceberg JdbcCatalog's iceberg_type column (its V1 schema). */
  private typed = false;

  constructor(
    private readonly name: string,
    private readonly warehouse: string,
    private readonly config: pg.ClientConfig,
    readonly io: IcebergFileIO,
  ) {
    io.check(warehouse, `iceberg.catalog.config warehouse`);
    this.description = `sql catalog ${name} at ${config.host}:${config.port}/${config.database ?? ''}`;
  }

  private async db(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ ...this.config, connectionTimeoutMillis: 10_000 });
    client.on('error', () => {}); // a dropped connection fails the next query, which says so
    try {
      await client.connect();
    } catch (err) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `The Iceberg sql catalog ${this.name} at ${this.config.host}:${this.config.port} cannot be reached: ${(err as Error).message}.`,
        { cause: err, retryable: true },
      );
    }
    await client.query(
      `CREATE TABLE IF NOT EXISTS iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
        table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
        PRIMARY KEY (catalog_name, table_namespace, table_name))`,
    );
    await client.query(
      `CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,
        property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, property_key))`,
    );
    const typed = await client.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'iceberg_tables' AND column_name = 'iceberg_type' AND table_schema = current_schema()`,
    );
    this.typed = (typed.rowCount ?? 0) > 0;
    this.client = client;
    return client;
  }

  defaultLocation(ident: TableIdent): string {
    return joinLocation(this.warehouse, [...ident.namespace, ident.name].join('/'));
  }

  private key(ident: TableIdent): string[] {
    return [this.name, ident.namespace.join('.'), ident.name];
  }

  async load(ident: TableIdent): Promise<LoadedTable | undefined> {
    const db = await this.db();
    const r = await db.query<{ metadata_location: string | null }>(
      `SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3${
        this.typed ? ` AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)` : ''
      }`,
      this.key(ident),
    );
    const location = r.rows[0]?.metadata_location;
    if (!location) return undefined;
    return { metadata: await readMetadataFile(this.io, location), metadataLocation: location };
  }

  private metadataFile(metadata: TableMetadata, version: number): string {
    return joinLocation(metadata.location, `metadata/${String(version).padStart(5, '0')}-${randomUUID()}.metadata.json`);
  }

  async create(ident: TableIdent, metadata: TableMetadata): Promise<LoadedTable> {
    const db = await this.db();
    const location = this.metadataFile(metadata, 0);
    await writeMetadataFile(this.io, location, metadata);
    const [catalog, namespace, table] = this.key(ident);
    await db.query(
      `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES ($1, $2, 'exists', 'true')
       ON CONFLICT DO NOTHING`,
      [catalog, namespace],
    );
    const r = await db.query(
      this.typed
        ? `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type)
           VALUES ($1, $2, $3, $4, NULL, 'TABLE') ON CONFLICT DO NOTHING`
        : `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location)
           VALUES ($1, $2, $3, $4, NULL) ON CONFLICT DO NOTHING`,
      [catalog, namespace, table, location],
    );
    if (r.rowCount === 0) {
      await this.io.delete(location);
      throw new CommitConflict(`${formatIdent(ident)} was created by another writer`);
    }
    return { metadata, metadataLocation: location };
  }

  async commit(ident: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable> {
    const db = await this.db();
    const version = Number(/\/(\d+)-[^/]*\.metadata\.json$/.exec(base.metadataLocation)?.[1] ?? -1) + 1;
    const location = this.metadataFile(next, version);
    await writeMetadataFile(this.io, location, next);
    const r = await db.query(
      `UPDATE iceberg_tables SET metadata_location = $4, previous_metadata_location = $5
       WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3 AND metadata_location = $5`,
      [...this.key(ident), location, base.metadataLocation],
    );
    if (r.rowCount === 0) {
      await this.io.delete(location);
      throw new CommitConflict(`${formatIdent(ident)} moved past ${base.metadataLocation}: another writer committed first`);
    }
    return { metadata: next, metadataLocation: location };
  }

  async drop(ident: TableIdent): Promise<void> {
    const db = await this.db();
    await db.query(`DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3`, this.key(ident));
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}
