/**
 * Iceberg tables of ORC and Avro data and delete files (write.format.default), against the real
 * peers: tables Tideway's sink writes in each format (every type the sink maps, partitions, CDC
 * equality deletes, each format's codecs) read by Iceberg's Java library (IcebergGenerics), by
 * PyIceberg (ORC; PyIceberg reads no Avro data files) and by Tideway's own source with the same
 * rows; tables Iceberg's Java library writes in ORC and Avro (PyIceberg writes only Parquet)
 * with a renamed, a widened and an added column, equality and position deletes, read by
 * Tideway's source as Java reads them; bad formats and codecs refused by name.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CatalogTable, type DataType, newCatalogTable, type Row, Types } from '@tideway/api';
import { hadoop, validated } from './iceberg-options.js';
import { readToEnd, runToEnd, SinkJob } from '@tideway/connector-contract';
import { HadoopCatalog, icebergSinkFactory, icebergSourceFactory, rewriteDataFiles, scanCounters } from '@tideway/connector-iceberg';
import {
  canonicalRows,
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  javaIcebergWrite,
  pyicebergPython,
  pyicebergRead,
  sortCanonical,
} from '@tideway/testing';
import { afterAll, describe, expect, it } from 'vitest';

const present = icebergPeersPresent() && icebergJavaPresent();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The current metadata file of a hadoop-catalog table. */
function hadoopMetadata(warehouse: string, table: string): string {
  const version = readFileSync(join(warehouse, table, 'metadata', 'version-hint.text'), 'utf8').trim();
  return join(warehouse, table, 'metadata', `v${version}.metadata.json`);
}

/** Every file under a folder, recursively. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => join(e.parentPath, e.name));
}

/** Tideway's Iceberg source in this process (two readers): the table's column types and its rows in canonical form. */
async function tidewayRead(warehouse: string, table: string) {
  const options = { catalog_name: 'fmt', 'iceberg.catalog.config': hadoop(warehouse), namespace: 'db', table };
  const source = icebergSourceFactory.create({
    jobId: 'prepare',
    jobMode: 'BATCH',
    parallelism: 2,
    options: validated(icebergSourceFactory, 'source', options),
    inputTables: [],
  });
  await source.prepare?.();
  const types: DataType[] = source.catalogTables()[0].columns.map((c) => c.type);
  const rows: Row[] = await readToEnd(icebergSourceFactory, options, { parallelism: 2 });
  return {
    types,
    rows: canonicalRows(
      types,
      rows.map((r) => r.fields),
    ),
  };
}

/** Tideway's Iceberg sink in this process, a snapshot per checkpoint (an inner array of rows). */
async function tidewayWrite(table: CatalogTable, options: Record<string, unknown>, checkpoints: Row[][]) {
  const job = new SinkJob(
    {
      name: 'Iceberg',
      factory: icebergSinkFactory,
      delivery: 'exactly-once',
      target: () => ({ options: {}, readBack: () => Promise.resolve([]) }),
    },
    options,
    [table],
    undefined,
    1,
  );
  await runToEnd(job, checkpoints);
}

const allTypes = newCatalogTable({ database: 'db', table: 'types' }, [
  { name: 'id', type: Types.BIGINT, nullable: false },
  { name: 'name', type: Types.STRING, nullable: true },
  { name: 'c_small', type: Types.SMALLINT, nullable: true },
  { name: 'c_int', type: Types.INT, nullable: true },
  { name: 'c_float', type: Types.FLOAT, nullable: true },
  { name: 'c_double', type: Types.DOUBLE, nullable: true },
  { name: 'c_decimal', type: Types.decimal(20, 4), nullable: true },
  { name: 'c_bool', type: Types.BOOLEAN, nullable: true },
  { name: 'c_bytes', type: Types.BYTES, nullable: true },
  { name: 'c_date', type: Types.DATE, nullable: true },
  { name: 'c_time', type: Types.TIME, nullable: true },
  { name: 'c_ts', type: Types.TIMESTAMP, nullable: true },
  { name: 'c_arr', type: Types.array(Types.INT), nullable: true },
  { name: 'c_map', type: Types.map(Types.STRING, Types.BIGINT), nullable: true },
  {
    name: 'c_row',
    type: Types.row([
      { name: 'a', type: Types.INT },
      { name: 'b', type: Types.STRING },
    ]),
    nullable: true,
  },
  { name: 'c_part', type: Types.STRING, nullable: true },
]);

