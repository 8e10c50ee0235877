/**
 * Iceberg table maintenance (`tideway iceberg <action>`, libs/connectors/iceberg/src/maintenance.ts)
 * on tables written by Tideway's sink with CDC deletes and by PyIceberg: after compaction, expiry
 * and orphan removal, PyIceberg and Iceberg's Java library read the same rows as before, with fewer
 * files; a scan of the pre-compaction snapshot still reads its rows.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCatalogTable, type Row, Types } from '@tideway/api';
import { readToEnd, runToEnd, SinkJob } from '@tideway/connector-contract';
import { startS3rver } from '@tideway/checkpoint/testing';
import {
  expireSnapshots,
  HadoopCatalog,
  type IcebergCatalog,
  openCatalog,
  RestCatalog,
  icebergSinkFactory,
  icebergSourceFactory,
  parseMetadataJson,
  removeOrphanFiles,
  rewriteDataFiles,
} from '@tideway/connector-iceberg';
import {
  canonicalRows,
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  makeIcebergTable,
  pyicebergRead,
  sharedIcebergJava,
  sortCanonical,
  startPostgres,
} from '@tideway/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { hadoop, validated } from './iceberg-options.js';

const present = icebergPeersPresent();
const java = present && icebergJavaPresent();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-maint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function metadataFile(tableDir: string): string {
  const version = readFileSync(join(tableDir, 'metadata', 'version-hint.text'), 'utf8').trim();
  return join(tableDir, 'metadata', `v${version}.metadata.json`);
}

/** Every file under a folder, recursively (paths relative to it). */
const filesUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

/** The rows of a table (or of one of its snapshots) as Tideway's Iceberg source reads them. */
async function tidewayRows(options: Record<string, unknown>): Promise<unknown[][]> {
  const source = icebergSourceFactory.create({
    jobId: 'maint',
    jobMode: 'BATCH',
    parallelism: 1,
    options: validated(icebergSourceFactory, 'source', options),
    inputTables: [],
  });
  await source.prepare?.();
  const types = source.catalogTables()[0].columns.map((c) => c.type);
  const rows: Row[] = await readToEnd(icebergSourceFactory, options, { parallelism: 1 });
  return sortCanonical(
    canonicalRows(
      types,
      rows.map((r) => r.fields),
    ),
  );
}

const users = newCatalogTable(
  { database: 'db', table: 'users' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'region', type: Types.STRING, nullable: false },
    { name: 'score', type: Types.BIGINT, nullable: true },
  ],
  { primaryKey: { name: 'pk_users', columns: ['id', 'region'] } },
);
const row = (kind: Row['kind'], id: number, region: string, score: number): Row => ({
  kind,
  tableId: users.tableId,
  fields: [id, region, BigInt(score)],
});

/** Writes the steps (one checkpoint each) with Tideway's Iceberg sink in this process, keyed by id and region, partitioned by region. */
async function writeCdc(catalogOptions: Record<string, unknown>, steps: Row[][]): Promise<void> {
  const sinkOptions = {
    ...catalogOptions,
    'iceberg.table.primary-keys': 'id,region',
    'iceberg.table.partition-keys': 'region',
  };
  const job = new SinkJob(
    {
      name: 'Iceberg',
      factory: icebergSinkFactory,
      delivery: 'exactly-once',
      target: () => ({ options: {}, readBack: () => Promise.resolve([]) }),
    },
    sinkOptions,
    [users],
    undefined,
    1,
  );
  await runToEnd(job, steps);
}

/** Three checkpoints: small files per partition, equality deletes in the last two. */
const THREE_STEPS = (): Row[][] => [
  [row('+I', 1, 'eu', 10), row('+I', 2, 'eu', 20), row('+I', 3, 'us', 30)],
  [row('-U', 1, 'eu', 10), row('+U', 1, 'eu', 11), row('+I', 4, 'us', 40), row('+I', 6, 'eu', 60)],
  [row('-D', 3, 'us', 30), row('+I', 5, 'us', 50)],
];
const THREE_STEPS_ROWS = [
  ['1', 'eu', '11'],
  ['2', 'eu', '20'],
  ['4', 'us', '40'],
  ['5', 'us', '50'],
  ['6', 'eu', '60'],
];

