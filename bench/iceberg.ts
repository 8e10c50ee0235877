/**
 * Issue 37's target: a MySQL-CDC (on MariaDB) snapshot of shared/bench's `orders` into an Iceberg
 * table at >= 0.7x the rows/s of the same job into plain Parquet files (LocalFile parquet). One
 * private MariaDB (binlog on, as the CDC tests start it); each round runs the two jobs one after
 * the other, the order alternating between rounds; each run is timed from the start of
 * `tideway run` until its rows are committed: the Iceberg table's current snapshot has
 * `total-records` = rows (hadoop catalog on a local folder), or the committed Parquet files'
 * footers hold the rows. Both write snappy Parquet, checkpoint every 2 s, parallelism 1. Beside the
 * wall time, the Tideway process's CPU seconds (steadier than wall time on a shared machine).
 * Medians of the rounds.
 *
 * Then the streaming case: the same job into Iceberg with a 10 s checkpoint; once its snapshot
 * is committed, a writer changes `orders` at BENCH_CHANGES_PER_SECOND (default 10,000: per 100 ms
 * one transaction updating 80% of the changes' rows (a new `note`), inserting 10% and deleting
 * 10%) for BENCH_STREAM_SECONDS (default 60; 0 skips the case), then stops. Each snapshot the job
 * commits after that is read with Tideway's Iceberg reader (deletes applied) and compared with
 * the source (every id and its note); reported: the changes/s reached, and the seconds from the
 * writer's stop to the commit of the first snapshot equal to the source (target: within one
 * checkpoint, 10 s).
 *
 * Prints a Markdown section for bench/RESULTS.md.
 *
 * usage: pnpm bench:iceberg [rows]   (default 2,000,000; builds first)
 * env: BENCH_REPEAT (rounds, default 3), BENCH_CHECKPOINT_MS (default 2000), BENCH_STREAM_SECONDS,
 * BENCH_CHANGES_PER_SECOND
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentSnapshotRows, HadoopCatalog } from '@tideway/connector-iceberg';
import mysql from 'mysql2/promise';
import { startMariaDb } from '@tideway/testing';
import { parquetMetadata } from 'hyparquet';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { machineLine, procCpu } from './machine.js';
import { loadOrdersMariaDb, median, repo } from './orders-servers.js';

const ROWS = Number(process.argv[2] ?? 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const CHECKPOINT_MS = Number(process.env.BENCH_CHECKPOINT_MS ?? 2000);
const STREAM_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 60);
const CHANGES_PER_SECOND = Number(process.env.BENCH_CHANGES_PER_SECOND ?? 10_000);
/** The streaming case's checkpoint interval (issue 37). */
const STREAM_CHECKPOINT_MS = 10_000;
const TICK_MS = 100;
if (!Number.isInteger(ROWS) || ROWS < 1) throw new Error(`rows: ${process.argv[2]} is not a whole number of at least 1`);
// The writer deletes from the low ids up and updates the upper half: it needs room for both.
const perTick = Math.round((CHANGES_PER_SECOND * TICK_MS) / 1000);
if (STREAM_SECONDS > 0 && (STREAM_SECONDS * 1000 * perTick) / TICK_MS / 10 > ROWS / 2)
  throw new Error(
    `the streaming case deletes more rows than the lower half of ${ROWS} orders: give more rows or a lower BENCH_STREAM_SECONDS`,
  );
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-iceberg-'));

type Target = 'iceberg' | 'parquet';

interface Run {
  target: Target;
  seconds: number;
  cpu: number;
}

const machine = machineLine({ load: true });
const mySrv = await startMariaDb({ settings: { 'innodb-buffer-pool-size': '1G' } });

function sinkBlock(target: Target, out: string): string {
  if (target === 'iceberg')
    return `  Iceberg {
    catalog_name = "bench"
    iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${out}" }
    namespace = "db"
    table = "orders"
    iceberg.table.write-props = { "write.parquet.compression-codec" = "snappy" }
  }`;
  return `  LocalFile {
    path = "${out}"
    file_format_type = "parquet"
    compress_codec = "snappy"
  }`;
}

