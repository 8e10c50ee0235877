/**
 * The sink contract (libs/connector-contract) on the LocalFile sink, once per file format, read
 * back by other readers than Tideway's own: DuckDB for csv, text, json and parquet, SheetJS for
 * excel. Each scenario writes into its own folder, `${table_name}` a folder per table.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll } from 'vitest';
import * as XLSX from 'xlsx';
import type { CatalogTable } from '@tideway/api';
import { localFileSinkFactory } from '@tideway/connector-localfile';
import { sinkContract, type ReadRow, type SinkSubject } from '@tideway/connector-contract';
import { FILE_NOT_APPLICABLE } from './contract-table.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-contract-localfile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Files under `dir`, recursively, without hidden ones. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : f.startsWith('.') ? [] : [p];
  });
}

async function duck(sql: string): Promise<ReadRow[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return await (await c.run(sql)).getRowObjectsJS();
  } finally {
    c.closeSync();
  }
}

const quoted = (files: string[]) => `[${files.map((f) => `'${f}'`).join(', ')}]`;

/** What `format` files of `table` hold, by another reader. */
async function readFiles(format: string, files: string[], table: CatalogTable): Promise<ReadRow[]> {
  if (files.length === 0) return [];
  const names = table.columns.map((c) => c.name);
  const columns = `{${names.map((n) => `'${n}': 'VARCHAR'`).join(', ')}}`;
  switch (format) {
    case 'parquet':
      return duck(`SELECT * FROM read_parquet(${quoted(files)}, union_by_name = true)`);
    case 'json':
      return duck(`SELECT * FROM read_json(${quoted(files)}, columns = ${columns}, format = 'newline_delimited')`);
    case 'csv':
    case 'text': {
      const delim = format === 'csv' ? ',' : '\\x01';
      return duck(`SELECT * FROM read_csv(${quoted(files)}, header = false, delim = E'${delim}', columns = ${columns}, quote = '"')`);
    }
    case 'excel':
      return files.flatMap((f) => {
        const book = XLSX.read(readFileSync(f));
        const sheet = book.Sheets[book.SheetNames[0]];
        // The first row is the header SeaTunnel's excel writer puts above the rows.
        const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false }).slice(1);
        return rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i] ?? null])));
      });
    default:
      throw new Error(`no reader for ${format}`);
  }
}

function subject(format: string): SinkSubject {
  return {
    name: `LocalFile (${format})`,
    factory: localFileSinkFactory,
    delivery: 'exactly-once',
    // Every format shares the writer and committer: text and json fail each call of each method, the others the first.
    failureCalls: format === 'text' || format === 'json' ? 'every-call' : 'first-call',
    target: (id) => {
      const path = join(root, id);
      const tmp = join(root, `${id}-tmp`);
      mkdirSync(tmp);
      return {
        options: { path: `${path}/\${table_name}`, tmp_path: tmp, file_format_type: format },
        readBack: (table) => readFiles(format, filesUnder(join(path, table.path.table)), table),
        drop: () => {
          // Nothing of a finished or cancelled job stays in tmp_path.
          const left = filesUnder(tmp);
          if (left.length > 0) throw new Error(`LocalFile (${format}) left ${left.length} file(s) in tmp_path: ${left[0]}`);
          return Promise.resolve();
        },
      };
    },
    notApplicable: FILE_NOT_APPLICABLE,
    badOptions: [
      { options: { file_format_type: 'avro' }, option: 'file_format_type' },
      { options: { compress_codec: 'no-such-codec' }, option: 'compress_codec' },
      { options: { file_name_expression: 'x_${now}' }, option: 'file_name_expression' },
      { options: { encoding: 'no-such-charset' }, option: 'encoding' },
    ],
  };
}

for (const format of ['text', 'csv', 'json', 'parquet', 'excel']) sinkContract(subject(format));
