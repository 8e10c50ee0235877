/**
 * The source contract (libs/connector-contract) on the bounded built-in sources whose input can
 * be planted here: LocalFile (json files, one file a split; two tables by tables_configs),
 * FakeSource (explicit rows), Sequence (the chaos tests' keyed sequences) and Jdbc on PostgreSQL (a table split by its key; two tables by
 * table_list).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { fakeSourceFactory } from '@tideway/connector-fake';
import { jdbcSourceFactory } from '@tideway/connector-jdbc';
import { sequenceSourceFactory } from '@tideway/connector-sequence';
import { localFileSourceFactory } from '@tideway/connector-localfile';
import { sourceContract, type ExpectedRow } from '@tideway/connector-contract';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { pgExec } from '../jdbc/databases.js';
import { FAKE_SOURCE_NOT_APPLICABLE, SEQUENCE_NOT_APPLICABLE } from './contract-table.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-contract-sources-'));
let pg: TestDatabaseServer;
beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await pg?.stop();
});

/** ids first..first+count-1 as `[table, id, name]`. */
const rowsOf = (table: string, first: number, count: number): ExpectedRow[] =>
  Array.from({ length: count }, (_, i) => [table, first + i, `${table}-${first + i}`]);

sourceContract({
  name: 'LocalFile (json)',
  factory: localFileSourceFactory,
  target: (id, tables) => {
    const expected: ExpectedRow[] = [];
    const folders: string[] = [];
    for (const [t, table] of (['items', 'parts'] as const).slice(0, tables).entries()) {
      const folder = join(root, id, table);
      mkdirSync(folder, { recursive: true });
      folders.push(folder);
      for (let f = 0; f < 4; f++) {
        const rows = rowsOf(table, 1000 * t + f * 10, 10);
        expected.push(...rows);
        writeFileSync(join(folder, `part-${f}.json`), rows.map(([, i, n]) => JSON.stringify({ id: i, name: n })).join('\n'));
      }
    }
    const one = (folder: string, table: string) => ({
      path: folder,
      file_format_type: 'json',
      schema: { table: `contract.${table}`, fields: { id: 'int', name: 'string' } },
    });
    const options = tables === 1 ? one(folders[0], 'items') : { tables_configs: [one(folders[0], 'items'), one(folders[1], 'parts')] };
    return { options, expected };
  },
  badOptions: [
    { options: { file_format_type: 'avro' }, option: 'file_format_type' },
    { options: { skip_header_row_number: -1 }, option: 'skip_header_row_number' },
  ],
});

sourceContract({
  name: 'FakeSource (rows)',
  factory: fakeSourceFactory,
  parallelism: 1,
  target: () => {
    const rows = rowsOf('items', 1, 12);
    return {
      options: {
        schema: { table: 'contract.items', fields: { id: 'int', name: 'string' } },
        rows: rows.map(([, i, n]) => ({ kind: 'INSERT', fields: [i, n] })),
        'split.num': 3,
        'row.num': 12,
      },
      // Each split emits the explicit rows (SeaTunnel's rule): three splits, three times each row.
      expected: [...rows, ...rows, ...rows],
    };
  },
  notApplicable: FAKE_SOURCE_NOT_APPLICABLE,
  badOptions: [{ options: { 'row.num': -1 }, option: 'row.num' }],
});

sourceContract({
  name: 'Jdbc (PostgreSQL)',
  factory: jdbcSourceFactory,
  target: async (id, tables) => {
    const expected: ExpectedRow[] = [];
    const names = (['items', 'parts'] as const).slice(0, tables).map((t) => [t, `${id}_${t}`] as const);
    for (const [t, name] of names) {
      const rows = rowsOf(name, t === 'items' ? 1 : 1001, 40);
      expected.push(...rows);
      await pgExec(
        pg,
        `CREATE TABLE public.${name} (id int PRIMARY KEY, name text); INSERT INTO public.${name} SELECT g, '${name}-' || g FROM generate_series(${t === 'items' ? 1 : 1001}, ${t === 'items' ? 40 : 1040}) g`,
      );
    }
    const conn = { url: pg.jdbcUrl, driver: 'org.postgresql.Driver', user: pg.user, password: pg.password, 'split.size': 8, fetch_size: 5 };
    const options =
      tables === 1
        ? { ...conn, table_path: `${pg.database}.public.${names[0][1]}` }
        : { ...conn, table_list: names.map(([, n]) => ({ table_path: `${pg.database}.public.${n}` })) };
    return { options, expected };
  },
  badOptions: [
    { options: { fetch_size: -5 }, option: 'fetch_size' },
    { options: { driver: 'oracle.jdbc.OracleDriver' }, option: 'driver' },
  ],
});

sourceContract({
  name: 'Sequence',
  factory: sequenceSourceFactory,
  target: () => {
    const expected: ExpectedRow[] = [];
    for (let key = 0; key < 8; key++) for (let seq = 0; seq < 1500; seq++) expected.push(['sequence', key, seq, `k${key}-s${seq}`]);
    return { options: { keys: 8, 'rows.per.key': 1500 }, expected };
  },
  notApplicable: SEQUENCE_NOT_APPLICABLE,
  badOptions: [{ options: { keys: 0 }, option: 'keys' }],
});
