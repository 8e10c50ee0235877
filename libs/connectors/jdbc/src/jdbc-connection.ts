import type { DataType } from '@tideway/api';
import type { DialectName } from './jdbc-url.js';
import type { ValueDecoder } from './value-codec.js';

/** A table inside the database the connection is on. `schema` is PostgreSQL's; MySQL has none. */
export interface TableRef {
  readonly database?: string;
  readonly schema?: string;
  readonly table: string;
}

/** One column of a query result, mapped to SeaTunnel. */
export interface ResultColumn {
  readonly name: string;
  readonly type: DataType;
  readonly nullable: boolean;
  /** The database's own type name, for messages. */
  readonly nativeType: string;
  readonly decode: ValueDecoder;
  /** PostgreSQL: the column's type oid (RowDescription's), for the binary COPY pass-through. */
  readonly typeOid?: number;
  /** The table the column comes from, when the database says (plain columns of one table). */
  readonly origin?: TableRef;
}

/** Rows of a running query, read in batches. */
export interface RowBatchStream {
  /** Up to `max` decoded rows (positional); an empty array when the result is exhausted. */
  read(max: number): Promise<unknown[][]>;
  close(): Promise<void>;
}

/** Rows written by one statement or COPY. */
export interface WriteResult {
  readonly rowCount: number;
}

/**
 * One session with a database, in the words this connector needs. Implementations: PostgreSQL
 * (pg) and MySQL/MariaDB (mysql2). Values going in are SeaTunnel values; going out, decoded
 * SeaTunnel values.
 */
export interface JdbcConnection {
  readonly dialect: DialectName;
  quote(identifier: string): string;
  /** The table as SQL, e.g. `"public"."t"` or `` `db`.`t` ``. */
  tableSql(ref: TableRef): string;
  /** Runs SQL; rows come back raw (driver text), for metadata and control statements. */
  execute(sql: string, params?: readonly unknown[]): Promise<{ rows: unknown[][]; rowCount: number }>;
  /** The columns a query returns, without running it to completion. */
  describe(sql: string): Promise<ResultColumn[]>;
  /** Primary key column names of a table, in key order (empty when it has none). */
  primaryKey(ref: TableRef): Promise<string[]>;
  tableExists(ref: TableRef): Promise<boolean>;
  /**
   * The table's row count as the database's statistics estimate it, without reading it
   * (PostgreSQL: pg_class.reltuples); undefined when there is no estimate (never analyzed).
   */
  estimatedRowCount?(ref: TableRef): Promise<bigint | undefined>;
  /** Streams a query's rows decoded per `columns`, reading ahead about `fetchSize` rows. */
  stream(sql: string, columns: readonly ResultColumn[], fetchSize: number): Promise<RowBatchStream>;
  /** A parameter placeholder for position `i` (0-based): `$1` or `?`. */
  placeholder(i: number): string;
  /** A string as an SQL literal, quoted and escaped for this connection. */
  literal(text: string): string;
  /** The column type to create for a SeaTunnel type (`key`: part of the primary key). */
  columnType(type: DataType, key: boolean): string;
  close(): Promise<void>;
}
