import { randomUUID } from 'node:crypto';
import type { SinkAggregatedCommitter } from '@tideway/api';
import { ErrorCode, logger, TidewayError } from '@tideway/common';
import { decimalByteCount } from '@tideway/connector-file-common';
import { type AvroPartitionField, avroFile, MANIFEST_FILE_SCHEMA, manifestEntrySchema, readAvroFile } from './avro.js';
import { AvroSchemaBuilder, fixedDecimal } from './data-encoders.js';
import { CommitConflict, formatIdent, type IcebergCatalog, joinLocation, type LoadedTable, type TableIdent } from './catalog.js';
import type { IcebergFileIO } from './file-io.js';
import {
  ancestry,
  currentSchema,
  currentSnapshot,
  newSnapshotId,
  type PartitionSpec,
  type Snapshot,
  type TableMetadata,
  withSnapshot,
} from './metadata.js';
import { type IcebergField, typeText } from './schema.js';
import { resultType } from './transforms.js';
import { compareInternal, type Internal, serializeValue } from './values.js';
import type { IcebergCommitInfo, PreparedFile } from './writer.js';

const log = logger('iceberg-committer');

/** Snapshot summary properties naming the job and the last checkpoint it committed (as Flink's flink.job-id / flink.max-committed-checkpoint-id). */
export const JOB_ID_PROPERTY = 'tideway.job-id';
export const MAX_CHECKPOINT_PROPERTY = 'tideway.max-committed-checkpoint-id';

/** Attempts of one commit that loses races to other writers before it fails. */
export const COMMIT_ATTEMPTS = 8;

/** The head snapshot of `branch`: main's current snapshot, a branch ref's, or main's for a branch not created yet (it forks from there). */
export function branchHead(m: TableMetadata, branch: string): Snapshot | undefined {
  const ref = branch === 'main' ? undefined : m.refs?.[branch];
  if (!ref) return currentSnapshot(m);
  return m.snapshots?.find((s) => s['snapshot-id'] === ref['snapshot-id']);
}

/** `branch`'s head and its ancestors, newest first. */
function* branchAncestry(m: TableMetadata, branch: string): Generator<Snapshot> {
  if (branch === 'main') {
    yield* ancestry(m);
    return;
  }
  const byId = new Map((m.snapshots ?? []).map((s) => [s['snapshot-id'], s]));
  for (let s = branchHead(m, branch); s; ) {
    yield s;
    const parent = s['parent-snapshot-id'];
    s = parent === undefined ? undefined : byId.get(parent);
  }
}

/** The checkpoint `jobId` committed last to this table's `branch` (main by default), by the snapshots of its ancestry (-1: none). */
export function maxCommittedCheckpoint(m: TableMetadata, jobId: string, branch = 'main'): number {
  for (const s of branchAncestry(m, branch)) {
    if (s.summary[JOB_ID_PROPERTY] === jobId) return Number(s.summary[MAX_CHECKPOINT_PROPERTY] ?? -1);
  }
  return -1;
}

/** The next metadata: `snapshot` added as the head of `branch` (main: also the table's current snapshot). */
export function withBranchSnapshot(m: TableMetadata, snapshot: Snapshot, previousFile: string, branch: string): TableMetadata {
  if (branch === 'main') return withSnapshot(m, snapshot, previousFile);
  return {
    ...m,
    'last-sequence-number': snapshot['sequence-number'],
    'last-updated-ms': snapshot['timestamp-ms'],
    snapshots: [...(m.snapshots ?? []), snapshot],
    'metadata-log': [...(m['metadata-log'] ?? []), { 'timestamp-ms': m['last-updated-ms'], 'metadata-file': previousFile }],
    refs: { ...(m.refs ?? {}), [branch]: { 'snapshot-id': snapshot['snapshot-id'], type: 'branch' } },
  };
}

/** A partition value of a commit info (bigints as text) in Iceberg's internal form. */
function partitionInternal(type: string, v: string | number | boolean | null): Internal | null {
  if (v === null) return null;
  return type === 'long' || type === 'time' || type === 'timestamp' || type.startsWith('decimal') ? BigInt(v) : v;
}

