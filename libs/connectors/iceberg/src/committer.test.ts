import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitConflict, type LoadedTable, type TableIdent } from './catalog.js';
import { COMMIT_ATTEMPTS, IcebergCommitter, maxCommittedCheckpoint } from './committer.js';
import { HadoopCatalog } from './hadoop-catalog.js';
import { currentSnapshot, newTableMetadata, parseMetadataJson, stringifyMetadata, type TableMetadata } from './metadata.js';
import { icebergSchemaOf } from './schema.js';
import type { IcebergCommitInfo } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ident: TableIdent = { namespace: ['db'], name: 't' };

/** A hadoop catalog whose next `conflicts` commits lose a race: another writer's snapshot lands first. */
class RacingCatalog extends HadoopCatalog {
  commits = 0;
  constructor(
    warehouse: string,
    private conflicts: number,
  ) {
    super(warehouse);
  }
  override async commit(id: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable> {
    this.commits++;
    if (this.conflicts > 0) {
      this.conflicts--;
      // the other writer: the same table version, with a property of its own
      await super.commit(id, base, { ...base.metadata, properties: { ...base.metadata.properties, other: String(this.conflicts) } });
      throw new CommitConflict('lost');
    }
    return super.commit(id, base, next);
  }
}

async function newTable(conflicts: number): Promise<RacingCatalog> {
  const wh = mkdtempSync(join(dir, 'wh-'));
  const catalog = new RacingCatalog(wh, conflicts);
  const schema = icebergSchemaOf([{ name: 'id', type: { kind: 'bigint' }, nullable: true }], [], 't');
  await catalog.create(ident, newTableMetadata(catalog.defaultLocation(ident), schema, 1, { 'spec-id': 0, fields: [] }, {}));
  return catalog;
}

function info(checkpointId: number, jobId = 'job-1'): IcebergCommitInfo {
  const path = join(dir, `${jobId}-${checkpointId}-${Math.random()}.parquet`);
  writeFileSync(path, 'not read by the committer');
  return {
    jobId,
    checkpointId,
    files: [
      {
        content: 0,
        path,
        recordCount: 10,
        fileSize: 25,
        specId: 0,
        partition: [],
        valueCounts: [[1, 10]],
        nullCounts: [[1, 0]],
        lower: [],
        upper: [],
      },
    ],
  };
}

describe('IcebergCommitter', () => {
  it('commits a checkpoint once: a replay, by the same or a restored committer, changes nothing', async () => {
    const catalog = await newTable(0);
    const committer = new IcebergCommitter(catalog, ident);
    await committer.commit([info(1)]);
    const cp2 = info(2);
    await committer.commit([cp2]);
    await committer.commit([cp2]);
    await new IcebergCommitter(catalog, ident).commit([info(1), cp2]);
    const m = (await catalog.load(ident))!.metadata;
    expect(m.snapshots).toHaveLength(2);
    expect(maxCommittedCheckpoint(m, 'job-1')).toBe(2);
    expect(currentSnapshot(m)!.summary).toMatchObject({
      'total-records': '20',
      'tideway.job-id': 'job-1',
      'tideway.max-committed-checkpoint-id': '2',
    });
    // another job's checkpoint 1 is its own
    await committer.commit([info(1, 'job-2')]);
    expect((await catalog.load(ident))!.metadata.snapshots).toHaveLength(3);
  });

  it('commits to a branch forked from main: main stays, a replay on the branch changes nothing', async () => {
    const catalog = await newTable(0);
    await new IcebergCommitter(catalog, ident).commit([info(1, 'main-job')]);
    const onMain = (await catalog.load(ident))!.metadata;
    const committer = new IcebergCommitter(catalog, ident, 'audit');
    const cp = info(1);
    await committer.commit([cp]);
    await new IcebergCommitter(catalog, ident, 'audit').commit([cp]);
    const m = (await catalog.load(ident))!.metadata;
    expect(m.snapshots).toHaveLength(2);
    expect(m['current-snapshot-id']).toBe(onMain['current-snapshot-id']);
    const head = m.snapshots!.find((s) => s['snapshot-id'] === m.refs!.audit['snapshot-id'])!;
    expect(head['parent-snapshot-id']).toBe(onMain['current-snapshot-id']);
    expect(head.summary['total-records']).toBe('20');
    expect(maxCommittedCheckpoint(m, 'job-1', 'audit')).toBe(1);
    expect(maxCommittedCheckpoint(m, 'job-1')).toBe(-1);
  });

  it('redoes a commit that lost a race on the table the other writer left', async () => {
    const catalog = await newTable(3);
    await new IcebergCommitter(catalog, ident).commit([info(1)]);
    const m = (await catalog.load(ident))!.metadata;
    expect(catalog.commits).toBe(4);
    expect(m.snapshots).toHaveLength(1);
    expect(m.properties).toMatchObject({ other: '0' }); // the other writer's change is kept
  });

  it(`fails with one sentence after ${COMMIT_ATTEMPTS} lost races in a row`, async () => {
    const catalog = await newTable(1000);
    await expect(new IcebergCommitter(catalog, ident).commit([info(7)])).rejects.toThrow(
      `Iceberg table db.t: checkpoint 7 lost ${COMMIT_ATTEMPTS} commit races in a row to other writers of the hadoop catalog at`,
    );
    expect(catalog.commits).toBe(COMMIT_ATTEMPTS);
    expect((await catalog.load(ident))!.metadata.snapshots).toHaveLength(0);
  }, 30_000);

  it('keeps snapshot ids past 2^53 exact through metadata JSON', () => {
    const text =
      '{"current-snapshot-id": 9007199254740993, "snapshots": [{"snapshot-id": 9007199254740993, "summary": {"x": "9007199254740993"}}], "n": 1.5e300}';
    const m = parseMetadataJson(text);
    expect(m['current-snapshot-id']).toBe(9007199254740993n);
    expect(m.snapshots![0].summary.x).toBe('9007199254740993');
    expect(stringifyMetadata(m)).toContain('"snapshot-id": 9007199254740993');
  });
});
