import type { CatalogTable, Column, DataType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { currentSchema, defaultSpec, type PartitionSpec, type TableMetadata } from './metadata.js';
import { transformRefusal } from './transforms.js';
import { type IcebergField, type IcebergSchema, icebergSchemaOf, parquetFieldIds, typeText } from './schema.js';

/** A partition field of the table's spec, computed from a job column. */
export interface PartitionColumn {
  readonly fieldId: number;
  readonly name: string;
  readonly transform: string;
  /** The job column (index into the row's fields) it is computed from. */
  readonly column: number;
  /** The Iceberg type of the source column. */
  readonly sourceType: string;
}

/**
 * How the job's rows go into an existing Iceberg table: which table field each job column fills,
 * the Parquet columns (with field ids) of its data and equality-delete files, its partitioning.
 */
export interface TableLayout {
  readonly schema: IcebergSchema;
  readonly spec: PartitionSpec;
  /** Per table field written: the job column it takes its value from. */
  readonly written: readonly { readonly field: IcebergField; readonly column: number }[];
  /** Columns of the data files (the table's names, Parquet's types), and their field ids. */
  readonly dataColumns: readonly Column[];
  readonly dataFieldIds: readonly (number | undefined)[];
  readonly partition: readonly PartitionColumn[];
  /** The equality key: job columns and their field ids (empty without primary keys). */
  readonly keyColumns: readonly number[];
  readonly keyFieldIds: readonly number[];
  readonly deleteColumns: readonly Column[];
  readonly deleteFieldIds: readonly (number | undefined)[];
}

/** The type Tideway's Parquet writer writes a column of `t` as in an Iceberg data file (tinyint and smallint as int). */
function parquetType(t: DataType): DataType {
  switch (t.kind) {
    case 'tinyint':
    case 'smallint':
      return { kind: 'int' };
    case 'array':
      return { kind: 'array', element: parquetType(t.element) };
    case 'map':
      return { kind: 'map', key: parquetType(t.key), value: parquetType(t.value) };
    case 'row':
      return { kind: 'row', fields: t.fields.map((f) => ({ name: f.name, type: parquetType(f.type) })) };
    default:
      return t;
  }
}

export function layoutOf(
  table: CatalogTable,
  metadata: TableMetadata,
  primaryKeys: readonly string[],
  caseSensitive: boolean,
  where: string,
): TableLayout {
  if (metadata['format-version'] !== 2) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where}: the table is Iceberg format version ${metadata['format-version']}; Tideway writes version 2 tables only.`,
    );
  }
  const schema = currentSchema(metadata);
  const spec = defaultSpec(metadata);
  const norm = (s: string): string => (caseSensitive ? s : s.toLowerCase());
  const jobTypes = icebergSchemaOf(table.columns, [], where).fields;
  const columnOf = new Map(table.columns.map((c, i) => [norm(c.name), i]));
  const written: { field: IcebergField; column: number }[] = [];
  for (const field of schema.fields) {
    const at = columnOf.get(norm(field.name));
    if (at === undefined) {
      if (field.required)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${where}: the table's required column ${field.name} is not among the job's columns.`,
        );
      continue;
    }
    const want = typeText(field.type);
    const have = typeText(jobTypes[at].type);
    if (want !== have) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${where}: column ${field.name} is ${want} in the table and ${have} in the job (iceberg.table.schema-evolution-enabled follows a source's changes while a job runs, not a table that differs at its start).`,
      );
    }
    written.push({ field, column: at });
  }
  const known = new Set(schema.fields.map((f) => norm(f.name)));
  const missing = table.columns.filter((c) => !known.has(norm(c.name))).map((c) => c.name);
  if (missing.length) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where}: the table has no column ${missing.join(', ')} of the job (RECREATE_SCHEMA recreates the table).`,
    );
  }
  const fieldById = new Map(schema.fields.map((f) => [f.id, f]));
  const columnOfField = new Map(written.map((w) => [w.field.id, w.column]));
  const partition = spec.fields.map((p): PartitionColumn => {
    const source = fieldById.get(p['source-id']);
    const column = columnOfField.get(p['source-id']);
    if (!source || column === undefined)
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${where}: partition field ${p.name} is computed from a column the job does not write.`,
      );
    const refusal = transformRefusal(p.transform, typeText(source.type));
    if (refusal) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: partition field ${p.name}: ${refusal}.`);
    return { fieldId: p['field-id'], name: p.name, transform: p.transform, column, sourceType: source.type as string };
  });
  const keyNames = primaryKeys.length
    ? primaryKeys
    : (schema['identifier-field-ids'] ?? []).map((id) => fieldById.get(id)?.name ?? String(id));
  const keyWritten = keyNames.map((k) => {
    const w = written.find((x) => norm(x.field.name) === norm(k));
    if (!w) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: primary key column ${k} is not a column of the table.`);
    return w;
  });
  if (keyWritten.length) {
    // Iceberg's equality deletes are matched within a partition: the partition source columns
    // join the equality key (as SeaTunnel's partition-keys outside its primary-keys need); an
    // update or delete then removes the old row in the old row's partition.
    for (const p of partition) {
      if (!keyWritten.some((k) => k.column === p.column)) keyWritten.push(written.find((w) => w.column === p.column)!);
    }
  }
  const asColumn = (w: { field: IcebergField; column: number }): Column => ({
    name: w.field.name,
    type: parquetType(table.columns[w.column].type),
    nullable: true,
  });
  return {
    schema,
    spec,
    written,
    dataColumns: written.map(asColumn),
    dataFieldIds: parquetFieldIds(written.map((w) => w.field)),
    partition,
    keyColumns: keyWritten.map((k) => k.column),
    keyFieldIds: keyWritten.map((k) => k.field.id),
    deleteColumns: keyWritten.map(asColumn),
    deleteFieldIds: parquetFieldIds(keyWritten.map((k) => k.field)),
  };
}