const typeRows: unknown[][] = [
  [
    1n,
    'one',
    1,
    10,
    1.5,
    2.25,
    '12345.6789',
    true,
    Buffer.from([1, 2]),
    '2024-02-29',
    '10:11:12.123456',
    '2024-02-29T23:59:59.999999',
    [1, 2],
    new Map([['a', 1n]]),
    [7, 'seven'],
    'x',
  ],
  [
    2n,
    'two',
    -2,
    -20,
    -1.5,
    -2.25,
    '-0.0001',
    false,
    Buffer.alloc(0),
    '1970-01-01',
    '00:00:00',
    '1970-01-01T00:00:00',
    [],
    new Map(),
    [null, null],
    'y',
  ],
  [3n, null, null, null, null, null, null, null, null, null, null, null, null, null, null, 'x'],
];

/** The rows as every reader gives them, canonical (PyIceberg's and Java's forms). */
const typeRowsCanonical = [
  [
    '1',
    'one',
    '1',
    '10',
    1.5,
    2.25,
    '12345.6789',
    true,
    '0102',
    '2024-02-29',
    '10:11:12.123456',
    '2024-02-29T23:59:59.999999',
    ['1', '2'],
    [['a', '1']],
    [
      ['a', '7'],
      ['b', 'seven'],
    ],
    'x',
  ],
  [
    '2',
    'two',
    '-2',
    '-20',
    -1.5,
    -2.25,
    '-0.0001',
    false,
    '',
    '1970-01-01',
    '00:00:00',
    '1970-01-01T00:00:00',
    [],
    [],
    [
      ['a', null],
      ['b', null],
    ],
    'y',
  ],
  ['3', null, null, null, null, null, null, null, null, null, null, null, null, null, null, 'x'],
];

const users = newCatalogTable(
  { database: 'db', table: 'users' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'region', type: Types.STRING, nullable: false },
    { name: 'score', type: Types.BIGINT, nullable: true },
  ],
  { primaryKey: { name: 'pk_users', columns: ['id', 'region'] } },
);
const user = (kind: Row['kind'], id: number, region: string, score: number): Row => ({
  kind,
  tableId: users.tableId,
  fields: [id, region, BigInt(score)],
});

