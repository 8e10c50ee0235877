import { ConfigError, ErrorCode, logger } from '@tideway/common';
import { parquetMetadataAsync } from 'hyparquet';
import { readAvroFile } from './avro.js';
import { type BoundPredicate, boundValue, mayMatch, projectPredicate, type ValueRange } from './filter.js';
import { type DataFormat, fileFormatOf } from './data-format.js';
import type { IcebergFileIO } from './file-io.js';
import { orcStripeBytes } from './format-readers.js';
import type { PartitionSpec, Snapshot, TableMetadata } from './metadata.js';
import type { IcebergField, IcebergSchema } from './schema.js';
import { resultType } from './transforms.js';
import { bytesUnscaled, type Internal } from './values.js';

const log = logger('iceberg-scan');

/**
 * Scan planning of the Iceberg source (on the enumerator): a snapshot's manifest list, its
 * manifests (those whose partition summaries cannot match the filter skipped), their live data
 * files (those whose partition values or column bounds cannot match skipped) each with the delete
 * files that apply to it by the table spec's rules, cut into splits by row groups when a file is
 * larger than the table's read.split.target-size. An incremental range plans the data files
 * appended by the append snapshots after one snapshot up to another, as Iceberg's incremental
 * append scan does (deletes and overwrites are not part of it).
 */

/** Iceberg's read.split.target-size default (128 MiB). */
export const DEFAULT_SPLIT_BYTES = 128 * 1024 * 1024;

/** A delete file that applies to a data file. */
export interface DeleteRef {
  readonly path: string;
  readonly size: number;
  /** 1: position deletes (file_path, pos); 2: equality deletes by `equalityIds`. */
  readonly content: 1 | 2;
  readonly equalityIds?: readonly number[];
  /** The file's format (PARQUET when absent: splits of older checkpoints). */
  readonly format?: DataFormat;
}

/** A part of a data file to read: all of it, or row groups [first, end). */
export interface ScanTask {
  readonly path: string;
  readonly size: number;
  readonly records: number;
  readonly deletes: readonly DeleteRef[];
  /** Row groups (ORC: stripes) [first, end) of the file. */
  readonly rowGroups?: readonly [number, number];
  /** The file's format (PARQUET when absent: splits of older checkpoints). */
  readonly format?: DataFormat;
}

/** What planning read and skipped, for logs and tests. */
export interface PlanStats {
  manifests: number;
  manifestsSkipped: number;
  dataFiles: number;
  dataFilesSkipped: number;
  deleteFiles: number;
  footersRead: number;
  /** Splits made (a data file, or a run of its row groups). */
  splits: number;
}

const newStats = (): PlanStats => ({
  manifests: 0,
  manifestsSkipped: 0,
  dataFiles: 0,
  dataFilesSkipped: 0,
  deleteFiles: 0,
  footersRead: 0,
  splits: 0,
});

/** Counters of everything the source opened and skipped in this process (tests and debugging). */
export const scanCounters = {
  ...newStats(),
  dataFilesOpened: 0,
  rowGroupsRead: 0,
  rowGroupsSkipped: 0,
  deleteFilesRead: 0,
  reset(): void {
    Object.assign(this, newStats(), { dataFilesOpened: 0, rowGroupsRead: 0, rowGroupsSkipped: 0, deleteFilesRead: 0 });
  },
};

/** A manifest entry of a data or delete file, sequence numbers resolved. */
export interface Entry {
  readonly status: number;
  readonly snapshotId: bigint | null;
  readonly dataSeq: number;
  readonly specId: number;
  readonly partitionKey: string;
  readonly file: Record<string, unknown>;
}

