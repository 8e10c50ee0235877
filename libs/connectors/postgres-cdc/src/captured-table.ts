import type { CatalogTable } from '@tideway/api';
import type { ResultColumn, TableRef } from '@tideway/connector-jdbc';

/** A table the source captures: its schema, where it lives, and how its values decode. */
export interface CapturedTable {
  readonly ref: TableRef & { schema: string };
  readonly catalog: CatalogTable;
  readonly columns: readonly ResultColumn[];
  /** The integer key column the snapshot is chunked by, if any. */
  readonly chunkKey?: string;
}
