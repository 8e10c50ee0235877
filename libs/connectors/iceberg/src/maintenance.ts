import { randomUUID } from 'node:crypto';
import type { Row } from '@tideway/api';
import { newCatalogTable } from '@tideway/api';
import { ErrorCode, logger, TidewayError } from '@tideway/common';
import { avroFile, MANIFEST_FILE_SCHEMA, readAvroFile } from './avro.js';
import { CommitConflict, formatIdent, type IcebergCatalog, joinLocation, type LoadedTable, type TableIdent } from './catalog.js';
import { COMMIT_ATTEMPTS, writeAddedManifests } from './committer.js';
import { type IcebergFileIO, localPathOf } from './file-io.js';
import { ancestry, currentSchema, currentSnapshot, newSnapshotId, type Snapshot, type TableMetadata, withSnapshot } from './metadata.js';
import { DEFAULT_TARGET_FILE_BYTES, type IcebergSinkSettings } from './options.js';
import { engineTypeOf } from './read-schema.js';
import { fileFormatOf } from './data-format.js';
import { DataFileReader, type ReadPlan } from './reader.js';
import { deletesFor, type Entry, manifestEntries } from './scan.js';
import { IcebergWriter } from './writer.js';

/**
 * Table maintenance (`tideway iceberg <action>`): expiring old snapshots, removing orphan files and
 * compacting small data files with their deletes folded in. Every change of metadata is committed
 * through the catalog with the committer's optimistic concurrency (a lost race is redone on the
 * table's new metadata, COMMIT_ATTEMPTS times at most); files are deleted only after the commit
 * that stops referencing them landed, and only when no remaining snapshot reaches them.
 */

const log = logger('iceberg-maintenance');

