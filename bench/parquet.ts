/**
 * Parquet write and read of the orders table (shared/bench/orders-postgres.sql's formulas, 12
 * columns, BENCH_ROWS rows, default 2,000,000), Tideway's LocalFile parquet sink and source against
 * DuckDB's COPY ... TO 'x.parquet' and read_parquet, in the same run. Each phase runs in its own
 * process (peak RSS from process.resourceUsage().maxRSS). Tideway's writer is fed rows as a sink
 * receives them from Tideway's PostgreSQL source, the source of this data: PostgreSQL's COPY text
 * of each row parsed by that source's own parser (orders-rows.ts `copyRows`), in batches of 1024
 * (the source's default fetch_size) made on the fly; the "generate only" phase times making those
 * rows, so the writer's own cost is the difference. Two processes' times are far apart on a
 * machine whose speed drifts, so the writer is also timed in one process ("paired"): blocks of
 * rows are made and thrown away, and the same rows made again and written, the two kinds of block
 * in alternating order, and the writer's cost is what the written blocks took more than the
 * others; that counts what a writer costs the making of the rows beside it (garbage collection,
 * caches, the file's bytes written while the next batch is made), which the time of the writer's
 * calls alone (also shown) leaves out; it is also timed on rows each made on its own (`orderRow`,
 * the bench's rows until 2026-12-04). The sink also writes rows all made before its clock (in
 * memory, as DuckDB's COPY reads its table), where both of its threads are busy throughout. The
 * two encoders (Tideway's and hyparquet-writer, the writer before it)
 * also run alone on the same rows.
 * Phases are timed after their modules load, in wall time and CPU time (on a shared machine the
 * CPU time is the steadier of the two). DuckDB's COPY runs three times and the median counts,
 * and so does the paired writer: the first of each in a process is shown too. DuckDB's COPY uses
 * every core (its default threads); it also runs on one thread (SET threads = 1), to compare core
 * for core with the one writer (whose row-group thread takes a second core too, mostly idle).
 * DuckDB then reads Tideway's file and its own table and counts the rows that differ. Last, DuckDB
 * writes a table with nested columns (bigint, string, int[], struct) and both read it (Tideway's
 * nested reader, parquet-nested-reader.ts), and both Parquet writers write the same values made
 * in JavaScript (Tideway's writer shreds them into levels, parquet-nested-shredder.ts).
 * Results: bench/RESULTS.md.
 *
 *   BENCH_ROWS=500000 node --import tsx --conditions=source bench/parquet.ts
 *   node --cpu-prof --import tsx --conditions=source bench/parquet.ts encode-flat /tmp   (one phase, to profile)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileEncoder } from '@tideway/connector-file-common';
import { COLUMNS } from './orders-rows.js';
import {
  BATCH,
  batchOf,
  calls,
  commitFile,
  DUCKDB_COPIES,
  fromMemoryRuns,
  medianRun,
  PAIRED_RUNS,
  pairedRuns,
  rowGroupThread,
  ROWS,
  rowsFrom,
  sinkWriter,
  sourceRowCount,
  timed,
  writeBatch,
} from './parquet-paired.js';

/** The nested table's columns and rows (duckdb-nested below writes the same values). */
const NESTED_COLUMNS = [
  ['id', 'bigint'],
  ['name', 'string'],
  ['li', 'array<int>'],
  ['st', 'row<a int, b string>'],
] as const;
function* nestedBatches(): Generator<unknown[][]> {
  for (let g0 = 0; g0 < ROWS; g0 += BATCH) {
    const rows: unknown[][] = [];
    for (let g = g0; g < Math.min(ROWS, g0 + BATCH); g++) rows.push([BigInt(g), `name-${g}`, [g, g % 7, null], [g, `b${g % 100}`]]);
    yield rows;
  }
}

/** The orders rows' fields, a batch at a time (the array reused, as the sink writer's is). */
function* ordersBatches(): Generator<unknown[][]> {
  const fields: unknown[][] = [];
  for (let g = 1; g <= ROWS; g += BATCH) {
    fields.length = 0;
    for (const row of batchOf(g)) fields.push(row.fields);
    yield fields;
  }
}

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuSecs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

