/**
 * The data files of the extra conformance set (seatunnel-extra/fixtures/fixtures.tsv): which of
 * SeaTunnel's data files go where, and how its IT puts them there. `made by` is one of:
 * - `copy`: one file of shared extra/fixtures as it is;
 * - `mkdir`: an empty folder (no file, written `-`);
 * - `lzop`, `zip`, `tar`, `tar_gz`: made by that command-line tool, as the IT makes them at
 *   test time (lzop of one file; an archive holding each file listed, separated by spaces, as
 *   one entry);
 * - `duckdb_parquet`: the rows of a json file of SeaTunnel's, written as Parquet by DuckDB,
 *   with the column types of SeaTunnel's FakeSource schema those files hold. The IT copies an
 *   e2e.parquet of its own that shared/ does not have; its configs look only at c_string,
 *   c_boolean and c_double and the partition folders. (The decimals pass through DuckDB's JSON
 *   reader as doubles, so their last digits are not e2e.json's.)
 * - `bytes:<n>`: n pseudo-random bytes, every byte value among them (no file, `-`), standing in
 *   for a file no config looks into: the binary configs copy SeaTunnel's picture cat.png byte
 *   for byte and count its 1024-byte parts (MAX_ROW 1924); 1,969,664 bytes are 1,924 parts.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export interface Fixture {
  readonly files: readonly string[];
  readonly dest: string;
  readonly madeBy: string;
}

export function readFixtures(tsv: string): Fixture[] {
  return readFileSync(tsv, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [files, dest, madeBy] = line.split('\t');
      return { files: files.split(' '), dest, madeBy };
    });
}

/** The command that makes `out` from `inputs` (files in its working folder), per `made by`. */
const TOOLS: Record<string, (out: string, inputs: string[]) => [string, string[]]> = {
  lzop: (out, inputs) => ['lzop', ['-q', '-o', out, ...inputs]],
  zip: (out, inputs) => ['zip', ['-q', out, ...inputs]],
  tar: (out, inputs) => ['tar', ['-cf', out, ...inputs]],
  tar_gz: (out, inputs) => ['tar', ['-czf', out, ...inputs]],
};

/** `n` bytes of a fixed xorshift sequence: the same file on every run. */
function pseudoRandomBytes(n: number): Buffer {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`fixtures.tsv: bytes:${n} is not a size`);
  const out = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** SeaTunnel's FakeSource schema of e2e.json's rows (its configs' `schema`), in DuckDB's types; c_row repeats it in capitals. */
const FAKE_COLUMNS =
  'c_map MAP(VARCHAR, VARCHAR), c_array INTEGER[], c_string VARCHAR, c_boolean BOOLEAN, c_tinyint TINYINT, c_smallint SMALLINT, ' +
  'c_int INTEGER, c_bigint BIGINT, c_float FLOAT, c_double DOUBLE, c_bytes VARCHAR, c_date DATE, c_decimal DECIMAL(38, 18), c_timestamp TIMESTAMP';

function duckdbJsonColumns(): string {
  const pairs = FAKE_COLUMNS.split(/, (?=c_)/).map((p) => {
    const space = p.indexOf(' ');
    return [p.slice(0, space), p.slice(space + 1)];
  });
  const row = pairs.map(([n, t]) => `${n.toUpperCase()} ${t}`).join(', ');
  return `{${[...pairs, ['c_row', `STRUCT(${row})`]].map(([n, t]) => `${n}: '${t}'`).join(', ')}}`;
}

/** Writes the rows of SeaTunnel's json file `src` as Parquet to `out`, by DuckDB (bytes are base64 in the json). */
async function duckdbParquet(src: string, out: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(
      `COPY (SELECT * REPLACE (from_base64(c_bytes) AS c_bytes) FROM read_json('${src}', format = 'newline_delimited', columns = ${duckdbJsonColumns()})) TO '${out}' (FORMAT parquet)`,
    );
  } finally {
    c.closeSync();
  }
}

/**
 * The fixtures another library makes (DuckDB's are async), made once into a folder of their own:
 * `lay` copies them from there. `dispose` removes the folder.
 */
export async function prepareFixtures(
  fixtures: readonly Fixture[],
  data: string,
): Promise<{ made: Map<string, string>; dispose: () => void }> {
  const work = mkdtempSync(join(tmpdir(), 'tideway-fixtures-'));
  const made = new Map<string, string>();
  for (const [i, f] of fixtures.entries()) {
    if (f.madeBy !== 'duckdb_parquet') continue;
    const out = join(work, `${i}-${basename(f.dest)}`);
    await duckdbParquet(join(data, f.files[0]), out);
    made.set(f.dest, out);
  }
  return { made, dispose: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * Lays one fixture at its destination (folders made). A tool's fixture is made as SeaTunnel's
 * IT makes it, in a folder of its own removed after: each data file under a name of its own with
 * the same suffix (the IT's entries are `<random>e2e_<millis>.txt`), the output copied over.
 */
export function layFixture(f: Fixture, data: string, made: ReadonlyMap<string, string>): void {
  mkdirSync(dirname(f.dest), { recursive: true });
  if (f.madeBy === 'copy') return copyFileSync(join(data, f.files[0]), f.dest);
  if (f.madeBy === 'mkdir') return void mkdirSync(f.dest, { recursive: true }); // the IT's mkdir -p
  if (f.madeBy.startsWith('bytes:')) return writeFileSync(f.dest, pseudoRandomBytes(Number(f.madeBy.slice('bytes:'.length))));
  const ready = made.get(f.dest);
  if (ready !== undefined) return copyFileSync(ready, f.dest);
  const tool = TOOLS[f.madeBy];
  if (!tool)
    throw new Error(
      `fixtures.tsv: ${f.dest} is made by '${f.madeBy}', none of copy, mkdir, bytes:<n>, duckdb_parquet, ${Object.keys(TOOLS).join(', ')}`,
    );
  const work = mkdtempSync(join(tmpdir(), 'tideway-fixture-'));
  try {
    const inputs = f.files.map((file, i) => {
      const name = `${basename(file, extname(file))}_${i + 1}${extname(file)}`;
      copyFileSync(join(data, file), join(work, name));
      return name;
    });
    const [command, args] = tool(basename(f.dest), inputs);
    execFileSync(command, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
    copyFileSync(join(work, basename(f.dest)), f.dest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
