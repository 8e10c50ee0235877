import type { Column, DataType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { parquetColumns, parquetRowGroupBatches, TIDEWAY_PARSERS } from '@tideway/connector-file-common';
import { type FileMetaData, parquetMetadataAsync, parquetSchema, type SchemaTree } from 'hyparquet';
import { type BoundPredicate, matches, mayMatch, type ValueRange } from './filter.js';
import type { IcebergFileIO } from './file-io.js';
import { castTo, compileFileValue, internalOfEngine } from './read-schema.js';
import { avroBatches, type FileBatch, OrcDataFile } from './format-readers.js';
import { type DeleteRef, type ScanTask, scanCounters } from './scan.js';
import type { DataFormat } from './data-format.js';
import type { IcebergType } from './schema.js';
import type { Internal } from './values.js';

/**
 * The Iceberg source's reading of a data file: its Parquet columns found by field id (renamed
 * columns read, columns the file predates read as null, widened types widened), the delete files
 * of its task applied (position deletes by the row's position in the file, equality deletes by
 * the values of their equality fields), the filter applied to each row and used to skip row
 * groups by their statistics, then the output columns cast to the job's types.
 */

/** Rows per batch. */
export const ICEBERG_READ_BATCH_ROWS = 1024;

/** A table field to read from files: its id, and its type in the schema read (the current or the snapshot's). */
export interface ReadField {
  readonly id: number;
  readonly name: string;
  readonly type: IcebergType;
}

/** What a split reads: `fields` (the output's first, then those the filter and equality deletes need), the output's types, the filter. */
export interface ReadPlan {
  readonly fields: readonly ReadField[];
  /** Per output column: the index of its field, and the type the job reads it as. */
  readonly output: readonly { readonly field: number; readonly as: DataType }[];
  readonly filter: readonly BoundPredicate[];
}

/** Position deletes: the file_path and pos fields' reserved ids. */
const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** A Parquet file opened: its footer and schema tree. */
interface OpenFile {
  readonly path: string;
  readonly meta: FileMetaData;
  readonly root: SchemaTree;
  readonly columns: readonly Column[];
  readonly read: (from: number, to: number) => Promise<Uint8Array>;
}

async function openParquet(io: IcebergFileIO, path: string, size: number): Promise<OpenFile> {
  const read = (from: number, to: number): Promise<Uint8Array> => io.readRange(path, from, to);
  const meta = await parquetMetadataAsync(
    {
      byteLength: size,
      slice: async (start, end) => {
        const b = await read(start, end ?? size);
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      },
    },
    { parsers: TIDEWAY_PARSERS },
  );
  return { path, meta, root: parquetSchema(meta), columns: parquetColumns(meta, path), read };
}

/** How a file's columns give the values of `fields`: the file columns to read, and per field its column (or none) and conversion. */
function fieldReaders(file: OpenFile, fields: readonly { id: number; type: IcebergType }[], names?: readonly string[]) {
  const read: Column[] = [];
  const at = fields.map((f, i) => {
    let k = file.root.children.findIndex((c) => c.element.field_id === f.id);
    if (k < 0 && names) k = file.root.children.findIndex((c) => c.element.field_id === undefined && c.element.name === names[i]);
    if (k < 0) return { column: -1, convert: (): null => null };
    read.push(file.columns[k]);
    return { column: read.length - 1, convert: compileFileValue(f.type, file.root.children[k], file.path) };
  });
  return { read, at };
}

/**
 * The values of `fields` in row groups [first, end) of a file, after `offset` rows of the range,
 * in batches; a row group `keep` refuses is skipped whole (a batch of no rows that consumed it).
 */
async function* fieldBatches(
  file: OpenFile,
  fields: readonly { id: number; type: IcebergType }[],
  range: readonly [number, number],
  offset: number,
  keep: (group: number) => boolean = () => true,
  names?: readonly string[],
): AsyncGenerator<FileBatch> {
  const { read, at } = fieldReaders(file, fields, names);
  const groups = file.meta.row_groups;
  let start = 0;
  for (let g = 0; g < range[0]; g++) start += Number(groups[g].num_rows);
  let skip = offset;
  for (let g = range[0]; g < range[1]; g++) {
    const n = Number(groups[g].num_rows);
    if (skip >= n) {
      skip -= n;
      start += n;
      continue;
    }
    if (!keep(g)) {
      scanCounters.rowGroupsSkipped++;
      yield { rows: [], start: start + skip, consumed: n - skip };
      skip = 0;
      start += n;
      continue;
    }
    scanCounters.rowGroupsRead++;
    let position = start + skip;
    for await (const batch of parquetRowGroupBatches(file.read, file.path, file.meta, g, skip, read, ICEBERG_READ_BATCH_ROWS)) {
      const rows = batch.map((raw) => at.map((a) => (a.column < 0 ? null : a.convert(raw[a.column]))));
      yield { rows, start: position, consumed: batch.length };
      position += batch.length;
    }
    skip = 0;
    start += n;
  }
}

/** Every row of a delete file of any format, values of `fields` (found by id, else by `names` where the file has no ids). */
async function* wholeFile(
  io: IcebergFileIO,
  path: string,
  size: number,
  format: DataFormat | undefined,
  fields: readonly { id: number; type: IcebergType }[],
  names?: readonly string[],
): AsyncGenerator<FileBatch> {
  if (format === 'ORC') {
    const file = await OrcDataFile.open(io, path, size);
    yield* file.batches(fields, [0, file.stripes], 0, ICEBERG_READ_BATCH_ROWS, names);
  } else if (format === 'AVRO') {
    yield* avroBatches(io, path, size, fields, 0, ICEBERG_READ_BATCH_ROWS, names);
  } else {
    const file = await openParquet(io, path, size);
    yield* fieldBatches(file, fields, [0, file.meta.row_groups.length], 0, undefined, names);
  }
}

/** Equality: a key of engine values (bigints and bytes made comparable). */
export function keyOf(values: readonly unknown[]): string {
  return JSON.stringify(
    values.map((v) => (typeof v === 'bigint' ? `n${v}` : v instanceof Uint8Array ? `b${Buffer.from(v).toString('hex')}` : v)),
  );
}

/** A row group's statistics of a top-level primitive column, as a range of internal values (undefined: unknown). */
function groupRange(file: OpenFile, group: number, node: SchemaTree, type: string): ValueRange | undefined {
  if (node.children.length > 0 || type.startsWith('decimal') || type === 'float' || type === 'double') return undefined;
  const chunk = file.meta.row_groups[group].columns.find((c) => {
    const p = c.meta_data?.path_in_schema;
    return p?.length === 1 && p[0] === node.element.name;
  });
  const stats = chunk?.meta_data?.statistics;
  if (!stats) return undefined;
  const values = Number(chunk.meta_data!.num_values);
  const nulls = stats.null_count === undefined ? undefined : Number(stats.null_count);
  const convert = compileFileValue(type, node, file.path);
  const internal = (v: unknown): Internal | undefined => {
    if (v === undefined || v === null) return undefined;
    try {
      return internalOfEngine(type, convert(v)) ?? undefined;
    } catch {
      return undefined;
    }
  };
  return {
    lower: internal(stats.min_value),
    upper: internal(stats.max_value),
    hasNull: nulls === undefined ? undefined : nulls > 0,
    hasValue: nulls === undefined ? undefined : values > nulls,
  };
}

/** Delete files a reader keeps read for its next splits (the oldest read is dropped past this). */
const KEPT_DELETE_FILES = 32;

/** Puts `value` in a map kept to KEPT_DELETE_FILES entries, the oldest dropped. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value);
  if (map.size > KEPT_DELETE_FILES) map.delete(map.keys().next().value as K);
}

/** Reads data files of splits, keeping the delete files it read last for the next splits. */
export class DataFileReader {
  constructor(private readonly io: IcebergFileIO) {}

  private readonly positionDeletes = new Map<string, Promise<Map<string, Set<number>>>>();
  private readonly equalityDeletes = new Map<string, Promise<Set<string>>>();

  /** The positions deleted from data file `path` by a position delete file. */
  private positionsOf(d: DeleteRef, path: string): Promise<Set<number>> {
    let all = this.positionDeletes.get(d.path);
    if (!all) {
      all = (async () => {
        scanCounters.deleteFilesRead++;
        const out = new Map<string, Set<number>>();
        const fields = [
          { id: FILE_PATH_ID, type: 'string' },
          { id: POS_ID, type: 'long' },
        ];
        for await (const b of wholeFile(this.io, d.path, d.size, d.format, fields, ['file_path', 'pos'])) {
          for (const [p, pos] of b.rows) {
            let set = out.get(p as string);
            if (!set) out.set(p as string, (set = new Set()));
            set.add(Number(pos));
          }
        }
        return out;
      })();
      remember(this.positionDeletes, d.path, all);
    }
    return all.then((m) => m.get(path) ?? new Set());
  }

  /** The keys an equality delete file deletes, over its equality fields (types of `fields`). */
  private keysOf(d: DeleteRef, fields: readonly ReadField[]): Promise<Set<string>> {
    const cacheKey = `${d.path}\u0000${fields.map((f) => typeof f.type === 'string' && f.type).join(',')}`;
    let keys = this.equalityDeletes.get(cacheKey);
    if (!keys) {
      keys = (async () => {
        scanCounters.deleteFilesRead++;
        const out = new Set<string>();
        for await (const b of wholeFile(this.io, d.path, d.size, d.format, fields)) for (const r of b.rows) out.add(keyOf(r));
        return out;
      })();
      remember(this.equalityDeletes, cacheKey, keys);
    }
    return keys;
  }

  /** The values of the plan's fields of a task's range from row `offset` on (Parquet row groups the filter rules out skipped by their statistics). */
  private async *batches(task: ScanTask, plan: ReadPlan, offset: number): AsyncGenerator<FileBatch> {
    const where = `Iceberg data file ${task.path}`;
    const noIds = `${where} has no field ids (a file added to the table from elsewhere): Tideway's Iceberg source maps columns by field id and does not read name mappings.`;
    if (task.format === 'AVRO') {
      yield* avroBatches(this.io, task.path, task.size, plan.fields, offset, ICEBERG_READ_BATCH_ROWS);
      return;
    }
    if (task.format === 'ORC') {
      const file = await OrcDataFile.open(this.io, task.path, task.size);
      if (!file.hasFieldIds) throw new ConfigError(ErrorCode.UNSUPPORTED_TYPE, noIds);
      yield* file.batches(plan.fields, task.rowGroups ?? [0, file.stripes], offset, ICEBERG_READ_BATCH_ROWS);
      return;
    }
    const file = await openParquet(this.io, task.path, task.size);
    if (file.root.children.length > 0 && file.root.children.every((c) => c.element.field_id === undefined)) {
      throw new ConfigError(ErrorCode.UNSUPPORTED_TYPE, noIds);
    }
    const filterNodes = plan.filter.map((p) => file.root.children.find((c) => c.element.field_id === p.fieldId));
    const keep = (group: number): boolean =>
      plan.filter.every((p, i) => {
        const node = filterNodes[i];
        if (!node) return mayMatch(p, { hasNull: true, hasValue: false }); // a column the file predates: all null
        const range = groupRange(file, group, node, p.type);
        // statistics of another form than the literals' (a writer's odd annotation) prune nothing
        const sample = p.values[0];
        const comparable = (v: Internal | undefined): boolean => v === undefined || sample === undefined || typeof v === typeof sample;
        return range === undefined || !comparable(range.lower) || !comparable(range.upper) || mayMatch(p, range);
      });
    yield* fieldBatches(file, plan.fields, task.rowGroups ?? [0, file.meta.row_groups.length], offset, keep);
  }

  /**
   * The output rows of a task from row `offset` of its range on, in batches, each with the rows
   * of the range it consumed (deleted and filtered rows included), for the split's progress.
   */
  async *read(task: ScanTask, plan: ReadPlan, offset: number): AsyncGenerator<{ rows: unknown[][]; consumed: number }> {
    const where = `Iceberg data file ${task.path}`;
    scanCounters.dataFilesOpened++;
    const positions = new Set<number>();
    for (const d of task.deletes) if (d.content === 1) for (const p of await this.positionsOf(d, task.path)) positions.add(p);
    const byId = new Map(plan.fields.map((f, i) => [f.id, i]));
    const equality: { columns: number[]; keys: Set<string> }[] = [];
    for (const d of task.deletes) {
      if (d.content !== 2) continue;
      const ids = d.equalityIds ?? [];
      const columns = ids.map((id) => {
        const i = byId.get(id);
        if (i === undefined)
          throw new Error(`${where}: equality delete file ${d.path} is keyed by field ${id}, which the read plan lacks.`);
        return i;
      });
      equality.push({
        columns,
        keys: await this.keysOf(
          d,
          columns.map((i) => plan.fields[i]),
        ),
      });
    }
    const filter = plan.filter.map((p) => ({ p, column: byId.get(p.fieldId)! }));
    const casts = plan.output.map((o) => castTo(plan.fields[o.field].type, o.as, where));
    for await (const b of this.batches(task, plan, offset)) {
      const out: unknown[][] = [];
      for (let r = 0; r < b.rows.length; r++) {
        const row = b.rows[r];
        if (positions.size > 0 && positions.has(b.start + r)) continue;
        if (equality.some((e) => e.keys.has(keyOf(e.columns.map((c) => row[c]))))) continue;
        if (!filter.every(({ p, column }) => matches(p, internalOfEngine(p.type, row[column])))) continue;
        out.push(plan.output.map((o, i) => casts[i](row[o.field])));
      }
      yield { rows: out, consumed: b.consumed };
    }
  }
}