describe.skipIf(!present)('Iceberg tables of ORC and Avro files', () => {
  it.each([
    ['orc', { 'write.orc.compression-codec': 'zstd' }, '.orc'],
    ['avro', { 'write.avro.compression-codec': 'snappy' }, '.avro'],
  ] as const)(
    'Tideway writes %s data files of every type, partitioned: Java, PyIceberg (ORC) and its own source read the same rows',
    async (format, codec, suffix) => {
      const wh = join(dir, `types-${format}`);
      await tidewayWrite(
        allTypes,
        {
          catalog_name: 'fmt',
          'iceberg.catalog.config': hadoop(wh),
          namespace: 'db',
          table: 'types',
          'iceberg.table.partition-keys': 'c_part',
          'iceberg.table.write-props': { 'write.format.default': format, ...codec },
        },
        [typeRows.map((fields) => ({ kind: '+I', tableId: allTypes.tableId, fields }))],
      );
      const data = filesUnder(join(wh, 'db', 'types', 'data'));
      expect(data.length).toBe(2); // one file per partition
      expect(data.every((f) => f.endsWith(suffix))).toBe(true);
      // the manifest entries: the format, and the column statistics PyIceberg plans (prunes) files by
      const planned = await pyicebergPython(`
from pyiceberg.table import StaticTable
t = StaticTable.from_metadata(${JSON.stringify(hadoopMetadata(wh, 'db/types'))})
tasks = sorted(t.scan().plan_files(), key=lambda task: str(task.file.partition))
print(sorted({task.file.file_format.value for task in tasks}))
print([(task.file.value_counts[1], task.file.null_value_counts[2]) for task in tasks])
print(len(list(t.scan(row_filter="id > 2").plan_files())), len(list(t.scan(row_filter="c_int > 100").plan_files())), len(list(t.scan(row_filter="c_date < '2000-01-01'").plan_files())))`);
      expect(planned.trim().split('\n')).toEqual([`['${format.toUpperCase()}']`, '[(2, 1), (1, 0)]', '1 0 1']);
      const expected = sortCanonical(typeRowsCanonical);
      const java = await javaIcebergRead({ metadata: hadoopMetadata(wh, 'db/types') });
      expect(java.schema.map(([n, t]) => `${n} ${t}`)).toContain('c_time time');
      expect(sortCanonical(java.rows)).toEqual(expected);
      if (format === 'orc') {
        // PyIceberg reads the table but for its time column: it does not resolve ORC's long of iceberg.long-type TIME (Iceberg Java's files neither)
        const noTime = allTypes.columns.findIndex((c) => c.name === 'c_time');
        const table = newCatalogTable(
          { database: 'db', table: 'types_py' },
          allTypes.columns.filter((_, i) => i !== noTime),
        );
        await tidewayWrite(
          table,
          {
            catalog_name: 'fmt',
            'iceberg.catalog.config': hadoop(wh),
            namespace: 'db',
            table: 'types_py',
            'iceberg.table.partition-keys': 'c_part',
            'iceberg.table.write-props': { 'write.format.default': format, ...codec },
          },
          [typeRows.map((fields) => ({ kind: '+I', tableId: table.tableId, fields: fields.filter((_, i) => i !== noTime) }))],
        );
        const py = await pyicebergRead({ metadata: hadoopMetadata(wh, 'db/types_py') });
        expect(sortCanonical(py.rows)).toEqual(sortCanonical(typeRowsCanonical.map((r) => r.filter((_, i) => i !== noTime))));
      }
      scanCounters.reset();
      const own = await tidewayRead(wh, 'types');
      expect(own.rows).toEqual(expected);
      expect(scanCounters.dataFilesOpened).toBe(2);
    },
    90_000,
  );

  it.each([
    ['orc', {}, ['.orc']],
    ['avro', { 'write.delete.format.default': 'parquet' }, ['.avro', '-deletes.parquet']],
  ] as const)(
    'Tideway writes CDC changes into an %s table (equality delete files); Java and its own source apply them',
    async (format, more, suffixes) => {
      const wh = join(dir, `cdc-${format}`);
      await tidewayWrite(
        users,
        {
          catalog_name: 'fmt',
          'iceberg.catalog.config': hadoop(wh),
          namespace: 'db',
          table: 'users',
          'iceberg.table.primary-keys': 'id,region',
          'iceberg.table.partition-keys': 'region',
          'iceberg.table.write-props': { 'write.format.default': format, ...more },
        },
        [
          [user('+I', 1, 'eu', 10), user('+I', 2, 'eu', 20), user('+I', 3, 'us', 30), user('+I', 4, 'us', 40)],
          [
            user('-U', 1, 'eu', 10),
            user('+U', 1, 'eu', 11),
            user('-D', 3, 'us', 30),
            user('+I', 5, 'us', 50),
            user('-U', 5, 'us', 50),
            user('+U', 5, 'us', 55),
          ],
        ],
      );
      const files = filesUnder(join(wh, 'db', 'users', 'data'));
      const deletes = files.filter((f) => f.includes('-deletes'));
      expect(deletes.length).toBeGreaterThan(0);
      expect(deletes.every((f) => f.endsWith(suffixes.at(-1)!))).toBe(true);
      expect(files.filter((f) => !f.includes('-deletes')).every((f) => f.endsWith(suffixes[0]))).toBe(true);
      const expected = [
        ['1', 'eu', '11'],
        ['2', 'eu', '20'],
        ['4', 'us', '40'],
        ['5', 'us', '55'],
      ];
      const java = await javaIcebergRead({ metadata: hadoopMetadata(wh, 'db/users') });
      expect(java.identifier).toEqual(['id', 'region']);
      expect(sortCanonical(java.rows)).toEqual(expected);
      scanCounters.reset();
      const own = await tidewayRead(wh, 'users');
      expect(own.rows).toEqual(expected);
      expect(scanCounters.deleteFilesRead).toBeGreaterThan(0);
      // compaction reads the table's files and writes its format, the deletes folded in
      const rewrite = await rewriteDataFiles(new HadoopCatalog(`file://${wh}`), { namespace: ['db'], name: 'users' }, { minInputFiles: 2 });
      expect(rewrite.rewrittenPartitions).toBe(2);
      const added = filesUnder(join(wh, 'db', 'users', 'data')).filter((f) => !files.includes(f));
      expect(added.length).toBe(rewrite.addedDataFiles);
      expect(added.every((f) => f.endsWith(suffixes[0]))).toBe(true);
      const compacted = await javaIcebergRead({ metadata: hadoopMetadata(wh, 'db/users') });
      expect(sortCanonical(compacted.rows)).toEqual(expected);
    },
    90_000,
  );

  /** A table of Iceberg types Tideway's sink never writes (uuid, fixed, timestamptz, nested structs), as Iceberg schema JSON. */
  const javaSchema = {
    type: 'struct',
    'schema-id': 0,
    fields: [
      { id: 1, name: 'id', required: true, type: 'int' },
      { id: 2, name: 'name', required: false, type: 'string' },
      { id: 3, name: 'amount', required: false, type: 'decimal(9, 2)' },
      { id: 4, name: 'ratio', required: false, type: 'float' },
      { id: 5, name: 'flag', required: false, type: 'boolean' },
      { id: 6, name: 'day', required: false, type: 'date' },
      { id: 7, name: 'at', required: false, type: 'time' },
      { id: 8, name: 'ts', required: false, type: 'timestamp' },
      { id: 9, name: 'tstz', required: false, type: 'timestamptz' },
      { id: 10, name: 'uid', required: false, type: 'uuid' },
      { id: 11, name: 'fx', required: false, type: 'fixed[3]' },
      { id: 12, name: 'raw', required: false, type: 'binary' },
      { id: 13, name: 'tags', required: false, type: { type: 'list', 'element-id': 16, element: 'string', 'element-required': false } },
      {
        id: 14,
        name: 'attrs',
        required: false,
        type: { type: 'map', 'key-id': 17, key: 'int', 'value-id': 18, value: 'string', 'value-required': false },
      },
      {
        id: 15,
        name: 'point',
        required: false,
        type: {
          type: 'struct',
          fields: [
            { id: 19, name: 'x', required: false, type: 'long' },
            { id: 20, name: 'y', required: false, type: 'double' },
          ],
        },
      },
    ],
  };
  const javaRow = (id: number, name: string | null, withValues: boolean): unknown[] =>
    withValues
      ? [
          String(id),
          name,
          `${id}.25`,
          id / 2,
          id % 2 === 0,
          '2024-03-0' + String(id),
          '12:34:56.789',
          `2024-03-0${id}T01:02:03.456789`,
          `2024-03-0${id}T01:02:03.000001+00:00`,
          `00000000-0000-0000-0000-00000000000${id}`,
          `0a0b0${id}`,
          `ff0${id}`,
          ['a', null, `t${id}`],
          [[String(id), `v${id}`]],
          [String(id * 1000), id + 0.5],
        ]
      : [String(id), name, null, null, null, null, null, null, null, null, null, null, null, null, null];

  it.each(['orc', 'avro'])(
    'reads an %s table Iceberg Java wrote (renamed, widened and added columns; equality and position deletes) as Java reads it',
    async (format) => {
      const wh = join(dir, `java-${format}`);
      const { metadata } = await javaIcebergWrite({
        warehouse: wh,
        table: 'db.made',
        schema: javaSchema,
        properties: { 'write.format.default': format },
        steps: [
          { append: [javaRow(1, 'one', true), javaRow(2, 'two', true), javaRow(3, null, false)] },
          { append: [javaRow(4, 'four', true), javaRow(5, 'five', false), javaRow(6, 'six', true)] },
          { rename: ['name', 'label'] },
          { widen: ['id', 'long'] },
          { widen: ['ratio', 'double'] },
          { add: ['extra', 'string'] },
          { append: [[...javaRow(7, 'seven', true), 'new']] },
          { delete: { columns: ['label'], rows: [['two']] } },
          { position_delete: [[1, 0]] },
        ],
      });
      const files = filesUnder(join(wh, 'db', 'made', 'data'));
      expect(files.filter((f) => f.endsWith(`.${format}`)).length).toBe(5); // three data files, two delete files
      const java = await javaIcebergRead({ metadata });
      expect(java.rows.map((r) => r[0])).toEqual(['1', '3', '5', '6', '7']);
      scanCounters.reset();
      const own = await tidewayRead(wh, 'made');
      expect(own.types.map((t) => t.kind).slice(0, 4)).toEqual(['bigint', 'string', 'decimal', 'double']);
      expect(own.rows).toEqual(sortCanonical(java.rows));
      expect(scanCounters.deleteFilesRead).toBeGreaterThanOrEqual(2); // each reader reads the delete files its splits need
    },
    90_000,
  );

  it("splits an ORC file Iceberg Java wrote by its stripes (the manifest's split offsets) and reads every row once", async () => {
    const wh = join(dir, 'java-stripes');
    const rows = Array.from({ length: 20_000 }, (_, i) => [String(i), `name-${i}-${'x'.repeat(20)}`]);
    await javaIcebergWrite({
      warehouse: wh,
      table: 'db.striped',
      schema: {
        type: 'struct',
        'schema-id': 0,
        fields: [
          { id: 1, name: 'id', required: true, type: 'int' },
          { id: 2, name: 'name', required: false, type: 'string' },
        ],
      },
      // ORC's writer checks its memory every 5,000 rows: a stripe about every 5,000 rows
      properties: { 'write.format.default': 'orc', 'write.orc.stripe-size-bytes': '1024', 'read.split.target-size': '1024' },
      steps: [{ append: rows }],
    });
    scanCounters.reset();
    const own = await tidewayRead(wh, 'striped');
    expect(scanCounters.dataFiles).toBe(1);
    expect(scanCounters.splits).toBeGreaterThan(1);
    expect(own.rows).toEqual(sortCanonical(rows));
  }, 90_000);

  it.each([
    [{ 'write.format.default': 'csv' }, 'write.format.default = csv is not one of parquet, orc, avro'],
    [
      { 'write.orc.compression-codec': 'lzo' },
      'write.orc.compression-codec = lzo is not supported (no maintained LZO compressor exists for Node)',
    ],
    [
      { 'write.avro.compression-codec': 'xz' },
      'write.avro.compression-codec = xz is not supported: Tideway writes uncompressed, gzip, snappy, zstd',
    ],
  ])('refuses write props %o by name', (props, message) => {
    expect(() =>
      validated(icebergSinkFactory, 'sink', {
        catalog_name: 'fmt',
        'iceberg.catalog.config': hadoop(join(dir, 'refused')),
        namespace: 'db',
        table: 't',
        'iceberg.table.write-props': props,
      }),
    ).toThrow(message);
  });
});
