/**
 * Parquet write and read of the orders table (shared/bench/orders-postgres.sql's formulas, 12
 * columns, BENCH_ROWS rows, default 2,000,000), Tideway's LocalFile parquet sink and source against
 * DuckDB's COPY ... TO 'x.parquet' and read_parquet, in the same run. Each phase runs in its own
 * process (peak RSS from process.resourceUsage().maxRSS). Tideway's writer is fed rows as a sink
 * receives them (batches of 4096 made on the fly); the "generate only" phase times making those
 * rows, so the writer's own cost is the difference. Results: bench/RESULTS.md.
 *
 *   node --import tsx --conditions=source bench/parquet.ts
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000);
const BATCH = 4096;
const STATUS = ['new', 'paid', 'shipped', 'delivered', 'cancelled'];
const REGION = ['north', 'south', 'east', 'west', 'central'];
const BASE = Date.UTC(2024, 0, 1);
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Row g of orders as Tideway holds it (bigint, decimal text, timestamp text, ...). */
function orderRow(g: number): unknown[] {
  const micros = g % 1_000_000;
  const d = new Date(BASE + (g % 31_536_000) * 1000 + Math.floor(micros / 1000));
  const ts = `${d.toISOString().slice(0, 19)}.${pad(d.getUTCMilliseconds() * 1000 + (micros % 1000), 6)}`;
  const amount = (g * 37) % 100_000;
  const md5 = createHash('md5').update(String(g)).digest('hex');
  return [
    BigInt(g),
    (g * 7919) % 100_000,
    STATUS[g % 5],
    `product-${g % 5000}`,
    REGION[Math.floor(g / 7) % 5],
    `${Math.floor(amount / 100)}.${pad(amount % 100)}`,
    ((g * 13) % 10_000) / 7,
    g % 3 !== 0,
    ts,
    g % 10 === 0 ? null : new Date(BASE + (g % 365) * 86_400_000).toISOString().slice(0, 10),
    md5 + md5 + md5,
    JSON.stringify({ sku: g % 1000, tags: ['a', g % 7] }),
  ];
}