/** Iceberg's default of remove-orphan-files' older-than: 3 days. */
export const DEFAULT_ORPHAN_AGE_MS = 3 * 24 * 3600 * 1000;
/** Iceberg's default of rewrite-data-files' min-input-files. */
export const DEFAULT_MIN_INPUT_FILES = 5;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** A location in one comparable form: a local path, or s3://bucket/key whatever the s3 scheme. */
export function locationKey(location: string): string {
  const local = localPathOf(location);
  if (local !== undefined) return local.replace(/\/{2,}/g, '/');
  return location.replace(/^s3[an]?:\/\//i, 's3://');
}

/** What a set of snapshots reaches: manifest lists, manifests, data and delete files (location keys). */
interface Reach {
  readonly manifestLists: Set<string>;
  readonly manifests: Set<string>;
  readonly dataFiles: Set<string>;
  readonly deleteFiles: Set<string>;
}

/** Reads what snapshots reach, caching each manifest's files (manifests are immutable). */
class Reachability {
  private readonly lists = new Map<string, Promise<Record<string, unknown>[]>>();
  private readonly manifests = new Map<string, Promise<{ data: string[]; deletes: string[] }>>();

  constructor(private readonly io: IcebergFileIO) {}

  private listOf(location: string): Promise<Record<string, unknown>[]> {
    let p = this.lists.get(location);
    if (!p) {
      p = this.io.read(location).then(async (b) => (await readAvroFile(b)).records);
      this.lists.set(location, p);
    }
    return p;
  }

  private filesOf(manifest: Record<string, unknown>): Promise<{ data: string[]; deletes: string[] }> {
    const path = String(manifest.manifest_path);
    let p = this.manifests.get(path);
    if (!p) {
      p = manifestEntries(this.io, manifest).then((entries) => {
        const out = { data: [] as string[], deletes: [] as string[] };
        // a deleted entry is not needed by this snapshot (the one before it, where the file was live, reaches it)
        for (const e of entries) {
          if (e.status !== 2) (num(e.file.content) === 0 ? out.data : out.deletes).push(locationKey(String(e.file.file_path)));
        }
        return out;
      });
      this.manifests.set(path, p);
    }
    return p;
  }

  async of(snapshots: readonly Snapshot[]): Promise<Reach> {
    const reach: Reach = { manifestLists: new Set(), manifests: new Set(), dataFiles: new Set(), deleteFiles: new Set() };
    for (const s of snapshots) {
      reach.manifestLists.add(locationKey(s['manifest-list']));
      for (const m of await this.listOf(s['manifest-list'])) {
        const key = locationKey(String(m.manifest_path));
        if (reach.manifests.has(key)) continue;
        reach.manifests.add(key);
        const files = await this.filesOf(m);
        for (const f of files.data) reach.dataFiles.add(f);
        for (const f of files.deletes) reach.deleteFiles.add(f);
      }
    }
    return reach;
  }
}

/** Commits `change(table)` on the table as it is now, redone on the new metadata after a lost race. */
async function commitWithRetry<T>(
  catalog: IcebergCatalog,
  ident: TableIdent,
  what: string,
  change: (table: LoadedTable) => Promise<{ next: TableMetadata; result: T } | undefined>,
): Promise<{ base: LoadedTable; committed?: LoadedTable; result?: T }> {
  const name = formatIdent(ident);
  for (let attempt = 1; ; attempt++) {
    const table = await catalog.load(ident);
    if (!table) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `Iceberg table ${name} does not exist in the ${catalog.description}.`);
    const planned = await change(table);
    if (!planned) return { base: table };
    try {
      const committed = await catalog.commit(ident, table, planned.next);
      return { base: table, committed, result: planned.result };
    } catch (err) {
      if (!(err instanceof CommitConflict)) throw err;
      if (attempt >= COMMIT_ATTEMPTS) {
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Iceberg table ${name}: ${what} lost ${attempt} commit races in a row to other writers of the ${catalog.description}; giving up (nothing was deleted).`,
          { retryable: true },
        );
      }
      log.debug({ table: name, attempt }, `${what}: commit race lost, redone`);
      await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random())));
    }
  }
}

/** Deletes files, counting them; progress is logged every 1000. */
async function deleteAll(io: IcebergFileIO, locations: Iterable<string>, table: string): Promise<number> {
  let n = 0;
  for (const l of locations) {
    await io.delete(l);
    if (++n % 1000 === 0) log.info({ table, deleted: n }, 'deleting files');
  }
  return n;
}

export interface ExpireOptions {
  /** Snapshots committed before this time (ms since the epoch) are expired. */
  readonly olderThanMs: number;
  /** The newest snapshots of main's history kept whatever their age (Iceberg's retain-last, default 1). */
  readonly retainLast?: number;
}

export interface ExpireResult {
  readonly expiredSnapshots: number;
  readonly deletedManifestLists: number;
  readonly deletedManifests: number;
  readonly deletedDataFiles: number;
  readonly deletedDeleteFiles: number;
}

/**
 * Expires the snapshots older than the cutoff except the current one, the head of every branch
 * and tag, and the newest `retainLast` of main's history; commits the metadata without them;
 * then deletes the manifest lists, manifests, data and delete files that the expired snapshots
 * reached and no remaining snapshot (of any branch) does.
 */
export async function expireSnapshots(catalog: IcebergCatalog, ident: TableIdent, opts: ExpireOptions): Promise<ExpireResult> {
  const name = formatIdent(ident);
  const retainLast = opts.retainLast ?? 1;
  const { committed, result } = await commitWithRetry(catalog, ident, 'expire-snapshots', async (table) => {
    const m = table.metadata;
    const keep = new Set<bigint>();
    const current = currentSnapshot(m);
    if (current) keep.add(current['snapshot-id']);
    for (const ref of Object.values(m.refs ?? {})) keep.add(ref['snapshot-id']);
    let i = 0;
    for (const s of ancestry(m)) if (i++ < retainLast) keep.add(s['snapshot-id']);
    const expired = (m.snapshots ?? []).filter((s) => !keep.has(s['snapshot-id']) && s['timestamp-ms'] < opts.olderThanMs);
    if (expired.length === 0) return undefined;
    const gone = new Set(expired.map((s) => s['snapshot-id']));
    const next: TableMetadata = {
      ...m,
      'last-updated-ms': Math.max(Date.now(), m['last-updated-ms']),
      snapshots: (m.snapshots ?? []).filter((s) => !gone.has(s['snapshot-id'])),
      'snapshot-log': (m['snapshot-log'] ?? []).filter((e) => !gone.has(e['snapshot-id'])),
      'metadata-log': [...(m['metadata-log'] ?? []), { 'timestamp-ms': m['last-updated-ms'], 'metadata-file': table.metadataLocation }],
    };
    return { next, result: expired };
  });
  if (!committed || !result) {
    log.info({ table: name }, 'no snapshot to expire');
    return { expiredSnapshots: 0, deletedManifestLists: 0, deletedManifests: 0, deletedDataFiles: 0, deletedDeleteFiles: 0 };
  }
  const reach = new Reachability(catalog.io);
  const before = await reach.of(result);
  // what every snapshot of the committed table reaches (a writer may have added one meanwhile)
  const after = await reach.of(committed.metadata.snapshots ?? []);
  const only = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x));
  const lists = only(before.manifestLists, after.manifestLists);
  const manifests = only(before.manifests, after.manifests);
  const data = only(before.dataFiles, after.dataFiles);
  const deletes = only(before.deleteFiles, after.deleteFiles);
  // data files first, metadata last: a failure half way leaves orphans (remove-orphan-files finds them), never a dangling reference
  const out: ExpireResult = {
    expiredSnapshots: result.length,
    deletedDataFiles: await deleteAll(catalog.io, data, name),
    deletedDeleteFiles: await deleteAll(catalog.io, deletes, name),
    deletedManifests: await deleteAll(catalog.io, manifests, name),
    deletedManifestLists: await deleteAll(catalog.io, lists, name),
  };
  log.info({ table: name, ...out }, 'snapshots expired');
  return out;
}

export interface OrphanOptions {
  /** Only files written before this time (ms since the epoch) are removed (a write in progress has newer ones). */
  readonly olderThanMs: number;
}

export interface OrphanResult {
  readonly listedFiles: number;
  readonly removedFiles: readonly string[];
}

/**
 * Deletes the files under the table's location that neither its metadata nor any snapshot
 * reaches and that were written before the cutoff. Metadata JSON files and the hadoop catalog's
 * version-hint.text are never removed (the catalog's history), nor statistics files the metadata
 * names.
 */
export async function removeOrphanFiles(catalog: IcebergCatalog, ident: TableIdent, opts: OrphanOptions): Promise<OrphanResult> {
  const name = formatIdent(ident);
  const table = await catalog.load(ident);
  if (!table) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `Iceberg table ${name} does not exist in the ${catalog.description}.`);
  const m = table.metadata;
  const listed = await catalog.io.list(m.location);
  log.info({ table: name, files: listed.length }, 'table location listed');
  const reach = await new Reachability(catalog.io).of(m.snapshots ?? []);
  const known = new Set([...reach.manifestLists, ...reach.manifests, ...reach.dataFiles, ...reach.deleteFiles]);
  known.add(locationKey(table.metadataLocation));
  for (const e of m['metadata-log'] ?? []) known.add(locationKey(e['metadata-file']));
  for (const k of ['statistics', 'partition-statistics']) {
    for (const s of (m[k] as { 'statistics-path'?: string }[] | undefined) ?? []) {
      if (s['statistics-path']) known.add(locationKey(s['statistics-path']));
    }
  }
  const orphans = listed.filter(
    (f) =>
      f.modifiedMs < opts.olderThanMs &&
      !known.has(locationKey(f.location)) &&
      !/\.metadata\.json$/.test(f.location) &&
      !f.location.endsWith('/version-hint.text'),
  );
  const removed = orphans.map((f) => f.location);
  await deleteAll(catalog.io, removed, name);
  log.info({ table: name, listed: listed.length, removed: removed.length }, 'orphan files removed');
  return { listedFiles: listed.length, removedFiles: removed };
}

export interface RewriteOptions {
  /** The size of the files written (default: the table's write.target-file-size-bytes, else 512 MiB). */
  readonly targetFileBytes?: number;
  /** A partition is rewritten when it has at least this many files to rewrite (default 5). */
  readonly minInputFiles?: number;
}

export interface RewriteResult {
  readonly snapshotId?: bigint;
  readonly rewrittenDataFiles: number;
  readonly addedDataFiles: number;
  readonly removedDeleteFiles: number;
  readonly rewrittenPartitions: number;
}

/** A live entry of the snapshot planned on, with the manifest it is in. */
interface LiveEntry {
  readonly entry: Entry;
  readonly manifest: Record<string, unknown>;
}

async function liveEntries(io: IcebergFileIO, snapshot: Snapshot): Promise<{ manifests: Record<string, unknown>[]; entries: LiveEntry[] }> {
  const { records: manifests } = await readAvroFile(await io.read(snapshot['manifest-list']));
  const entries: LiveEntry[] = [];
  for (const manifest of manifests) {
    for (const entry of await manifestEntries(io, manifest)) if (entry.status !== 2) entries.push({ entry, manifest });
  }
  return { manifests, entries };
}

/**
 * Compacts the current snapshot's data files, per partition: the files smaller than the target
 * size or with deletes that apply to them, in partitions with at least `minInputFiles` such files,
 * are read with their deletes applied (the source's reader) and written again as files of the
 * target size (the sink's writer). One `replace` snapshot removes them and adds the new files,
 * whose data sequence number is the planned snapshot's: equality deletes committed by other
 * writers meanwhile still apply to them, and the deletes folded in do not. Delete files that no
 * longer apply to any remaining data file are removed from the snapshot too. Nothing is deleted
 * from storage: older snapshots still read the old files until they are expired.
 */
export async function rewriteDataFiles(catalog: IcebergCatalog, ident: TableIdent, opts: RewriteOptions = {}): Promise<RewriteResult> {
  const name = formatIdent(ident);
  const none: RewriteResult = { rewrittenDataFiles: 0, addedDataFiles: 0, removedDeleteFiles: 0, rewrittenPartitions: 0 };
  const start = await catalog.load(ident);
  if (!start) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `Iceberg table ${name} does not exist in the ${catalog.description}.`);
  const m = start.metadata;
  const snapshot = currentSnapshot(m);
  if (!snapshot) return none;
  const props = m.properties ?? {};
  const target = opts.targetFileBytes ?? Number(props['write.target-file-size-bytes'] ?? DEFAULT_TARGET_FILE_BYTES);
  const minInput = opts.minInputFiles ?? DEFAULT_MIN_INPUT_FILES;
  const specs = new Map(m['partition-specs'].map((s) => [s['spec-id'], s]));
  const { entries } = await liveEntries(catalog.io, snapshot);
  const data = entries.filter((e) => num(e.entry.file.content) === 0).map((e) => e.entry);
  const deletes = entries.filter((e) => num(e.entry.file.content) !== 0).map((e) => e.entry);
  const groups = new Map<string, { entry: Entry; deletes: ReturnType<typeof deletesFor> }[]>();
  for (const e of data) {
    const applying = deletesFor(e, deletes, specs);
    if (num(e.file.file_size_in_bytes) >= target && applying.length === 0) continue;
    groups.set(e.partitionKey, [...(groups.get(e.partitionKey) ?? []), { entry: e, deletes: applying }]);
  }
  const chosen = [...groups.values()].filter((g) => g.length >= minInput);
  if (chosen.length === 0) {
    log.info({ table: name, minInputFiles: minInput }, 'no partition has enough files to rewrite');
    return none;
  }
  const rewritten = new Set(chosen.flatMap((g) => g.map((x) => String(x.entry.file.file_path))));
  // the delete files that apply to no data file staying: the new files come after all of them
  const staying = data.filter((e) => !rewritten.has(String(e.file.file_path)));
  const stillApplying = new Set(staying.flatMap((e) => deletesFor(e, deletes, specs).map((d) => d.path)));
  const dropped = new Set(deletes.map((d) => String(d.file.file_path)).filter((p) => !stillApplying.has(p)));

  // read the files with their deletes applied, write them again through the sink's writer
  const schema = currentSchema(m);
  const where = `Iceberg table ${name}`;
  const columns = schema.fields.map((f) => ({
    name: f.name,
    type: engineTypeOf(f.type, `${where} column ${f.name}`),
    nullable: !f.required,
  }));
  const plan: ReadPlan = {
    fields: schema.fields.map((f) => ({ id: f.id, name: f.name, type: f.type })),
    output: columns.map((c, i) => ({ field: i, as: c.type })),
    filter: [],
  };
  const settings: IcebergSinkSettings = {
    catalogName: '',
    catalog: {},
    namespace: ident.namespace,
    table: ident.name,
    writeProps: {},
    primaryKeys: [],
    upsert: false,
    schemaEvolution: false,
    branch: 'main',
    partitionKeys: [],
    caseSensitive: true,
    schemaSaveMode: 'IGNORE',
    dataSaveMode: 'APPEND_DATA',
    targetFileBytes: target,
  };
  const catalogTable = newCatalogTable({ database: ident.namespace.join('.'), table: ident.name }, columns);
  const snapshotId = newSnapshotId();
  const writer = new IcebergWriter(
    settings,
    catalogTable,
    catalog,
    ident,
    `rewrite-${snapshotId}`,
    { subtaskIndex: 0, parallelism: 1 },
    true,
  );
  const reader = new DataFileReader(catalog.io);
  let rows = 0;
  let files;
  try {
    for (const group of chosen) {
      for (const { entry, deletes: applying } of group) {
        const task = {
          path: String(entry.file.file_path),
          size: num(entry.file.file_size_in_bytes),
          records: num(entry.file.record_count),
          deletes: applying,
          format: fileFormatOf(entry.file.file_format, String(entry.file.file_path)),
        };
        for await (const b of reader.read(task, plan, 0)) {
          const batch: Row[] = b.rows.map((fields) => ({ kind: '+I', tableId: catalogTable.tableId, fields }));
          await writer.write(batch);
          rows += batch.length;
        }
      }
      log.info({ table: name, rows }, 'rewriting data files');
    }
    files = (await writer.prepareCommit(0))?.files ?? [];
  } catch (err) {
    await writer.abortPrepare();
    throw err;
  }
  const startSeq = snapshot['sequence-number'];
  const removedSeen = { data: 0, deletes: 0 };
  let added: Record<string, unknown>[] | undefined;
  try {
    const { committed } = await commitWithRetry(catalog, ident, 'rewrite-data-files', async (table) => {
      const cm = table.metadata;
      const head = currentSnapshot(cm);
      if (!head) throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `${where}: its snapshots were removed while it was being compacted.`);
      const live = await liveEntries(catalog.io, head);
      const livePaths = new Set(live.entries.map((e) => String(e.entry.file.file_path)));
      const missing = [...rewritten].find((p) => !livePaths.has(p));
      if (missing) {
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `${where}: data file ${missing} was removed by another writer while it was being compacted; nothing was committed (run the compaction again).`,
        );
      }
      const newPositionDeletes = live.entries.find((e) => num(e.entry.file.content) === 1 && e.entry.dataSeq > startSeq);
      if (newPositionDeletes) {
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `${where}: another writer added position deletes (${String(newPositionDeletes.entry.file.file_path)}) while it was being compacted; nothing was committed (run the compaction again).`,
        );
      }
      const seq = cm['last-sequence-number'] + 1;
      added ??= await writeAddedManifests(catalog.io, cm, files, snapshotId, startSeq);
      const list: Record<string, unknown>[] = added.map((x) => ({
        ...x,
        sequence_number: BigInt(seq),
        min_sequence_number: BigInt(startSeq),
      }));
      removedSeen.data = 0;
      removedSeen.deletes = 0;
      for (const manifest of live.manifests) {
        const path = String(manifest.manifest_path);
        const inIt = live.entries.filter((e) => e.manifest === manifest);
        const touched = inIt.some((e) => rewritten.has(String(e.entry.file.file_path)) || dropped.has(String(e.entry.file.file_path)));
        if (!touched) {
          list.push(manifest);
          continue;
        }
        const rewrittenManifest = await rewriteManifest(
          catalog.io,
          cm,
          manifest,
          path,
          snapshotId,
          seq,
          (p) => rewritten.has(p) || dropped.has(p),
        );
        removedSeen.data += inIt.filter((e) => rewritten.has(String(e.entry.file.file_path))).length;
        removedSeen.deletes += inIt.filter((e) => dropped.has(String(e.entry.file.file_path))).length;
        list.push(rewrittenManifest);
      }
      const listPath = joinLocation(cm.location, `metadata/snap-${snapshotId}-${seq}-${randomUUID()}.avro`);
      await catalog.io.write(
        listPath,
        avroFile(MANIFEST_FILE_SCHEMA, list, {
          'snapshot-id': String(snapshotId),
          'parent-snapshot-id': String(head['snapshot-id']),
          'sequence-number': String(seq),
          'format-version': '2',
        }),
      );
      const liveData = live.entries.filter((e) => num(e.entry.file.content) === 0 && !rewritten.has(String(e.entry.file.file_path)));
      const liveDeletes = live.entries.filter((e) => num(e.entry.file.content) !== 0 && !dropped.has(String(e.entry.file.file_path)));
      const addedRecords = files.reduce((n, f) => n + f.recordCount, 0);
      const next: Snapshot = {
        'snapshot-id': snapshotId,
        'parent-snapshot-id': head['snapshot-id'],
        'sequence-number': seq,
        'timestamp-ms': Math.max(Date.now(), cm['last-updated-ms']),
        'manifest-list': listPath,
        summary: {
          operation: 'replace',
          'added-data-files': String(files.length),
          'deleted-data-files': String(removedSeen.data),
          'removed-delete-files': String(removedSeen.deletes),
          'added-records': String(addedRecords),
          'total-data-files': String(liveData.length + files.length),
          'total-delete-files': String(liveDeletes.length),
          'total-records': String(liveData.reduce((n, e) => n + num(e.entry.file.record_count), 0) + addedRecords),
        },
        'schema-id': cm['current-schema-id'],
      };
      return { next: withSnapshot(cm, next, table.metadataLocation), result: true };
    });
    if (!committed) throw new Error('unreachable: a compaction always commits');
  } catch (err) {
    for (const f of files) await catalog.io.delete(f.path);
    throw err;
  }
  const out: RewriteResult = {
    snapshotId,
    rewrittenDataFiles: rewritten.size,
    addedDataFiles: files.length,
    removedDeleteFiles: removedSeen.deletes,
    rewrittenPartitions: chosen.length,
  };
  log.info({ table: name, ...out, snapshotId: String(snapshotId), rows }, 'data files rewritten');
  return out;
}

/**
 * A manifest written again for the compaction's snapshot: the entries of `removed` files marked
 * deleted by it, the others kept as existing, every entry with its sequence numbers written out
 * (an existing entry no longer inherits them). The manifest's own Avro schema and header are kept.
 */
async function rewriteManifest(
  io: IcebergFileIO,
  m: TableMetadata,
  manifest: Record<string, unknown>,
  path: string,
  snapshotId: bigint,
  seq: number,
  removed: (path: string) => boolean,
): Promise<Record<string, unknown>> {
  const { records, metadata } = await readAvroFile(await io.read(path));
  const manifestSeq = BigInt(num(manifest.sequence_number));
  const inherited = manifest.added_snapshot_id as bigint;
  const out: Record<string, unknown>[] = [];
  let existing = 0;
  let deleted = 0;
  let existingRows = 0n;
  let deletedRows = 0n;
  let minSeq: bigint | undefined;
  for (const r of records) {
    if (num(r.status) === 2) continue; // deleted by an earlier snapshot: not part of this one
    const file = r.data_file as Record<string, unknown>;
    const dataSeq = (r.sequence_number as bigint | null) ?? manifestSeq;
    const fileSeq = (r.file_sequence_number as bigint | null) ?? manifestSeq;
    const gone = removed(String(file.file_path));
    out.push({
      ...r,
      status: gone ? 2 : 0,
      snapshot_id: gone ? snapshotId : (r.snapshot_id ?? inherited),
      sequence_number: dataSeq,
      file_sequence_number: fileSeq,
    });
    if (gone) {
      deleted++;
      deletedRows += BigInt(num(file.record_count));
    } else {
      existing++;
      existingRows += BigInt(num(file.record_count));
      if (minSeq === undefined || dataSeq < minSeq) minSeq = dataSeq;
    }
  }
  const header = Object.fromEntries(Object.entries(metadata).filter(([k]) => !k.startsWith('avro.')));
  const schema = JSON.parse(metadata['avro.schema']) as Record<string, unknown>;
  const bytes = avroFile(schema, out, header);
  const location = joinLocation(m.location, `metadata/${randomUUID()}-m0.avro`);
  await io.write(location, bytes);
  return {
    ...manifest,
    manifest_path: location,
    manifest_length: BigInt(bytes.length),
    sequence_number: BigInt(seq),
    min_sequence_number: minSeq ?? BigInt(seq),
    added_snapshot_id: snapshotId,
    added_files_count: 0,
    existing_files_count: existing,
    deleted_files_count: deleted,
    added_rows_count: 0n,
    existing_rows_count: existingRows,
    deleted_rows_count: deletedRows,
  };
}

/** A duration with its unit (`500ms`, `30s`, `15m`, `12h`, `3d`, `1w`) in ms; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2].toLowerCase() as 'ms'];
  return Number(m[1]) * unit;
}

/** A cutoff time from `--older-than`: a duration before `now`, or a timestamp (ISO 8601) or epoch milliseconds. */
export function cutoffOf(text: string, now: number): number | undefined {
  if (/^\d{12,}$/.test(text.trim())) return Number(text);
  const d = durationMs(text);
  if (d !== undefined) return now - d;
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}