describe.skipIf(!present)('Iceberg table maintenance', () => {
  it('compacts a CDC table written by Tideway (deletes folded in), expires old snapshots and removes orphans: the same rows for PyIceberg, Java and Tideway, fewer files, the old snapshot still read until expired', async () => {
    const wh = join(dir, 'cdc');
    // five checkpoints: five snapshots, small files per partition, equality deletes in three of them
    await writeCdc({ catalog_name: 'cdc', 'iceberg.catalog.config': hadoop(wh), namespace: 'db', table: 'users' }, [
      [row('+I', 1, 'eu', 10), row('+I', 2, 'eu', 20), row('+I', 3, 'us', 30), row('+I', 4, 'us', 40)],
      [row('-U', 1, 'eu', 10), row('+U', 1, 'eu', 11), row('-D', 3, 'us', 30), row('+I', 5, 'us', 50)],
      [row('+I', 6, 'eu', 60), row('+I', 7, 'us', 70), row('-U', 5, 'us', 50), row('+U', 5, 'us', 55)],
      [row('-D', 2, 'eu', 20), row('+I', 8, 'eu', 80)],
      [row('+I', 9, 'ap', 90)],
    ]);
    const tableDir = join(wh, 'db', 'users');
    const before = await pyicebergRead({ metadata: metadataFile(tableDir) });
    expect(before.delete_files).toBeGreaterThan(0);
    const deleteFiles = filesUnder(join(tableDir, 'data')).filter((f) => f.endsWith('-deletes.parquet')).length;
    expect(deleteFiles).toBe(4); // eu and us at the second checkpoint, us at the third, eu at the fourth
    expect(before.rows).toEqual([
      ['1', 'eu', '11'],
      ['4', 'us', '40'],
      ['5', 'us', '55'],
      ['6', 'eu', '60'],
      ['7', 'us', '70'],
      ['8', 'eu', '80'],
      ['9', 'ap', '90'],
    ]);
    const sourceOptions = { catalog_name: 'cdc', 'iceberg.catalog.config': hadoop(wh), namespace: 'db', table: 'users' };
    const preMetadataFile = metadataFile(tableDir);
    const preMetadata = parseMetadataJson(readFileSync(preMetadataFile, 'utf8'));
    const preSnapshot = preMetadata['current-snapshot-id']!;
    const firstSnapshot = preMetadata.snapshots![0];

    const catalog = new HadoopCatalog(`file://${wh}`);
    const ident = { namespace: ['db'], name: 'users' };
    // scans of the pre-compaction snapshot (Tideway's source, PyIceberg) running while the compaction does;
    // ap has one file: below --min-input-files, left as it is
    const [rewrite, tidewayScan, pyScan] = await Promise.all([
      rewriteDataFiles(catalog, ident, { minInputFiles: 2 }),
      tidewayRows({ ...sourceOptions, use_snapshot_id: String(preSnapshot) }),
      pyicebergRead({ metadata: preMetadataFile }), // that metadata version's current snapshot: the pre-compaction one
    ]);
    expect(tidewayScan).toEqual(before.rows);
    expect(pyScan.rows).toEqual(before.rows);
    expect(rewrite.rewrittenPartitions).toBe(2);
    expect(rewrite.addedDataFiles).toBe(2);
    expect(rewrite.rewrittenDataFiles).toBeGreaterThan(rewrite.addedDataFiles);
    expect(rewrite.removedDeleteFiles).toBe(deleteFiles);
    const compacted = await pyicebergRead({ metadata: metadataFile(tableDir) });
    expect(compacted.rows).toEqual(before.rows);
    expect(compacted.files).toBe(3);
    expect(compacted.delete_files).toBe(0);
    expect(compacted.snapshots.at(-1)?.operation).toBe('replace');
    expect(await tidewayRows(sourceOptions)).toEqual(before.rows);
    if (java) expect((await javaIcebergRead({ metadata: metadataFile(tableDir) })).rows).toEqual(before.rows);

    // a scan of the pre-compaction snapshot started after the compaction reads its rows: the old files are still there
    expect(await tidewayRows({ ...sourceOptions, use_snapshot_id: String(preSnapshot) })).toEqual(before.rows);
    // expiring what is older than the pre-compaction snapshot keeps it (and what it reads) live
    const early = await expireSnapshots(catalog, ident, { olderThanMs: firstSnapshot['timestamp-ms'] + 1, retainLast: 1 });
    expect(early.expiredSnapshots).toBe(1);
    expect(early.deletedDataFiles).toBe(0); // the first snapshot's files are all in later ones
    expect(await tidewayRows({ ...sourceOptions, use_snapshot_id: String(preSnapshot) })).toEqual(before.rows);

    // now everything but the current snapshot: the rewritten files and the folded deletes go from storage
    const dataBefore = filesUnder(join(tableDir, 'data')).length;
    const all = await expireSnapshots(catalog, ident, { olderThanMs: Date.now() + 1000, retainLast: 1 });
    expect(all.expiredSnapshots).toBe(4);
    expect(all.deletedDataFiles).toBe(rewrite.rewrittenDataFiles);
    expect(all.deletedDeleteFiles).toBe(deleteFiles);
    expect(filesUnder(join(tableDir, 'data'))).toHaveLength(dataBefore - all.deletedDataFiles - all.deletedDeleteFiles);
    const expired = await pyicebergRead({ metadata: metadataFile(tableDir) });
    expect(expired.rows).toEqual(before.rows);
    expect(expired.snapshots).toHaveLength(1);
    expect(await tidewayRows(sourceOptions)).toEqual(before.rows);

    // orphans: an old stray file goes, a fresh one (a write in progress) stays
    const stray = join(tableDir, 'data', 'region=eu', 'stray.parquet');
    const fresh = join(tableDir, 'data', 'fresh.parquet');
    writeFileSync(stray, 'x');
    writeFileSync(fresh, 'y');
    const old = new Date(Date.now() - 4 * 24 * 3600 * 1000);
    utimesSync(stray, old, old);
    const orphans = await removeOrphanFiles(catalog, ident, { olderThanMs: Date.now() - 3 * 24 * 3600 * 1000 });
    expect(orphans.removedFiles).toEqual([`file://${stray}`]);
    expect(existsSync(stray)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    const after = await pyicebergRead({ metadata: metadataFile(tableDir) });
    expect(after.rows).toEqual(before.rows);
    if (java) expect((await javaIcebergRead({ metadata: metadataFile(tableDir) })).rows).toEqual(before.rows);
    await catalog.close();
  }, 120_000);

  it('compacts a table written by PyIceberg (a position delete file folded in) and expires through the CLI', async () => {
    const warehouse = join(dir, 'py');
    const made = await makeIcebergTable({
      warehouse,
      namespace: 'db',
      table: 'events',
      schema: [
        ['id', 'long', true],
        ['name', 'string', false],
      ],
      steps: [
        {
          append: [
            ['1', 'a'],
            ['2', 'b'],
          ],
        },
        { position_delete: [[0, 1]] }, // while the table has one data file
        {
          append: [
            ['3', 'c'],
            ['4', 'd'],
          ],
        },
        { append: [['5', 'e']] },
      ],
    });
    const tableDir = join(warehouse, 'db', 'events');
    const before = await pyicebergRead({ metadata: made.metadata });
    expect(before.delete_files).toBeGreaterThan(0);
    expect(before.rows).toEqual([
      ['1', 'a'],
      ['3', 'c'],
      ['4', 'd'],
      ['5', 'e'],
    ]);
    const conf = join(dir, 'py.conf');
    writeFileSync(
      conf,
      `catalog_name = "py"\niceberg.catalog.config = { type = "hadoop", warehouse = "${warehouse}" }\nnamespace = "db"\ntable = "events"\n`,
    );
    const res = await runCli(['iceberg', 'rewrite-data-files', '--catalog', conf, '--min-input-files', '2', '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { table: string; addedDataFiles: number; rewrittenDataFiles: number };
    expect(out.table).toBe('db.events');
    expect(out.addedDataFiles).toBe(1);
    const compacted = await pyicebergRead({ metadata: metadataFile(tableDir) });
    expect(compacted.rows).toEqual(before.rows);
    expect(compacted.files).toBe(1);
    const expire = await runCli(['iceberg', 'expire-snapshots', '--catalog', conf, '--older-than', '0s']);
    expect(expire.code).toBe(0);
    expect(expire.stdout).toMatch(/^db\.events: \d+ snapshot\(s\) expired; deleted \d+ data file/);
    expect((await pyicebergRead({ metadata: metadataFile(tableDir) })).rows).toEqual(before.rows);
    if (java) expect((await javaIcebergRead({ metadata: metadataFile(tableDir) })).rows).toEqual(before.rows);

    const bad = await runCli(['iceberg', 'expire-snapshots', '--catalog', conf, '--older-than', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'tideway: --older-than soon: not a duration (30s, 15m, 12h, 5d, 1w), ISO 8601 timestamp or epoch milliseconds',
    );
    const sinkBlock = join(dir, 'sink-block.conf');
    writeFileSync(
      sinkBlock,
      `iceberg.catalog.config = { type = "hadoop", warehouse = "${warehouse}" }\niceberg.table.primary-keys = "id"\n`,
    );
    const refused = await runCli(['iceberg', 'rewrite-data-files', '--catalog', sinkBlock, '--table', 'db.events']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(
      `tideway: ${sinkBlock}: option 'iceberg.table.primary-keys' is not supported here (catalog_name, iceberg.catalog.config, namespace, table)`,
    );
  }, 120_000);
  it.skipIf(!java)(
    "keeps equality deletes another writer commits during a compaction applying to the compacted files (REST catalog, a lost race redone); expires through the REST catalog's remove-snapshots",
    async () => {
      const uri = await sharedIcebergJava();
      const namespace = `maint${Date.now().toString(36)}`;
      const options = { catalog_name: 'rest', 'iceberg.catalog.config': { type: 'rest', uri }, namespace, table: 'users' };
      await writeCdc(options, THREE_STEPS());
      const table = `${namespace}.users`;
      expect((await pyicebergRead({ rest: uri, table })).rows).toEqual(THREE_STEPS_ROWS);
      const rest = new RestCatalog({ type: 'rest', uri });
      const ident = { namespace: [namespace], name: 'users' };
      let raced = 0;
      // the real catalog, with another writer's checkpoint (deleting row 6 of eu, a row being compacted) landing just before the compaction's first commit
      const racing: IcebergCatalog = {
        io: rest.io,
        description: rest.description,
        defaultLocation: (i) => rest.defaultLocation(i),
        load: (i) => rest.load(i),
        create: (i, m) => rest.create(i, m),
        drop: (i) => rest.drop(i),
        close: () => rest.close(),
        commit: async (i, base, next) => {
          if (raced++ === 0) await writeCdc(options, [[row('-D', 6, 'eu', 60)]]);
          return rest.commit(i, base, next);
        },
      };
      const rewrite = await rewriteDataFiles(racing, ident, { minInputFiles: 2 });
      expect(raced).toBe(2); // the first commit lost the race and was redone on the new metadata
      expect(rewrite.rewrittenPartitions).toBe(2);
      const expected = THREE_STEPS_ROWS.filter((r) => r[0] !== '6');
      const py = await pyicebergRead({ rest: uri, table });
      expect(py.rows).toEqual(expected);
      expect(py.snapshots.map((x) => x.operation)).toEqual(['append', 'overwrite', 'overwrite', 'overwrite', 'replace']);
      expect(py.files).toBe(2);
      if (java) expect((await javaIcebergRead({ catalog: { type: 'rest', uri }, table })).rows).toEqual(expected);
      const expired = await expireSnapshots(rest, ident, { olderThanMs: Date.now() + 1000, retainLast: 1 });
      expect(expired.expiredSnapshots).toBe(4);
      const after = await pyicebergRead({ rest: uri, table });
      expect(after.rows).toEqual(expected);
      expect(after.snapshots).toHaveLength(1);
      // the sink goes on writing: its next equality delete applies to the compacted file
      await writeCdc(options, [[row('-U', 1, 'eu', 11), row('+U', 1, 'eu', 12)]]);
      const updated = expected.map((r) => (r[0] === '1' ? ['1', 'eu', '12'] : r));
      expect((await pyicebergRead({ rest: uri, table })).rows).toEqual(updated);
      if (java) expect((await javaIcebergRead({ catalog: { type: 'rest', uri }, table })).rows).toEqual(updated);
      await rest.close();
    },
    120_000,
  );

  it('lists an S3 table location (ListObjectsV2) and removes only the objects no snapshot reaches (sql catalog, S3 warehouse)', async () => {
    const [pg, s3] = await Promise.all([startPostgres(), startS3rver(['lake'])]);
    try {
      const io = {
        's3.endpoint': s3.endpoint,
        's3.access-key-id': s3.accessKeyId,
        's3.secret-access-key': s3.secretAccessKey,
        's3.path-style-access': 'true',
        'client.region': 'us-east-1',
      };
      const config = {
        type: 'jdbc',
        uri: pg.jdbcUrl,
        'jdbc.user': pg.user,
        'jdbc.password': pg.password,
        warehouse: 's3://lake/wh',
        ...io,
      };
      await writeCdc({ catalog_name: 'lake', 'iceberg.catalog.config': config, namespace: 'db', table: 'users' }, THREE_STEPS());
      const catalog = openCatalog({ catalog: config, catalogName: 'lake' });
      const ident = { namespace: ['db'], name: 'users' };
      const loaded = (await catalog.load(ident))!;
      const stray = `${loaded.metadata.location}/data/region=eu/stray.parquet`;
      await catalog.io.write(stray, 'x');
      const listed = await catalog.io.list(loaded.metadata.location);
      expect(listed.map((f) => f.location)).toContain(stray);
      expect(listed.every((f) => f.location.startsWith(`${loaded.metadata.location}/`) && f.modifiedMs > 0)).toBe(true);
      // a cutoff before the stray object was written removes nothing
      expect((await removeOrphanFiles(catalog, ident, { olderThanMs: Date.now() - 3_600_000 })).removedFiles).toEqual([]);
      const orphans = await removeOrphanFiles(catalog, ident, { olderThanMs: Date.now() + 1000 });
      expect(orphans.removedFiles).toEqual([stray]);
      expect(await catalog.io.exists(stray)).toBe(false);
      const pyUri = `postgresql+psycopg2://${pg.user}:${encodeURIComponent(pg.password)}@127.0.0.1:${pg.port}/${pg.database}`;
      expect((await pyicebergRead({ uri: pyUri, catalog: 'lake', table: 'db.users', props: io })).rows).toEqual(THREE_STEPS_ROWS);
      await catalog.close();
    } finally {
      await pg.stop();
      await s3.stop();
    }
  }, 120_000);
});
