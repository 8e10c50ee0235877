/**
 * The sink contract (libs/connector-contract) on the Iceberg sink, into a hadoop catalog table per
 * scenario and input table (`${table_name}`). Read back without the sink's code: the current snapshot's manifest list and
 * manifests decoded by avsc as plain Avro, the data and equality-delete files by hyparquet, the
 * deletes applied by the table spec's rule (a delete of a higher sequence number, same partition).
 * PyIceberg reads the sink's tables in test/systems/iceberg.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import avro from 'avsc';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll } from 'vitest';
import { icebergSinkFactory } from '@tideway/connector-iceberg';
import { sinkContract, type ReadRow } from '@tideway/connector-contract';
import { ICEBERG_NOT_APPLICABLE } from './contract-table.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Longs as bigints (snapshot ids use 63 bits). */
const LONG = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => Buffer.from(BigInt.asUintN(64, n).toString(16).padStart(16, '0'), 'hex').reverse(),
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

async function avroRecords(path: string): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  const decoder = new avro.streams.BlockDecoder({
    parseHook: (schema: avro.Schema) => avro.Type.forSchema(schema, { registry: { long: LONG } }),
  });
  await new Promise<void>((resolve, reject) => {
    decoder.on('data', (r: Record<string, unknown>) => records.push(r));
    decoder.on('end', () => resolve());
    decoder.on('error', reject);
    Readable.from([readFileSync(path)]).pipe(decoder);
  });
  return records;
}

const parquetRows = async (path: string): Promise<ReadRow[]> =>
  (await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors })) as ReadRow[];

/** The rows of the hadoop-catalog table at `location` as its current snapshot has them, deletes applied. */
async function readTable(location: string): Promise<ReadRow[]> {
  let hint: string;
  try {
    hint = readFileSync(join(location, 'metadata', 'version-hint.text'), 'utf8').trim();
  } catch {
    return []; // no table yet
  }
  const meta = JSON.parse(readFileSync(join(location, 'metadata', `v${hint}.metadata.json`), 'utf8')) as {
    snapshots: { 'sequence-number': number; 'manifest-list': string }[];
  };
  // ids past 2^53 do not survive JSON.parse: the current snapshot of a linear history is the one of the highest sequence number
  const current = [...meta.snapshots].sort((a, b) => b['sequence-number'] - a['sequence-number'])[0];
  if (!current) return [];
  const data: { seq: number; partition: string; rows: ReadRow[] }[] = [];
  const deletes: { seq: number; partition: string; keys: string[]; rows: ReadRow[] }[] = [];
  for (const m of await avroRecords(current['manifest-list'])) {
    for (const e of await avroRecords(m.manifest_path as string)) {
      if (e.status === 2) continue;
      const f = e.data_file as { content: number; file_path: string; partition: unknown; equality_ids: number[] | null };
      const seq = Number(e.sequence_number ?? m.sequence_number);
      const rows = await parquetRows(f.file_path);
      const partition = JSON.stringify(f.partition);
      if (f.content === 0) data.push({ seq, partition, rows });
      else deletes.push({ seq, partition, keys: Object.keys(rows[0] ?? {}), rows });
    }
  }
  const keyOf = (r: ReadRow, keys: string[]) => JSON.stringify(keys.map((k) => String(r[k])));
  return data.flatMap((d) =>
    d.rows.filter(
      (r) =>
        !deletes.some((x) => x.seq > d.seq && x.partition === d.partition && x.rows.some((k) => keyOf(k, x.keys) === keyOf(r, x.keys))),
    ),
  );
}

sinkContract({
  name: 'Iceberg (hadoop catalog)',
  factory: icebergSinkFactory,
  delivery: 'exactly-once',
  target: (id) => {
    const warehouse = join(dir, id);
    return {
      options: {
        catalog_name: 'contract',
        'iceberg.catalog.config': { type: 'hadoop', warehouse },
        namespace: 'db',
        table: '${table_name}', // one Iceberg table per input table
        'iceberg.table.write-props': { 'write.parquet.compression-codec': 'snappy' },
        'iceberg.table.schema-evolution-enabled': true,
      },
      readBack: (table) => readTable(join(warehouse, 'db', table.path.table)),
    };
  },
  notApplicable: ICEBERG_NOT_APPLICABLE,
  badOptions: [
    {
      options: { 'iceberg.catalog.config': { type: 'hive', uri: 'thrift://127.0.0.1:1', warehouse: dir } },
      option: 'iceberg.catalog.config',
    },
    { options: { 'iceberg.table.write-props': { 'write.format.default': 'csv' } }, option: 'iceberg.table.write-props' },
    {
      options: { 'iceberg.table.upsert-mode-enabled': true, 'iceberg.table.primary-keys': undefined },
      option: 'iceberg.table.upsert-mode-enabled',
    },
    { options: { 'iceberg.table.partition-keys': 'nope' }, option: 'iceberg.table.partition-keys' },
  ],
});