/** A manifest entry's data_file.partition values as one comparable text. */
function partitionKeyOf(specId: number, partition: unknown): string {
  const p = (partition ?? {}) as Record<string, unknown>;
  const canon = (v: unknown): unknown =>
    typeof v === 'bigint' ? `n${v}` : v instanceof Uint8Array ? `b${Buffer.from(v).toString('hex')}` : v === undefined ? null : v;
  return `${specId}:${JSON.stringify(Object.values(p).map(canon))}`;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** The entries of a manifest, sequence numbers inherited from the manifest list where the entry has none. */
export async function manifestEntries(io: IcebergFileIO, manifest: Record<string, unknown>): Promise<Entry[]> {
  const { records } = await readAvroFile(await io.read(String(manifest.manifest_path)));
  const specId = num(manifest.partition_spec_id);
  const manifestSeq = num(manifest.sequence_number);
  return records.map((r) => {
    const file = r.data_file as Record<string, unknown>;
    const status = num(r.status);
    const seq = r.sequence_number;
    return {
      status,
      snapshotId: (r.snapshot_id as bigint | null) ?? (manifest.added_snapshot_id as bigint),
      // an added entry without one inherits its manifest's (the snapshot's) sequence number
      dataSeq: seq === null || seq === undefined ? manifestSeq : Number(seq),
      specId,
      partitionKey: partitionKeyOf(specId, file.partition),
      file,
    };
  });
}

/** An Avro partition value in Iceberg's internal form of the partition field's type. */
function partitionInternal(type: string, v: unknown): Internal | null {
  if (v === null || v === undefined) return null;
  if (type.startsWith('decimal')) return bytesUnscaled(v as Uint8Array);
  return v as Internal;
}

/** The filter projected on a spec: per partition field (by position), its predicates. */
function projectOnSpec(
  filter: readonly BoundPredicate[],
  spec: PartitionSpec,
  fields: ReadonlyMap<number, IcebergField>,
): { index: number; type: string; predicates: BoundPredicate[] }[] {
  return spec.fields.map((pf, index) => {
    const source = fields.get(pf['source-id']);
    const sourceType = typeof source?.type === 'string' ? source.type : 'unknown';
    const type = resultType(pf.transform, sourceType === 'timestamptz' ? 'timestamp' : sourceType);
    const predicates = filter
      .filter((p) => p.fieldId === pf['source-id'])
      .map((p) => projectPredicate(p, pf.transform, type))
      .filter((p): p is BoundPredicate => p !== undefined);
    return { index, type, predicates };
  });
}

/** Whether a manifest's partition summaries let the filter match a file in it. */
function manifestMayMatch(manifest: Record<string, unknown>, projected: ReturnType<typeof projectOnSpec>): boolean {
  const summaries = manifest.partitions as Record<string, unknown>[] | null;
  if (!summaries) return true;
  return projected.every(({ index, type, predicates }) => {
    const s = summaries[index];
    if (!s || predicates.length === 0) return true;
    const lower = s.lower_bound ? boundValue(type, s.lower_bound as Uint8Array) : undefined;
    const upper = s.upper_bound ? boundValue(type, s.upper_bound as Uint8Array) : undefined;
    const range: ValueRange = {
      lower,
      upper,
      hasNull: s.contains_null === true,
      hasValue: lower !== undefined || upper !== undefined ? true : undefined,
    };
    // a summary without bounds and without nulls means every value was NaN or unknown: keep it
    return predicates.every((p) => mayMatch(p, range));
  });
}

/** Whether a data file's partition values and column metrics let the filter match a row of it. */
function fileMayMatch(
  file: Record<string, unknown>,
  projected: ReturnType<typeof projectOnSpec>,
  filter: readonly BoundPredicate[],
  specFieldNames: readonly string[],
): boolean {
  const partition = (file.partition ?? {}) as Record<string, unknown>;
  for (const { index, type, predicates } of projected) {
    const v = partitionInternal(type, partition[specFieldNames[index]]);
    const range: ValueRange = v === null ? { hasNull: true, hasValue: false } : { lower: v, upper: v, hasNull: false, hasValue: true };
    if (!predicates.every((p) => mayMatch(p, range))) return false;
  }
  const mapOf = (k: string): Map<number, unknown> =>
    new Map(((file[k] as { key: number; value: unknown }[] | null) ?? []).map((e) => [Number(e.key), e.value]));
  const lowers = mapOf('lower_bounds');
  const uppers = mapOf('upper_bounds');
  const nulls = mapOf('null_value_counts');
  const values = mapOf('value_counts');
  return filter.every((p) => {
    const nullCount = nulls.has(p.fieldId) ? Number(nulls.get(p.fieldId)) : undefined;
    const valueCount = values.has(p.fieldId) ? Number(values.get(p.fieldId)) : undefined;
    const lo = lowers.get(p.fieldId) as Uint8Array | undefined;
    const hi = uppers.get(p.fieldId) as Uint8Array | undefined;
    const range: ValueRange = {
      lower: lo ? boundValue(p.type, lo) : undefined,
      upper: hi ? boundValue(p.type, hi) : undefined,
      hasNull: nullCount === undefined ? undefined : nullCount > 0,
      // a column the file predates is all nulls: its value count is absent, as is its null count
      hasValue: nullCount !== undefined && valueCount !== undefined ? valueCount > nullCount : undefined,
    };
    return mayMatch(p, range);
  });
}

/** Where a sentence names the table. */
export interface PlanContext {
  readonly metadata: TableMetadata;
  /** The schema the filter was bound to (field types of bounds). */
  readonly schema: IcebergSchema;
  readonly filter: readonly BoundPredicate[];
  readonly splitBytes: number;
  readonly where: string;
  /** The catalog's FileIO, which reads the table's files. */
  readonly io: IcebergFileIO;
}

function specsOf(m: TableMetadata): Map<number, PartitionSpec> {
  return new Map(m['partition-specs'].map((s) => [s['spec-id'], s]));
}

/** The data files of a snapshot with the delete files that apply to each, pruned by the filter. */
export async function planSnapshot(ctx: PlanContext, snapshot: Snapshot): Promise<{ tasks: ScanTask[]; stats: PlanStats }> {
  const stats = newStats();
  const { records: manifests } = await readAvroFile(await ctx.io.read(snapshot['manifest-list']));
  const specs = specsOf(ctx.metadata);
  const fields = new Map(ctx.schema.fields.map((f) => [f.id, f]));
  const data: Entry[] = [];
  const deletes: Entry[] = [];
  for (const manifest of manifests) {
    const spec = specs.get(num(manifest.partition_spec_id));
    if (!spec)
      throw new Error(`${ctx.where}: a manifest has partition spec ${num(manifest.partition_spec_id)}, which the table does not have.`);
    const projected = projectOnSpec(ctx.filter, spec, fields);
    const isDeletes = num(manifest.content) === 1;
    if (!isDeletes && !manifestMayMatch(manifest, projected)) {
      stats.manifestsSkipped++;
      continue;
    }
    stats.manifests++;
    const names = spec.fields.map((f) => f.name);
    for (const e of await manifestEntries(ctx.io, manifest)) {
      if (e.status === 2) continue; // deleted from the table by this manifest's snapshot
      if (isDeletes) {
        deletes.push(e);
        continue;
      }
      if (!fileMayMatch(e.file, projected, ctx.filter, names)) {
        stats.dataFilesSkipped++;
        continue;
      }
      data.push(e);
    }
  }
  stats.deleteFiles = deletes.length;
  const tasks: ScanTask[] = [];
  for (const e of data) {
    stats.dataFiles++;
    tasks.push(...(await splitsOf(ctx, e, deletesFor(e, deletes, specs), stats)));
  }
  stats.splits = tasks.length;
  return { tasks, stats };
}

/** The delete files that apply to a data file (the table spec's scan planning rules). */
export function deletesFor(data: Entry, deletes: readonly Entry[], specs: ReadonlyMap<number, PartitionSpec>): DeleteRef[] {
  const out: DeleteRef[] = [];
  for (const d of deletes) {
    const content = num(d.file.content) as 1 | 2;
    if (content === 1) {
      if (d.dataSeq < data.dataSeq || d.partitionKey !== data.partitionKey) continue;
      const ref = d.file.referenced_data_file;
      if (typeof ref === 'string' && ref !== data.file.file_path) continue;
    } else {
      if (d.dataSeq <= data.dataSeq) continue;
      const global = (specs.get(d.specId)?.fields.length ?? 0) === 0;
      if (!global && d.partitionKey !== data.partitionKey) continue;
    }
    out.push({
      path: String(d.file.file_path),
      size: num(d.file.file_size_in_bytes),
      content,
      format: fileFormatOf(d.file.file_format, String(d.file.file_path)),
      ...(content === 2 ? { equalityIds: ((d.file.equality_ids as number[] | null) ?? []).map(Number) } : {}),
    });
  }
  return out;
}

/** A data file's splits: the whole file, or runs of row groups (ORC: stripes) of at most splitBytes when it is larger. */
async function splitsOf(ctx: PlanContext, e: Entry, deletes: DeleteRef[], stats: PlanStats): Promise<ScanTask[]> {
  const path = String(e.file.file_path);
  const size = num(e.file.file_size_in_bytes);
  const records = num(e.file.record_count);
  const format = fileFormatOf(e.file.file_format, path);
  const whole: ScanTask = { path, size, records, deletes, format };
  if (size <= ctx.splitBytes || format === 'AVRO') return [whole]; // an Avro file is one split (its blocks carry no index)
  // row group (stripe) sizes: from the manifest's split offsets, else from the file's footer
  let groupBytes: number[];
  const offsets = (e.file.split_offsets as bigint[] | null)?.map(Number);
  if (offsets && offsets.length > 0) {
    groupBytes = offsets.map((o, i) => (i + 1 < offsets.length ? offsets[i + 1] : size) - o);
  } else if (format === 'ORC') {
    stats.footersRead++;
    groupBytes = await orcStripeBytes(ctx.io, path, size);
  } else {
    stats.footersRead++;
    const meta = await parquetMetadataAsync({
      byteLength: size,
      slice: async (start, end) => {
        const b = await ctx.io.readRange(path, start, end ?? size);
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      },
    });
    groupBytes = meta.row_groups.map((g) => Number(g.total_compressed_size ?? g.total_byte_size));
  }
  if (groupBytes.length <= 1) return [whole];
  const out: ScanTask[] = [];
  let first = 0;
  let bytes = 0;
  for (let i = 0; i < groupBytes.length; i++) {
    if (i > first && bytes + groupBytes[i] > ctx.splitBytes) {
      out.push({ ...whole, rowGroups: [first, i] });
      first = i;
      bytes = 0;
    }
    bytes += groupBytes[i];
  }
  out.push({ ...whole, rowGroups: [first, groupBytes.length] });
  return out;
}

/** The snapshots after `from` (exclusive, undefined: from the start) up to `to` (inclusive), oldest first, along `to`'s ancestry. */
export function snapshotsBetween(m: TableMetadata, from: bigint | undefined, to: Snapshot, where: string): Snapshot[] {
  const byId = new Map((m.snapshots ?? []).map((s) => [s['snapshot-id'], s]));
  const out: Snapshot[] = [];
  let s: Snapshot | undefined = to;
  while (s && s['snapshot-id'] !== from) {
    out.push(s);
    const parent: bigint | undefined = s['parent-snapshot-id'];
    s = parent === undefined ? undefined : byId.get(parent);
  }
  if (from !== undefined && !s) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where}: snapshot ${from} is not an ancestor of snapshot ${to['snapshot-id']}: there is no incremental range between them.`,
    );
  }
  return out.reverse();
}

/** The data files the append snapshots of `snapshots` added (Iceberg's incremental append scan), pruned by the filter. */
export async function planAppends(ctx: PlanContext, snapshots: readonly Snapshot[]): Promise<{ tasks: ScanTask[]; stats: PlanStats }> {
  const stats = newStats();
  const specs = specsOf(ctx.metadata);
  const fields = new Map(ctx.schema.fields.map((f) => [f.id, f]));
  const tasks: ScanTask[] = [];
  for (const snapshot of snapshots) {
    if (snapshot.summary.operation !== 'append') continue;
    const id = snapshot['snapshot-id'];
    const { records: manifests } = await readAvroFile(await ctx.io.read(snapshot['manifest-list']));
    for (const manifest of manifests) {
      if (manifest.added_snapshot_id !== id || num(manifest.content) !== 0) continue;
      const spec = specs.get(num(manifest.partition_spec_id));
      if (!spec)
        throw new Error(`${ctx.where}: a manifest has partition spec ${num(manifest.partition_spec_id)}, which the table does not have.`);
      const projected = projectOnSpec(ctx.filter, spec, fields);
      if (!manifestMayMatch(manifest, projected)) {
        stats.manifestsSkipped++;
        continue;
      }
      stats.manifests++;
      const names = spec.fields.map((f) => f.name);
      for (const e of await manifestEntries(ctx.io, manifest)) {
        if (e.status !== 1 || e.snapshotId !== id) continue;
        if (!fileMayMatch(e.file, projected, ctx.filter, names)) {
          stats.dataFilesSkipped++;
          continue;
        }
        stats.dataFiles++;
        tasks.push(...(await splitsOf(ctx, e, [], stats)));
      }
    }
  }
  stats.splits = tasks.length;
  return { tasks, stats };
}

/** Adds a plan's stats to the process counters and logs them. */
export function recordPlan(stats: PlanStats, what: string, where: string): void {
  for (const k of Object.keys(stats) as (keyof PlanStats)[]) scanCounters[k] += stats[k];
  log.info({ table: where, ...stats }, `planned ${what}`);
}
