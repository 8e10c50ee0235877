import { applyColumnChanges, type CatalogTable, type ChangedColumn, type ColumnChange, type SchemaChangeEvent } from '@tideway/api';
import { ErrorCode, TidewayError, type Place, textOf } from '@tideway/common';
import { inCatalogOrder, recordOf, type SchemaRecord, type TrackedTableOf } from '@tideway/connector-cdc-common';
import type { PgConnection, ValueDecoder } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import type { RelationColumn } from './pgoutput.js';

/** A column as pgoutput's relation message describes it. */
export interface TrackedPgColumn {
  readonly name: string;
  readonly typeOid: number;
  readonly typmod: number;
}

/** One captured table's columns at a stream position. */
export interface TrackedPgTable extends TrackedTableOf<TrackedPgColumn> {
  /** `schema.table`, as relation messages name it. */
  readonly key: string;
}

/**
 * Postgres-CDC's record of the captured tables' columns at a stream position (checkpointed in
 * the stream split): a relation message whose columns differ from it is a schema change.
 */
export type PgSchemaRecord = SchemaRecord<TrackedPgTable>;

/** The captured tables' columns now, from pg_attribute (the schema at the position planned with them). */
export function readPgSchemaRecord(conn: PgConnection, tables: readonly CapturedTable[]): Promise<PgSchemaRecord> {
  return recordOf(tables, async (t): Promise<TrackedPgTable> => {
    const { columns } = await catalogColumns(conn, t.ref.schema, t.ref.table);
    const tracked = inCatalogOrder(t.catalog, new Map(columns.map((c) => [c.name, c])), (name, r) => ({
      name,
      typeOid: r?.typeOid ?? 0,
      typmod: r?.typmod ?? -1,
    }));
    return { key: `${t.ref.schema}.${t.ref.table}`, columns: tracked, catalog: t.catalog };
  });
}

/**
 * A table's columns as the catalog has them now, with their type modifiers, and whether its
 * replica identity is FULL (decoderbufs' messages carry neither).
 */
export async function catalogColumns(
  conn: PgConnection,
  schema: string,
  table: string,
): Promise<{ columns: TrackedPgColumn[]; fullIdentity: boolean }> {
  const rel = `${conn.quote(schema)}.${conn.quote(table)}`;
  const rows = (
    await conn.execute(
      'SELECT a.attname, a.atttypid, a.atttypmod FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum',
      [rel],
    )
  ).rows;
  const identity = (await conn.execute('SELECT relreplident FROM pg_class WHERE oid = $1::regclass', [rel])).rows[0]?.[0];
  return {
    columns: rows.map((r) => ({ name: String(r[0]), typeOid: Number(r[1]), typmod: Number(r[2]) })),
    fullIdentity: String(identity) === 'f',
  };
}

/** Decoders (and SeaTunnel columns) of relation columns, from their type oids and modifiers. */
export interface ResolvedColumns {
  readonly decoders: ValueDecoder[];
  /** As the source defines them now: type text, default, NOT NULL (the catalog of the moment). */
  readonly columns: ChangedColumn[];
}

/**
 * Resolves relation columns on a regular session: their types as of the message (format_type
 * of its oid and modifier, decoded as the snapshot decodes such a column), their defaults and
 * NOT NULL as the catalog has them now (pgoutput carries neither).
 */
export async function resolveColumns(conn: PgConnection, key: string, columns: readonly TrackedPgColumn[]): Promise<ResolvedColumns> {
  const types = (
    await conn.execute(
      `SELECT ${columns.map((_, i) => `format_type($${2 * i + 1}::oid, $${2 * i + 2}::int)`).join(', ')}`,
      columns.flatMap((c) => [c.typeOid, c.typmod]),
    )
  ).rows[0].map(String);
  const described = await conn.describe(`SELECT ${columns.map((c, i) => `NULL::${types[i]} AS ${conn.quote(c.name)}`).join(', ')}`);
  const attrs = (
    await conn.execute(
      'SELECT a.attname, a.attnotnull, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped',
      [
        key
          .split('.')
          .map((p) => conn.quote(p))
          .join('.'),
      ],
    )
  ).rows;
  const byName = new Map(attrs.map((r) => [String(r[0]), r]));
  return {
    decoders: described.map((d) => d.decode),
    columns: columns.map((c, i) => {
      const a = byName.get(c.name);
      const def = a?.[2] == null ? undefined : textOf(a[2]);
      return {
        name: c.name,
        type: described[i].type,
        nullable: a ? !(a[1] === true || a[1] === 't') : true,
        native: { dialect: 'postgresql', type: types[i], ...(def !== undefined ? { defaultExpression: def } : {}) },
      };
    }),
  };
}

const sameType = (a: TrackedPgColumn, b: RelationColumn | TrackedPgColumn) => a.typeOid === b.typeOid && a.typmod === b.typmod;

/** Whether a relation message shows the tracked columns unchanged. */
export function sameColumns(tracked: TrackedPgTable, columns: readonly RelationColumn[]): boolean {
  return (
    tracked.columns.length === columns.length && tracked.columns.every((c, i) => c.name === columns[i].name && sameType(c, columns[i]))
  );
}

/**
 * The changes from the tracked columns to a relation message's. pgoutput keeps column order
 * and says nothing of renames: a column gone and one new at the same position with the same
 * type read as a rename (so a dropped last column replaced by a new one of its type would too).
 * Returns the event and the table's new record entry.
 */
export function relationChange(
  tracked: TrackedPgTable,
  columns: readonly RelationColumn[],
  resolved: ResolvedColumns,
  place: Place,
): { event: SchemaChangeEvent; table: TrackedPgTable } {
  const tableId = tracked.catalog.tableId;
  const msgNames = new Set(columns.map((c) => c.name));
  const oldNames = new Set(tracked.columns.map((c) => c.name));
  const changes: ColumnChange[] = [];
  const renamedTo = new Set<string>();
  let survivors = 0;
  for (const c of tracked.columns) {
    if (msgNames.has(c.name)) {
      survivors++;
      continue;
    }
    const at = columns[survivors + renamedTo.size];
    if (at && !oldNames.has(at.name) && sameType(c, at)) {
      changes.push({ kind: 'rename', from: c.name, to: at.name });
      renamedTo.add(at.name);
    } else changes.push({ kind: 'drop', name: c.name });
  }
  columns.forEach((c, i) => {
    const col = resolved.columns[i];
    const old = tracked.columns.find((o) => o.name === c.name);
    if (old) {
      if (!sameType(old, c)) changes.push({ kind: 'modify', name: c.name, column: col });
    } else if (!renamedTo.has(c.name)) {
      changes.push(i > 0 ? { kind: 'add', column: col, after: columns[i - 1].name } : { kind: 'add', column: col, first: true });
    }
  });
  let catalog: CatalogTable;
  try {
    catalog = applyColumnChanges(tracked.catalog, changes);
  } catch (err) {
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `table ${tableId}: its new columns (${columns.map((c) => c.name).join(', ')}) could not be followed: ${(err as Error).message}`,
      { place },
    );
  }
  // Row fields follow the relation's order.
  catalog = { ...catalog, columns: columns.map((c) => catalog.columns.find((x) => x.name === c.name)!) };
  const table: TrackedPgTable = {
    key: tracked.key,
    columns: columns.map((c) => ({ name: c.name, typeOid: c.typeOid, typmod: c.typmod })),
    catalog,
  };
  return { event: { type: 'schema-change', tableId, changes, table: catalog }, table };
}
