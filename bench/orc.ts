/**
 * ORC write and read of the orders table (shared/bench/orders-postgres.sql's formulas, 12
 * columns, BENCH_ROWS rows, default 2,000,000), Tideway's LocalFile orc sink and source against
 * pyarrow's ORC writer and reader (Apache ORC's C++ library), in the same run. Each phase runs in
 * its own process. Tideway's sink is fed rows as it receives them from Tideway's PostgreSQL source
 * (orders-rows.ts, in batches of 1024, made on the fly, as bench/parquet.ts does); the "generate
 * only" phase times making those rows, so the writer's own cost is the difference. pyarrow writes
 * the same rows from a table it read from Tideway's file before its clock (as DuckDB's COPY writes
 * a table in memory in bench/parquet.ts), three times, the median counted; it reads its own file
 * and Tideway's the same way, and checks that its file holds the same rows as Tideway's. snappy
 * for both. Needs the ORC peers (scripts/ensure-orc-peers.sh). Results: bench/RESULTS.md.
 *
 *   BENCH_ROWS=500000 node --import tsx --conditions=source bench/orc.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLUMNS } from './orders-rows.js';
import { BATCH, batchOf, ROWS, sourceRowCount } from './parquet-paired.js';

const PYTHON = join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'orc', 'venv', 'bin', 'python');

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuSecs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

async function phase(name: string, dir: string): Promise<Record<string, number>> {
  const { localFileSinkFactory } = await import('@tideway/connector-localfile');
  const { optionsOf, parseDataType } = await import('@tideway/api');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (name === 'generate') {
    let n = 0;
    for (let g = 1; g <= ROWS; g += BATCH) n += batchOf(g).length;
    if (n === 0) throw new Error('nothing generated');
  } else if (name === 'tideway-write') {
    const table = {
      tableId: 'db.orders',
      path: { database: 'db', table: 'orders' },
      columns: COLUMNS.map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true })),
    };
    const path = join(dir, 'tideway');
    const options = optionsOf(
      { path, tmp_path: `${path}-tmp`, file_format_type: 'orc', compress_codec: 'snappy', batch_size: ROWS },
      localFileSinkFactory.spec,
    );
    const sink = localFileSinkFactory.create({ jobId: 'bench', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    for (let g = 1; g <= ROWS; g += BATCH) await writer.write(batchOf(g));
    const info = await writer.prepareCommit!(1);
    await writer.close();
    const committer = sink.createAggregatedCommitter!();
    await committer.commit([committer.combine([info])]);
  } else if (name === 'tideway-read') {
    const rows = await sourceRowCount(join(dir, 'tideway'), 'orc');
    if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`);
  }
  const secs = (performance.now() - t0) / 1000;
  return { secs, cpu: cpuSecs(cpu0), rowsPerSec: Math.round(ROWS / secs), rssMB: rss() };
}

const [, , child, dirArg] = process.argv;
if (child) {
  process.stdout.write(JSON.stringify(await phase(child, dirArg)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-orc-bench-'));
  try {
    const run = (name: string) =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name, dir], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as Record<string, number>;
    const gen = run('generate');
    const tw = run('tideway-write');
    const tr = run('tideway-read');
    const file = join(dir, 'tideway', readdirSync(join(dir, 'tideway'))[0]);
    const script = join(fileURLToPath(new URL('.', import.meta.url)), 'orc_pyarrow.py');
    const py = JSON.parse(execFileSync(PYTHON, [script, file, join(dir, 'pyarrow.orc')], { encoding: 'utf8' })) as {
      rows: number;
      same: boolean;
      write: { secs: number; min: number; max: number; first: number };
      read: { secs: number; min: number; max: number; first: number };
      readTideway: { secs: number; min: number; max: number; first: number };
    };
    if (py.rows !== ROWS) throw new Error(`pyarrow read ${py.rows} rows of Tideway's file, expected ${ROWS}`);
    const writerSecs = tw.secs - gen.secs;
    const rate = (secs: number) => (secs > 0 ? Math.round(ROWS / secs) : 0);
    const spread = (m: { min: number; max: number }) => `${m.min.toFixed(2)}-${m.max.toFixed(2)} s`;
    const lines = [
      `Date: ${new Date().toISOString()}; ${ROWS.toLocaleString('en')} rows, snappy; Tideway file ${(statSync(file).size / 1e6).toFixed(1)} MB, pyarrow file ${(statSync(join(dir, 'pyarrow.orc')).size / 1e6).toFixed(1)} MB; pyarrow reads Tideway's file as ${py.rows.toLocaleString('en')} rows, and its own file back as the same table: ${py.same}.`,
      '',
      '| phase | rows/s | CPU seconds | peak RSS (MB) |',
      '|---|---|---|---|',
      `| generate the rows only (PostgreSQL's COPY text parsed by Tideway's PostgreSQL source, in batches as a sink receives them) | ${gen.rowsPerSec} | ${gen.cpu.toFixed(2)} | ${gen.rssMB} |`,
      `| Tideway LocalFile sink, orc (rows generated on the fly) | ${tw.rowsPerSec} | ${tw.cpu.toFixed(2)} | ${tw.rssMB} |`,
      `| Tideway ORC writer alone (the two lines above subtracted) | ${rate(writerSecs)} | ${(tw.cpu - gen.cpu).toFixed(2)} | - |`,
      `| Tideway LocalFile source, orc (read the file above) | ${tr.rowsPerSec} | ${tr.cpu.toFixed(2)} | ${tr.rssMB} |`,
      `| pyarrow orc.write_table of the table in memory (median of 3 runs of ${spread(py.write)}, the first ${py.write.first.toFixed(2)} s) | ${rate(py.write.secs)} | - | - |`,
      `| pyarrow ORCFile(...).read() of its own file (median of 3 runs of ${spread(py.read)}) | ${rate(py.read.secs)} | - | - |`,
      `| pyarrow ORCFile(...).read() of Tideway's file (median of 3 runs of ${spread(py.readTideway)}) | ${rate(py.readTideway.secs)} | - | - |`,
      '',
      `Ratios (target >= 0.5): Tideway writer alone / pyarrow write = ${writerSecs > 0 ? (py.write.secs / writerSecs).toFixed(2) : 'drift'}, the sink with its rows made / pyarrow write = ${(py.write.secs / tw.secs).toFixed(2)}; Tideway read / pyarrow read = ${(py.read.secs / tr.secs).toFixed(2)}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