function jobFile(name: string, target: Target, out: string, checkpointMs = CHECKPOINT_MS): string {
  const file = join(work, `${name}.conf`);
  writeFileSync(
    file,
    `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = ${checkpointMs}
}
source {
  MySQL-CDC {
    base-url = "${mySrv.jdbcUrl}"
    username = "${mySrv.user}"
    password = "${mySrv.password}"
    table-names = ["${mySrv.database}.orders"]
    server-id = "${5400 + Math.floor(Math.random() * 1000)}"
  }
}
sink {
${sinkBlock(target, out)}
}
`,
  );
  return file;
}

/** Rows committed so far: the Iceberg table's current snapshot's total-records, or the committed Parquet files' row counts. */
function committedRows(target: Target, out: string): () => Promise<number> {
  if (target === 'iceberg') {
    const catalog = new HadoopCatalog(`file://${out}`);
    return async () => {
      const t = await catalog.load({ namespace: ['db'], name: 'orders' });
      const id = t?.metadata['current-snapshot-id'];
      const snapshot = t?.metadata.snapshots?.find((s) => s['snapshot-id'] === id);
      return Number(snapshot?.summary?.['total-records'] ?? 0);
    };
  }
  // Committed files only: the sink's transactions write elsewhere and move finished files here.
  const counted = new Map<string, number>();
  return () => {
    for (const name of readdirSync(out)) {
      const file = join(out, name);
      if (counted.has(name) || name.startsWith('.') || !statSync(file).isFile()) continue;
      const bytes = readFileSync(file);
      counted.set(name, Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)).num_rows));
    }
    return Promise.resolve([...counted.values()].reduce((a, b) => a + b, 0));
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `tideway run -c conf` started: its start time, a check that it still runs, its CPU seconds, a stop by SIGINT. */
function startJob(name: string, conf: string) {
  const started = performance.now();
  const child = spawn(process.execPath, [...cliNodeArgs(), 'run', '-c', conf], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  let ended: number | null | undefined;
  exited.then((c) => (ended = c)).catch(() => undefined); // 'close' never rejects
  return {
    started,
    check(state: string): void {
      if (ended !== undefined) throw new Error(`${name} ended (code ${ended}) with ${state}:\n${stderr.slice(-3000)}`);
    },
    cpu(): number | undefined {
      try {
        return procCpu(child.pid!).own;
      } catch {
        return undefined; // exiting
      }
    },
    async stop(): Promise<void> {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Starts the job, waits until its rows are committed, then stops it with SIGINT. */
async function snapshotRun(target: Target, round: number): Promise<Run> {
  const name = `${target}_${round}`;
  const out = join(work, name);
  mkdirSync(out);
  const job = startJob(name, jobFile(name, target, out));
  const committed = committedRows(target, out);
  let cpu = 0;
  let rows = 0;
  while (rows < ROWS) {
    job.check(`${rows} of ${ROWS} rows committed`);
    cpu = job.cpu() ?? cpu;
    await sleep(200);
    rows = await committed();
  }
  const seconds = (performance.now() - job.started) / 1000;
  cpu = job.cpu() ?? cpu;
  await job.stop();
  if (rows !== ROWS) throw new Error(`${name}: ${rows} rows committed, ${ROWS} expected`);
  rmSync(out, { recursive: true, force: true });
  console.error(
    `${name}: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s, Tideway ${cpu.toFixed(1)} CPU s`,
  );
  return { target, seconds, cpu };
}

interface StreamResult {
  changes: number;
  writeSeconds: number;
  /** Seconds from the writer's stop to the commit of the first snapshot equal to the source (undefined: none within the wait). */
  lagSeconds?: number;
  snapshotsAfterStop: number;
  tableRows: number;
}

/**
 * Changes `orders` for STREAM_SECONDS at CHANGES_PER_SECOND, one transaction per tick: updates of
 * a window of the upper half (note = u<tick>), inserts of copies of rows under new ids (note =
 * i<tick>), deletes from the lowest ids up. Returns the changes made and the seconds taken.
 */
async function writeChanges(): Promise<{ changes: number; seconds: number }> {
  const conn = await mysql.createConnection({
    host: mySrv.host,
    port: mySrv.port,
    user: mySrv.user,
    password: mySrv.password,
    database: mySrv.database,
  });
  const updates = Math.round(perTick * 0.8);
  const inserts = Math.round(perTick * 0.1);
  const deletes = perTick - updates - inserts;
  const half = Math.floor(ROWS / 2);
  let changes = 0;
  const started = performance.now();
  try {
    for (let n = 0; n * TICK_MS < STREAM_SECONDS * 1000; n++) {
      const due = started + n * TICK_MS;
      if (performance.now() < due) await sleep(due - performance.now());
      const u = half + 1 + ((n * updates) % (ROWS - half - updates));
      const fresh = ROWS + 1 + n * inserts;
      const d = 1 + n * deletes;
      await conn.beginTransaction();
      const [ur] = await conn.query<mysql.ResultSetHeader>(`UPDATE orders SET note = 'u${n}' WHERE id BETWEEN ${u} AND ${u + updates - 1}`);
      const [ir] = await conn.query<mysql.ResultSetHeader>(
        `INSERT INTO orders (id, customer_id, status, product, region, amount, weight, is_paid, created_at, ship_date, note, attrs) SELECT id + ${fresh - u}, customer_id, status, product, region, amount, weight, is_paid, created_at, ship_date, 'i${n}', attrs FROM orders WHERE id BETWEEN ${u} AND ${u + inserts - 1}`,
      );
      const [dr] = await conn.query<mysql.ResultSetHeader>(`DELETE FROM orders WHERE id BETWEEN ${d} AND ${d + deletes - 1}`);
      await conn.commit();
      changes += ur.affectedRows + ir.affectedRows + dr.affectedRows;
    }
    return { changes, seconds: (performance.now() - started) / 1000 };
  } finally {
    await conn.end();
  }
}

/** The streaming case: snapshot, then changes, then the time until a committed snapshot equals the source. */
async function streamRun(): Promise<StreamResult> {
  const out = join(work, 'stream');
  mkdirSync(out);
  const job = startJob('stream', jobFile('stream', 'iceberg', out, STREAM_CHECKPOINT_MS));
  const catalog = new HadoopCatalog(`file://${out}`);
  const ident = { namespace: ['db'], name: 'orders' };
  const committed = committedRows('iceberg', out);
  try {
    while ((await committed()) < ROWS) {
      job.check('the snapshot not committed');
      await sleep(500);
    }
    console.error(`stream: snapshot committed; writing ${CHANGES_PER_SECOND} changes/s for ${STREAM_SECONDS} s`);
    const written = await writeChanges();
    const stoppedAt = Date.now();
    console.error(`stream: ${written.changes} changes in ${written.seconds.toFixed(1)} s; waiting for the table to equal the source`);
    const conn = await mysql.createConnection({
      host: mySrv.host,
      port: mySrv.port,
      user: mySrv.user,
      password: mySrv.password,
      database: mySrv.database,
    });
    const [source] = await conn.query<mysql.RowDataPacket[]>('SELECT id, note FROM orders');
    await conn.end();
    const want = new Map(source.map((r) => [String(r.id), String(r.note)]));
    let seen: bigint | null | undefined;
    let snapshotsAfterStop = 0;
    let tableRows = 0;
    const deadline = Date.now() + 3 * STREAM_CHECKPOINT_MS + 60_000;
    while (Date.now() < deadline) {
      job.check('the stream not applied');
      const t = await catalog.load(ident);
      const id = t?.metadata['current-snapshot-id'];
      const snapshot = t?.metadata.snapshots?.find((s) => s['snapshot-id'] === id);
      if (snapshot && id !== seen) {
        seen = id;
        if (snapshot['timestamp-ms'] > stoppedAt) snapshotsAfterStop++;
        let rows = 0;
        let equal = true;
        for await (const batch of currentSnapshotRows(catalog, ident, ['id', 'note'])) {
          for (const [k, note] of batch) {
            rows++;
            if (want.get(String(k)) !== String(note)) equal = false;
          }
        }
        tableRows = rows;
        if (equal && rows === want.size)
          return {
            changes: written.changes,
            writeSeconds: written.seconds,
            lagSeconds: Math.max(0, snapshot['timestamp-ms'] - stoppedAt) / 1000,
            snapshotsAfterStop,
            tableRows,
          };
      }
      await sleep(500);
    }
    return { changes: written.changes, writeSeconds: written.seconds, snapshotsAfterStop, tableRows };
  } finally {
    await job.stop();
  }
}

const runs: Run[] = [];
let stream: StreamResult | undefined;
try {
  console.error(`loading ${ROWS.toLocaleString('en')} orders into MariaDB ...`);
  loadOrdersMariaDb(mySrv, ROWS);
  for (let i = 0; i < REPEAT; i++) {
    const order: Target[] = i % 2 === 0 ? ['iceberg', 'parquet'] : ['parquet', 'iceberg'];
    for (const t of order) runs.push(await snapshotRun(t, i));
  }
  if (STREAM_SECONDS > 0) stream = await streamRun();
} finally {
  await mySrv.stop();
  rmSync(work, { recursive: true, force: true });
}

const of = (t: Target) => runs.filter((r) => r.target === t);
const seconds = (t: Target) => median(of(t).map((r) => r.seconds));
const cpu = (t: Target) => median(of(t).map((r) => r.cpu));
const ratio = seconds('parquet') / seconds('iceberg');
const lines = [
  `## MySQL-CDC snapshot into Iceberg vs Parquet files (issue 37, bench/iceberg.ts), ${new Date().toISOString()}`,
  '',
  machine,
  '',
  `Data: ${ROWS.toLocaleString('en')} rows of shared/bench orders in a private MariaDB (binlog ROW), read by MySQL-CDC (STREAMING, initial snapshot, parallelism 1, checkpoint.interval ${CHECKPOINT_MS} ms) into an Iceberg table (hadoop catalog on a local folder, snappy) or the LocalFile sink (parquet, snappy). Seconds from the start of \`tideway run\` until every row is committed (the table's current snapshot, or the committed files); ${REPEAT} rounds, the order alternating; medians.`,
  '',
  '| sink | seconds | rows/s | Tideway CPU s | rows/s vs Parquet files (target >= 0.7) |',
  '|---|---|---|---|---|',
  ...(['parquet', 'iceberg'] as const).map(
    (t) =>
      `| ${t === 'iceberg' ? 'Iceberg' : 'LocalFile parquet'} | ${seconds(t).toFixed(1)} | ${Math.round(ROWS / seconds(t)).toLocaleString('en')} | ${cpu(t).toFixed(1)} | ${t === 'iceberg' ? `${ratio.toFixed(2)}x` : '1.00x'} |`,
  ),
  '',
];
if (stream) {
  const lag = stream.lagSeconds;
  lines.push(
    `Streaming: the same job into Iceberg, checkpoint.interval ${STREAM_CHECKPOINT_MS / 1000} s; after its snapshot, ${stream.changes.toLocaleString('en')} changes (80% updates, 10% inserts, 10% deletes, one transaction per ${TICK_MS} ms) in ${stream.writeSeconds.toFixed(1)} s: ${Math.round(stream.changes / stream.writeSeconds).toLocaleString('en')} changes/s (asked ${CHANGES_PER_SECOND.toLocaleString('en')}). ` +
      (lag === undefined
        ? `No snapshot equal to the source within ${(3 * STREAM_CHECKPOINT_MS + 60_000) / 1000} s of the stop (${stream.snapshotsAfterStop} snapshots after it; the last read had ${stream.tableRows} rows): target missed.`
        : `The first snapshot equal to the source (every id and note, ${stream.tableRows.toLocaleString('en')} rows, read by Tideway's Iceberg reader with deletes applied) was committed ${lag.toFixed(1)} s after the writer stopped (target: within one checkpoint, ${STREAM_CHECKPOINT_MS / 1000} s: ${lag <= STREAM_CHECKPOINT_MS / 1000 ? 'met' : 'missed'}).`),
    '',
  );
}
console.log(lines.join('\n'));