/** A partition value as Avro takes it. */
function partitionAvroValue(type: string, v: Internal | null): unknown {
  if (v === null) return null;
  if (type.startsWith('decimal')) return fixedDecimal(v as bigint, decimalByteCount(Number(/^decimal\((\d+)/.exec(type)![1])));
  return v;
}

interface SpecField {
  readonly spec: PartitionSpec['fields'][number];
  /** The Iceberg type of the field's partition values (the transform's result type). */
  readonly valueType: string;
}

/** The partition fields of spec `specId` with the types of their values. */
function specFields(m: TableMetadata, specId: number): SpecField[] {
  const spec = m['partition-specs'].find((s) => s['spec-id'] === specId);
  if (!spec) throw new Error(`The table at ${m.location} has no partition spec ${specId}.`);
  const fields = new Map(currentSchema(m).fields.map((f): [number, IcebergField] => [f.id, f]));
  return spec.fields.map((f) => ({
    spec: f,
    valueType: resultType(f.transform, typeText(fields.get(f['source-id'])?.type ?? 'unknown')),
  }));
}

/**
 * Writes manifests of `files` added by snapshot `snapshotId` (data and deletes apart, per spec)
 * and returns their manifest list records without sequence numbers (the caller sets them). The
 * entries inherit the snapshot's sequence number, or carry `dataSequence` when given (a
 * compaction's files keep the sequence number of the snapshot it started from, so equality
 * deletes committed meanwhile still apply to them).
 */
export async function writeAddedManifests(
  io: IcebergFileIO,
  m: TableMetadata,
  files: readonly PreparedFile[],
  snapshotId: bigint,
  dataSequence?: number,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const groups = new Map<string, PreparedFile[]>();
  for (const f of files) {
    const k = `${f.content}-${f.specId}`;
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  const schema = currentSchema(m);
  for (const files of groups.values()) {
    const { content, specId } = files[0];
    const fields = specFields(m, specId);
    const types = new AvroSchemaBuilder();
    const avroFields: AvroPartitionField[] = fields.map((f) => ({
      name: f.spec.name,
      fieldId: f.spec['field-id'],
      type: types.type(f.valueType, f.spec['field-id']),
    }));
    const entries = files.map((f) => ({
      status: 1,
      snapshot_id: snapshotId,
      sequence_number: dataSequence === undefined ? null : BigInt(dataSequence),
      file_sequence_number: null,
      data_file: {
        content: f.content,
        file_path: f.path,
        file_format: f.format ?? 'PARQUET',
        partition: Object.fromEntries(
          fields.map((sf, i) => [sf.spec.name, partitionAvroValue(sf.valueType, partitionInternal(sf.valueType, f.partition[i]))]),
        ),
        record_count: BigInt(f.recordCount),
        file_size_in_bytes: BigInt(f.fileSize),
        column_sizes: null,
        value_counts: f.valueCounts.map(([key, value]) => ({ key, value: BigInt(value) })),
        null_value_counts: f.nullCounts.map(([key, value]) => ({ key, value: BigInt(value) })),
        nan_value_counts: null,
        lower_bounds: f.lower.map(([key, value]) => ({ key, value: Buffer.from(value, 'base64') })),
        upper_bounds: f.upper.map(([key, value]) => ({ key, value: Buffer.from(value, 'base64') })),
        key_metadata: null,
        split_offsets: null,
        equality_ids: f.equalityIds ? [...f.equalityIds] : null,
        sort_order_id: f.content === 0 ? 0 : null,
      },
    }));
    const spec = m['partition-specs'].find((s) => s['spec-id'] === specId)!;
    const bytes = avroFile(manifestEntrySchema(avroFields), entries, {
      schema: JSON.stringify(schema),
      'schema-id': String(schema['schema-id']),
      'partition-spec': JSON.stringify(spec.fields),
      'partition-spec-id': String(specId),
      'format-version': '2',
      content: content === 0 ? 'data' : 'deletes',
    });
    const path = joinLocation(m.location, `metadata/${randomUUID()}-m0.avro`);
    await io.write(path, bytes);
    out.push({
      manifest_path: path,
      manifest_length: BigInt(bytes.length),
      partition_spec_id: specId,
      content: content === 0 ? 0 : 1,
      added_snapshot_id: snapshotId,
      added_files_count: files.length,
      existing_files_count: 0,
      deleted_files_count: 0,
      added_rows_count: BigInt(files.reduce((n, f) => n + f.recordCount, 0)),
      existing_rows_count: 0n,
      deleted_rows_count: 0n,
      partitions: fields.map((sf, i) =>
        summary(
          sf.valueType,
          files.map((f) => partitionInternal(sf.valueType, f.partition[i])),
        ),
      ),
      key_metadata: null,
    });
  }
  return out;
}

/** The commit of one checkpoint's files: its manifests (written once), then snapshots tried until one lands. */
class PendingCommit {
  private manifests?: Record<string, unknown>[];

  constructor(
    private readonly info: IcebergCommitInfo,
    private readonly snapshotId: bigint,
    private readonly io: IcebergFileIO,
    private readonly branch: string,
  ) {}

  /** Writes the manifests of the files once; their entries inherit the snapshot's id and sequence number. */
  private async writeManifests(m: TableMetadata): Promise<Record<string, unknown>[]> {
    this.manifests ??= await writeAddedManifests(this.io, m, this.info.files, this.snapshotId);
    return this.manifests;
  }

  /** The next metadata: a snapshot whose manifest list has the new manifests and the parent's. */
  async nextMetadata(table: LoadedTable): Promise<TableMetadata> {
    const m = table.metadata;
    const manifests = await this.writeManifests(m);
    const parent = branchHead(m, this.branch);
    const carried = parent ? (await readAvroFile(await this.io.read(parent['manifest-list']))).records : [];
    const seq = m['last-sequence-number'] + 1;
    const list = [...manifests.map((x) => ({ ...x, sequence_number: BigInt(seq), min_sequence_number: BigInt(seq) })), ...carried];
    const listPath = joinLocation(m.location, `metadata/snap-${this.snapshotId}-${seq}-${randomUUID()}.avro`);
    await this.io.write(
      listPath,
      avroFile(MANIFEST_FILE_SCHEMA, list, {
        'snapshot-id': String(this.snapshotId),
        'parent-snapshot-id': parent ? String(parent['snapshot-id']) : 'null',
        'sequence-number': String(seq),
        'format-version': '2',
      }),
    );
    const snapshot: Snapshot = {
      'snapshot-id': this.snapshotId,
      ...(parent ? { 'parent-snapshot-id': parent['snapshot-id'] } : {}),
      'sequence-number': seq,
      'timestamp-ms': Math.max(Date.now(), m['last-updated-ms']),
      'manifest-list': listPath,
      summary: this.summary(parent),
      'schema-id': m['current-schema-id'],
    };
    return withBranchSnapshot(m, snapshot, table.metadataLocation, this.branch);
  }

  private summary(parent: Snapshot | undefined): Record<string, string> {
    const data = this.info.files.filter((f) => f.content === 0);
    const deletes = this.info.files.filter((f) => f.content === 2);
    const sum = (fs: readonly PreparedFile[], k: 'recordCount' | 'fileSize'): number => fs.reduce((n, f) => n + f[k], 0);
    const added: Record<string, number> = {
      'added-data-files': data.length,
      'added-records': sum(data, 'recordCount'),
      'added-files-size': sum(this.info.files, 'fileSize'),
      'added-delete-files': deletes.length,
      'added-equality-delete-files': deletes.length,
      'added-equality-deletes': sum(deletes, 'recordCount'),
    };
    const prev = parent?.summary ?? {};
    const total = (name: string, add: number): [string, string][] => {
      const before = parent ? prev[name] : '0';
      return before === undefined ? [] : [[name, String(Number(before) + add)]];
    };
    return {
      operation: deletes.length ? 'overwrite' : 'append',
      ...Object.fromEntries(
        Object.entries(added)
          .filter(([, v]) => v > 0)
          .map(([k, v]) => [k, String(v)]),
      ),
      ...Object.fromEntries([
        ...total('total-records', added['added-records']),
        ...total('total-data-files', data.length),
        ...total('total-delete-files', deletes.length),
        ...total('total-equality-deletes', added['added-equality-deletes']),
        ...total('total-position-deletes', 0),
        ...total('total-files-size', added['added-files-size']),
      ]),
      [JOB_ID_PROPERTY]: this.info.jobId,
      [MAX_CHECKPOINT_PROPERTY]: String(this.info.checkpointId),
    };
  }
}

/** A manifest list's field summary of one partition field over the files' values. */
function summary(type: string, values: readonly (Internal | null)[]): Record<string, unknown> {
  let lo: Internal | undefined;
  let hi: Internal | undefined;
  for (const v of values) {
    if (v === null) continue;
    if (lo === undefined || compareInternal(v, lo) < 0) lo = v;
    if (hi === undefined || compareInternal(v, hi) > 0) hi = v;
  }
  return {
    contains_null: values.includes(null),
    contains_nan: type === 'float' || type === 'double' ? values.some((v) => Number.isNaN(v)) : null,
    lower_bound: lo === undefined ? null : Buffer.from(serializeValue(type, lo)),
    upper_bound: hi === undefined ? null : Buffer.from(serializeValue(type, hi)),
  };
}

/**
 * Commits each checkpoint's files as one snapshot of the table (append, or overwrite when it
 * has equality deletes), on the coordinator. Idempotent: the snapshot's summary names the job and
 * the checkpoint, and a checkpoint at or below the last one the job committed (in the table's
 * current ancestry) is skipped, so a restore that commits a checkpoint again changes nothing. A
 * commit that loses a race to another writer is redone on the table's new metadata, up to
 * COMMIT_ATTEMPTS times, then fails the commit with one sentence.
 */
export class IcebergCommitter implements SinkAggregatedCommitter<IcebergCommitInfo, IcebergCommitInfo> {
  constructor(
    private readonly catalog: IcebergCatalog,
    private readonly ident: TableIdent,
    /** The branch snapshots are committed to (iceberg.table.commit-branch; main by default). */
    private readonly branch = 'main',
  ) {}

  combine(infos: IcebergCommitInfo[]): IcebergCommitInfo {
    const first = infos[0];
    return {
      jobId: first?.jobId ?? '',
      checkpointId: Math.max(-1, ...infos.map((i) => i.checkpointId)),
      files: infos.flatMap((i) => i.files),
    };
  }

  async commit(infos: IcebergCommitInfo[]): Promise<IcebergCommitInfo[]> {
    for (const info of [...infos].sort((a, b) => a.checkpointId - b.checkpointId)) {
      if (info.files.length) await this.commitOne(info);
    }
    return [];
  }

  private async commitOne(info: IcebergCommitInfo): Promise<void> {
    const pending = new PendingCommit(info, newSnapshotId(), this.catalog.io, this.branch);
    const name = formatIdent(this.ident);
    for (let attempt = 1; ; attempt++) {
      const table = await this.catalog.load(this.ident);
      if (!table)
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Iceberg table ${name} is gone from the ${this.catalog.description}: checkpoint ${info.checkpointId} cannot be committed.`,
        );
      if (maxCommittedCheckpoint(table.metadata, info.jobId, this.branch) >= info.checkpointId) {
        log.info({ table: name, checkpoint: info.checkpointId }, 'checkpoint already committed: skipped');
        return;
      }
      try {
        await this.catalog.commit(this.ident, table, await pending.nextMetadata(table));
        log.debug({ table: name, checkpoint: info.checkpointId, files: info.files.length, attempt }, 'snapshot committed');
        return;
      } catch (err) {
        if (!(err instanceof CommitConflict)) throw err;
        if (attempt >= COMMIT_ATTEMPTS) {
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `Iceberg table ${name}: checkpoint ${info.checkpointId} lost ${attempt} commit races in a row to other writers of the ${this.catalog.description}; giving up (the next restore commits it again).`,
            { retryable: true },
          );
        }
        await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random())));
      }
    }
  }

  /** Drops the files of checkpoints that will never be committed. */
  async abort(infos: IcebergCommitInfo[]): Promise<void> {
    const table = await this.catalog.load(this.ident);
    for (const info of infos) {
      // a checkpoint the table holds keeps its files, whatever the caller thinks
      if (table && maxCommittedCheckpoint(table.metadata, info.jobId, this.branch) >= info.checkpointId) continue;
      for (const f of info.files) await this.catalog.io.delete(f.path);
    }
  }

  async close(): Promise<void> {
    await this.catalog.close();
  }
}