const COLUMNS: [string, string][] = [
  ['id', 'bigint'],
  ['customer_id', 'int'],
  ['status', 'string'],
  ['product', 'string'],
  ['region', 'string'],
  ['amount', 'decimal(12, 2)'],
  ['weight', 'double'],
  ['is_paid', 'boolean'],
  ['created_at', 'timestamp'],
  ['ship_date', 'date'],
  ['note', 'string'],
  ['attrs', 'string'],
];

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function phase(name: string, dir: string): Promise<Record<string, number>> {
  const t0 = performance.now();
  if (name === 'generate') {
    let n = 0;
    for (let g = 1; g <= ROWS; g++) n += orderRow(g).length;
    if (n === 0) throw new Error('nothing generated');
  } else if (name === 'tideway-write') {
    const { localFileSinkFactory } = await import('@tideway/connector-localfile');
    const { optionsOf, parseDataType } = await import('@tideway/api');
    const table = {
      tableId: 'db.orders',
      path: { database: 'db', table: 'orders' },
      columns: COLUMNS.map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true })),
    };
    const options = optionsOf(
      { path: join(dir, 'tideway'), tmp_path: join(dir, 'tmp'), file_format_type: 'parquet', compress_codec: 'snappy', batch_size: ROWS },
      localFileSinkFactory.spec,
    );
    const sink = localFileSinkFactory.create({ jobId: 'bench', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    for (let g = 1; g <= ROWS; g += BATCH) {
      const rows = [];
      for (let i = g; i < Math.min(g + BATCH, ROWS + 1); i++) rows.push({ kind: '+I' as const, tableId: 'db.orders', fields: orderRow(i) });
      await writer.write(rows);
    }
    const info = await writer.prepareCommit!(1);
    await writer.close();
    const committer = sink.createAggregatedCommitter!();
    await committer.commit([committer.combine([info])]);
  } else if (name === 'tideway-read') {
    const { localFileSourceFactory } = await import('@tideway/connector-localfile');
    const { optionsOf } = await import('@tideway/api');
    const source = localFileSourceFactory.create({
      jobId: 'bench',
      jobMode: 'BATCH',
      parallelism: 1,
      options: optionsOf({ path: join(dir, 'tideway'), file_format_type: 'parquet' }, localFileSourceFactory.spec),
      inputTables: [],
    });
    await source.prepare!();
    const splits: unknown[] = [];
    source
      .createEnumerator({
        parallelism: 1,
        registeredReaders: () => [0],
        assignSplits: (_s, sp) => splits.push(...sp),
        signalNoMoreSplits: () => {},
      })
      .run();
    let done = false;
    let rows = 0;
    const reader = source.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'BOUNDED',
      signalNoMoreElement: () => (done = true),
      sendSplitRequest: () => {},
    });
    reader.addSplits(splits as never[]);
    reader.handleNoMoreSplits();
    const out = { collect: () => rows++, collectBatch: (b: readonly unknown[]) => (rows += b.length) };
    while (!done) await reader.pollNext(out);
    if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`);
  } else {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`CREATE TABLE orders AS SELECT g::BIGINT AS id, ((g * 7919) % 100000)::INT AS customer_id, (['new','paid','shipped','delivered','cancelled'])[1 + g % 5] AS status,
      'product-' || (g % 5000) AS product, (['north','south','east','west','central'])[1 + (g // 7) % 5] AS region, round(((g * 37) % 100000) / 100.0, 2)::DECIMAL(12,2) AS amount,
      ((g * 13) % 10000) / 7.0 AS weight, g % 3 <> 0 AS is_paid, TIMESTAMP '2024-01-01' + to_seconds(g % 31536000) + to_microseconds(g % 1000000) AS created_at,
      CASE WHEN g % 10 = 0 THEN NULL ELSE DATE '2024-01-01' + (g % 365)::INT END AS ship_date, repeat(md5(g::VARCHAR), 3) AS note,
      json_object('sku', g % 1000, 'tags', json_array('a', g % 7))::VARCHAR AS attrs FROM range(1, ${ROWS} + 1) t(g)`);
    const t1 = performance.now();
    await c.run(`COPY orders TO '${join(dir, 'duckdb.parquet')}' (FORMAT parquet, COMPRESSION snappy)`);
    const write = (performance.now() - t1) / 1000;
    const t2 = performance.now();
    await c.run(`CREATE TABLE back AS SELECT * FROM read_parquet('${join(dir, 'duckdb.parquet')}')`);
    const read = (performance.now() - t2) / 1000;
    return { writeRowsPerSec: Math.round(ROWS / write), readRowsPerSec: Math.round(ROWS / read), rssMB: rss() };
  }
  const secs = (performance.now() - t0) / 1000;
  return { secs, rowsPerSec: Math.round(ROWS / secs), rssMB: rss() };
}

const [, , child, dirArg] = process.argv;
if (child) {
  process.stdout.write(JSON.stringify(await phase(child, dirArg)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-parquet-bench-'));
  try {
    const run = (name: string): Record<string, number> =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name, dir], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      );
    const gen = run('generate');
    const tw = run('tideway-write');
    const tr = run('tideway-read');
    const duck = run('duckdb');
    const file = readdirSync(join(dir, 'tideway'))[0];
    const writerOnly = Math.round(ROWS / (tw.secs - gen.secs));
    const lines = [
      `Date: ${new Date().toISOString()}; ${ROWS.toLocaleString('en')} rows, snappy; Tideway file ${(statSync(join(dir, 'tideway', file)).size / 1e6).toFixed(1)} MB, DuckDB file ${(statSync(join(dir, 'duckdb.parquet')).size / 1e6).toFixed(1)} MB.`,
      '',
      '| phase | rows/s | peak RSS (MB) |',
      '|---|---|---|',
      `| generate the rows only (Tideway values) | ${gen.rowsPerSec} | ${gen.rssMB} |`,
      `| Tideway LocalFile sink, parquet (rows generated on the fly) | ${tw.rowsPerSec} | ${tw.rssMB} |`,
      `| Tideway writer alone (the two lines above subtracted) | ${writerOnly} | - |`,
      `| Tideway LocalFile source, parquet (read the file above) | ${tr.rowsPerSec} | ${tr.rssMB} |`,
      `| DuckDB COPY orders TO 'x.parquet' | ${duck.writeRowsPerSec} | ${duck.rssMB} (table in memory) |`,
      `| DuckDB CREATE TABLE AS SELECT * FROM read_parquet | ${duck.readRowsPerSec} | |`,
      '',
      `Ratios: Tideway writer alone / DuckDB COPY = ${(writerOnly / duck.writeRowsPerSec).toFixed(2)}; Tideway read / DuckDB read_parquet = ${(tr.rowsPerSec / duck.readRowsPerSec).toFixed(2)}.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
