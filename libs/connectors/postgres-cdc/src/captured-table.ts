import type { CapturedTable as Captured } from '@tideway/connector-cdc-common';
import type { ResultColumn, TableRef } from '@tideway/connector-jdbc';

/** A captured PostgreSQL table (its ref always has a schema). */
export type CapturedTable = Captured<TableRef & { schema: string }, ResultColumn>;