async function phase(name: string, dir: string): Promise<Record<string, number>> {
  // timed from after the modules are loaded (tsx compiles them on import, which is no writer's cost)
  let t0 = performance.now();
  let cpu0 = process.cpuUsage();
  const start = () => {
    t0 = performance.now();
    cpu0 = process.cpuUsage();
  };
  if (name === 'generate') {
    // exactly what the other phases make: rows as a sink receives them, in batches held until the next one
    let n = 0;
    for (let g = 1; g <= ROWS; g += BATCH) n += batchOf(g).length;
    if (n === 0) throw new Error('nothing generated');
  } else if (name.startsWith('encode-')) {
    // the encoders alone, no sink around them, fed the same rows in the same batches: the orders
    // rows (encode-flat, encode-hyparquet), or a table with nested columns as the nested file DuckDB
    // writes below (encode-nested, encode-nested-hyparquet)
    const { newParquetEncoder, ParquetFileEncoder } = await import('@tideway/connector-file-common');
    const { parseDataType } = await import('@tideway/api');
    await rowGroupThread();
    const nested = name.startsWith('encode-nested');
    start();
    const columns = (nested ? NESTED_COLUMNS : COLUMNS).map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true }));
    const encoder: FileEncoder = name.endsWith('-hyparquet')
      ? new ParquetFileEncoder(columns, 'SNAPPY')
      : newParquetEncoder(columns, 'SNAPPY');
    let bytes = 0;
    for (const fields of nested ? nestedBatches() : ordersBatches()) {
      bytes += await timed(() => {
        // handed over as the sink writer hands them: in one call where the encoder takes batches
        if (encoder.addRows) encoder.addRows(fields, fields.length);
        else for (const r of fields) encoder.add(r);
        return encoder.take()?.length ?? 0;
      });
    }
    bytes += (await timed(() => encoder.finish()))?.length ?? 0;
    if (bytes === 0) throw new Error('nothing encoded');
  } else if (name === 'tideway-write') {
    await Promise.all([import('@tideway/connector-localfile'), import('@tideway/api')]); // loaded before the clock starts
    await rowGroupThread();
    start();
    const { sink, writer } = await sinkWriter(join(dir, 'tideway'));
    for (let g = 1; g <= ROWS; g += BATCH) await writeBatch(writer, g);
    await timed(() => commitFile(sink, writer));
  } else if (name === 'tideway-write-paired' || name === 'tideway-write-paired-made') {
    // one writer, paired in this thread (parquet-paired.ts says how)
    rowsFrom.made = name.endsWith('-made');
    await rowGroupThread();
    return medianRun(await pairedRuns(dir));
  } else if (name === 'tideway-write-memory') {
    await rowGroupThread();
    return medianRun(await fromMemoryRuns(dir));
  } else if (name === 'tideway-read' || name === 'tideway-read-nested') {
    await Promise.all([import('@tideway/connector-localfile'), import('@tideway/api')]); // loaded before the clock starts
    start();
    const rows = await sourceRowCount(name === 'tideway-read' ? join(dir, 'tideway') : join(dir, 'nested.parquet'), 'parquet');
    if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`);
  } else if (name === 'duckdb-nested') {
    // a table with nested columns (a list with nulls, a struct), written by DuckDB for the nested reader, and DuckDB's own read of it
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    const file = join(dir, 'nested.parquet');
    start();
    await c.run(`COPY (SELECT g::BIGINT AS id, 'name-' || g AS name, [g::INT, (g % 7)::INT, NULL] AS li, {'a': g::INT, 'b': 'b' || (g % 100)} AS st
      FROM range(0, ${ROWS}) t(g)) TO '${file}' (FORMAT parquet, COMPRESSION snappy)`);
    const copySecs = (performance.now() - t0) / 1000;
    start();
    await c.run(`CREATE TABLE back AS SELECT * FROM read_parquet('${file}')`);
    const secs = (performance.now() - t0) / 1000;
    return { secs, cpu: cpuSecs(cpu0), rowsPerSec: Math.round(ROWS / secs), copySecs };
  } else {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`CREATE TABLE orders AS SELECT g::BIGINT AS id, ((g * 7919) % 100000)::INT AS customer_id, (['new','paid','shipped','delivered','cancelled'])[1 + g % 5] AS status,
      'product-' || (g % 5000) AS product, (['north','south','east','west','central'])[1 + (g // 7) % 5] AS region, round(((g * 37) % 100000) / 100.0, 2)::DECIMAL(12,2) AS amount,
      ((g * 13) % 10000) / 7.0 AS weight, g % 3 <> 0 AS is_paid, TIMESTAMP '2024-01-01' + to_seconds(g % 31536000) + to_microseconds(g % 1000000) AS created_at,
      CASE WHEN g % 10 = 0 THEN NULL ELSE DATE '2024-01-01' + (g % 365)::INT END AS ship_date, repeat(md5(g::VARCHAR), 3) AS note,
      '{"sku": ' || (g % 1000) || ', "tags": ["a", ' || (g % 7) || ']}' AS attrs FROM range(1, ${ROWS} + 1) t(g)`);
    // three COPYs, the median reported (the first shown too): one takes 0.6-1.8 s, short enough
    // for the machine's speed of the moment to move it by a third, and the first in a process
    // was the slowest each time the order was looked at (2026-12-03: 1.1-1.3 s, then 0.7-1.1)
    const copy = async () => {
      const copies: { secs: number; cpu: number }[] = [];
      for (let k = 0; k < DUCKDB_COPIES; k++) {
        rmSync(join(dir, 'duckdb.parquet'), { force: true });
        start();
        await c.run(`COPY orders TO '${join(dir, 'duckdb.parquet')}' (FORMAT parquet, COMPRESSION snappy)`);
        copies.push({ secs: (performance.now() - t0) / 1000, cpu: cpuSecs(cpu0) });
      }
      const first = copies[0].secs;
      copies.sort((a, b) => a.secs - b.secs);
      return { first, min: copies[0].secs, max: copies[copies.length - 1].secs, ...copies[copies.length >> 1] };
    };
    // on all cores (DuckDB's default, issue 13's measure), then on one thread (core for core against one Tideway writer)
    const { first, min, max, secs: write, cpu: writeCpu } = await copy();
    await c.run('SET threads = 1');
    const single = await copy();
    await c.run('RESET threads');
    start();
    await c.run(`CREATE TABLE back AS SELECT * FROM read_parquet('${join(dir, 'duckdb.parquet')}')`);
    const read = (performance.now() - t0) / 1000;
    // DuckDB reads Tideway's file as the same rows as its own table, value for value
    const tideway = `read_parquet('${join(dir, 'tideway', '*.parquet')}')`;
    const differ = await c.run(
      `SELECT (SELECT count(*) FROM (SELECT * FROM orders EXCEPT ALL SELECT * FROM ${tideway})) + (SELECT count(*) FROM (SELECT * FROM ${tideway} EXCEPT ALL SELECT * FROM orders))`,
    );
    const differing = Number((await differ.getRowsJS())[0][0]);
    return {
      writeRowsPerSec: Math.round(ROWS / write),
      writeCpu,
      copyFirst: first,
      copyMin: min,
      copyMax: max,
      oneThreadSecs: single.secs,
      oneThreadMin: single.min,
      oneThreadMax: single.max,
      readRowsPerSec: Math.round(ROWS / read),
      rssMB: rss(),
      differing,
    };
  }
  const secs = (performance.now() - t0) / 1000;
  return { secs, cpu: cpuSecs(cpu0), rowsPerSec: Math.round(ROWS / secs), rssMB: rss(), callSecs: calls.ms / 1000 };
}

const [, , child, dirArg] = process.argv;
if (child) {
  process.stdout.write(JSON.stringify(await phase(child, dirArg)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-parquet-bench-'));
  try {
    const run = (name: string, flags: string[] = []) =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, ...flags, fileURLToPath(import.meta.url), name, dir], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as Record<string, number>;
    const gen = run('generate');
    const flat = run('encode-flat');
    const hyparquet = run('encode-hyparquet');
    const tw = run('tideway-write');
    const paired = run('tideway-write-paired');
    const pairedMade = run('tideway-write-paired-made');
    const memory = run('tideway-write-memory', ['--max-old-space-size=6144']); // the made rows take about 1.2 GB
    const tr = run('tideway-read');
    const duck = run('duckdb');
    const duckNested = run('duckdb-nested');
    const trNested = run('tideway-read-nested');
    const nested = run('encode-nested');
    const nestedHyparquet = run('encode-nested-hyparquet');
    const file = readdirSync(join(dir, 'tideway'))[0];
    // a difference of two processes' times: the machine's speed drifting between them can outweigh
    // the writer's cost, and then the difference says nothing ("drift") rather than a negative rate
    const less = (secs: number) => (secs > 0 ? String(Math.round(ROWS / secs)) : 'drift');
    const ratio = (a: number, b: number) => (a > 0 && b > 0 ? (a / b).toFixed(2) : 'drift');
    const writerOnlyCpu = tw.cpu - gen.cpu;
    const writerPaired = Math.round(ROWS / paired.writerSecs);
    const cpu = (secs: number) => secs.toFixed(2);
    const lines = [
      `Date: ${new Date().toISOString()}; ${ROWS.toLocaleString('en')} rows, snappy; Tideway file ${(statSync(join(dir, 'tideway', file)).size / 1e6).toFixed(1)} MB, DuckDB file ${(statSync(join(dir, 'duckdb.parquet')).size / 1e6).toFixed(1)} MB; rows DuckDB reads differently from Tideway's file than from its own table: ${duck.differing}.`,
      '',
      '| phase | rows/s | CPU seconds | peak RSS (MB) |',
      '|---|---|---|---|',
      `| generate the rows only (PostgreSQL's COPY text parsed by Tideway's PostgreSQL source, in batches as a sink receives them) | ${gen.rowsPerSec} | ${cpu(gen.cpu)} | ${gen.rssMB} |`,
      `| Tideway LocalFile sink, parquet (rows generated on the fly) | ${tw.rowsPerSec} | ${cpu(tw.cpu)} | ${tw.rssMB} |`,
      `| Tideway writer alone (the two lines above subtracted) | ${less(tw.secs - gen.secs)} | ${cpu(writerOnlyCpu)} | - |`,
      `| Tideway writer alone, paired in one process (median of ${PAIRED_RUNS} runs of ${paired.minWriterSecs.toFixed(2)}-${paired.maxWriterSecs.toFixed(2)} s, the first ${paired.firstWriterSecs.toFixed(2)} s; the median run's calls alone ${paired.callSecs.toFixed(2)} s, ${Math.round(ROWS / paired.callSecs)} rows/s) | ${writerPaired} | - | - |`,
      `| Tideway writer alone, paired, on rows each made on its own (orderRow, the bench's rows until 2026-12-04; median of ${PAIRED_RUNS} runs of ${pairedMade.minWriterSecs.toFixed(2)}-${pairedMade.maxWriterSecs.toFixed(2)} s, calls alone ${pairedMade.callSecs.toFixed(2)} s) | ${Math.round(ROWS / pairedMade.writerSecs)} | - | - |`,
      `| Tideway LocalFile sink on rows made before the clock (all in memory, as DuckDB's table; median of ${PAIRED_RUNS} runs of ${memory.minWriterSecs.toFixed(2)}-${memory.maxWriterSecs.toFixed(2)} s, the first ${memory.firstWriterSecs.toFixed(2)} s) | ${Math.round(ROWS / memory.writerSecs)} | - | - |`,
      `| Tideway's flat encoder alone, its calls' own time (${flat.callSecs.toFixed(2)} s) | ${Math.round(ROWS / flat.callSecs)} | - | - |`,
      `| Tideway's flat encoder alone, no sink (generate subtracted) | ${less(flat.secs - gen.secs)} | ${cpu(flat.cpu - gen.cpu)} | ${flat.rssMB} |`,
      `| hyparquet-writer 0.17 encoder alone, no sink (generate subtracted; the writer before) | ${less(hyparquet.secs - gen.secs)} | ${cpu(hyparquet.cpu - gen.cpu)} | ${hyparquet.rssMB} |`,
      `| Tideway LocalFile source, parquet (read the file above) | ${tr.rowsPerSec} | ${cpu(tr.cpu)} | ${tr.rssMB} |`,
      `| DuckDB COPY orders TO 'x.parquet' (median of ${DUCKDB_COPIES} runs of ${duck.copyMin.toFixed(2)}-${duck.copyMax.toFixed(2)} s, the first ${duck.copyFirst.toFixed(2)} s) | ${duck.writeRowsPerSec} | ${cpu(duck.writeCpu)} | ${duck.rssMB} (table in memory) |`,
      `| DuckDB COPY on one thread (SET threads = 1; median of ${DUCKDB_COPIES} runs of ${duck.oneThreadMin.toFixed(2)}-${duck.oneThreadMax.toFixed(2)} s) | ${Math.round(ROWS / duck.oneThreadSecs)} | - | - |`,
      `| DuckDB CREATE TABLE AS SELECT * FROM read_parquet | ${duck.readRowsPerSec} | | |`,
      `| Tideway LocalFile source, parquet with nested columns (DuckDB's file of bigint, string, int[], struct) | ${trNested.rowsPerSec} | ${cpu(trNested.cpu)} | ${trNested.rssMB} |`,
      `| DuckDB CREATE TABLE AS SELECT * FROM read_parquet, the nested file | ${duckNested.rowsPerSec} | ${cpu(duckNested.cpu)} | |`,
      `| DuckDB COPY (SELECT ... the nested table, made by SQL) TO 'x.parquet' (one run) | ${Math.round(ROWS / duckNested.copySecs)} | - | - |`,
      `| Tideway's writer, the nested table (rows made on the fly; its calls' own time ${nested.callSecs.toFixed(2)} s) | ${Math.round(ROWS / nested.callSecs)} | ${cpu(nested.cpu)} | ${nested.rssMB} |`,
      `| hyparquet-writer 0.17, the nested table (the same; its calls' own time ${nestedHyparquet.callSecs.toFixed(2)} s) | ${Math.round(ROWS / nestedHyparquet.callSecs)} | ${cpu(nestedHyparquet.cpu)} | ${nestedHyparquet.rssMB} |`,
      '',
      `Ratios: Tideway writer alone / DuckDB COPY = ${ratio(ROWS / duck.writeRowsPerSec, tw.secs - gen.secs)} subtracted, ${(writerPaired / duck.writeRowsPerSec).toFixed(2)} paired (of the medians; of the first runs ${(duck.copyFirst / paired.firstWriterSecs).toFixed(2)}; on rows made by orderRow ${(ROWS / pairedMade.writerSecs / duck.writeRowsPerSec).toFixed(2)}; CPU time: DuckDB / Tideway = ${ratio(duck.writeCpu, writerOnlyCpu)}); rows in memory / DuckDB COPY = ${(ROWS / memory.writerSecs / duck.writeRowsPerSec).toFixed(2)}; one writer / DuckDB COPY on one thread = ${(duck.oneThreadSecs / paired.writerSecs).toFixed(2)}; flat encoder / hyparquet-writer encoder = ${ratio(hyparquet.secs - gen.secs, flat.secs - gen.secs)}x (CPU ${ratio(hyparquet.cpu - gen.cpu, flat.cpu - gen.cpu)}x); Tideway read / DuckDB read_parquet = ${(tr.rowsPerSec / duck.readRowsPerSec).toFixed(2)}, of the nested file ${(trNested.rowsPerSec / duckNested.rowsPerSec).toFixed(2)}; nested write, hyparquet-writer's calls / Tideway's = ${(nestedHyparquet.callSecs / nested.callSecs).toFixed(2)}x, Tideway's calls / DuckDB's COPY = ${(duckNested.copySecs / nested.callSecs).toFixed(2)}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
