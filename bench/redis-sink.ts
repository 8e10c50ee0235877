/**
 * Redis sink benchmark (issue 38: >= 0.8x redis-benchmark's pipelined SET rate at the same
 * pipeline depth), in one run against one private redis-server:
 * - redis-benchmark -t set -P <depth>: SETs of random keys with values of the same size;
 * - a job (bench/job-case.ts, local mode in process): Sequence -> Redis sink, data_type key, key
 *   `k:{key}:{seq}`, value_field payload, batch_size = <depth>, as many rows as SETs.
 * Each is run BENCH_REPEAT times (default 3) in turn; medians are reported. The job's rate is
 * rows over the job's run time (its start and finish timestamps), so CLI start-up is left out
 * as redis-benchmark's own start-up is. The database is emptied between runs. Prints a Markdown
 * section for bench/RESULTS.md.
 *
 * usage: pnpm bench:redis [rows] [depth]   (default 1,000,000 rows, depth 100)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedis } from '@tideway/testing';
import { machineLine } from './machine.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const DEPTH = Number(process.argv[3] ?? 100);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const KEYS = 8;
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-redis-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startRedis();
const client = new Redis({ host: server.host, port: server.port });
try {
  const job = join(work, 'sequence-to-redis.conf');
  writeFileSync(
    job,
    `env { parallelism = 1, job.mode = "BATCH" }
source { Sequence { keys = ${KEYS}, rows.per.key = ${Math.ceil(ROWS / KEYS)} } }
sink { Redis { host = "${server.host}", port = ${server.port}, data_type = key, key = "k:{key}:{seq}", support_custom_key = true,
  value_field = "payload", batch_size = ${DEPTH} } }
`,
  );
  const rows = KEYS * Math.ceil(ROWS / KEYS);
  const sample = `k0-s${Math.floor(rows / KEYS / 2)}`; // a payload of middling length
  const baseline: number[] = [];
  const tideway: number[] = [];
  for (let run = 0; run < REPEAT; run++) {
    await client.flushall();
    const csv = execFileSync('redis-benchmark', [
      ...['-h', server.host, '-p', String(server.port), '-t', 'set', '-n', String(rows), '-P', String(DEPTH)],
      ...['-r', String(rows), '-d', String(sample.length), '-c', '1', '--csv'],
    ]).toString();
    const line = csv.split('\n').find((l) => l.startsWith('"SET"'));
    if (!line) throw new Error(`redis-benchmark printed no SET line:\n${csv}`);
    baseline.push(Number((JSON.parse(`[${line}]`) as string[])[1]));
    await client.flushall();
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'bench/job-case.ts', job], {
      cwd: join(import.meta.dirname, '..'),
    }).toString();
    const m = JSON.parse(out.trim().split('\n').pop()!) as { rowsWritten: number; runMs: number };
    const keys = await client.dbsize();
    if (m.rowsWritten !== rows || keys !== rows) throw new Error(`the job wrote ${m.rowsWritten} rows and left ${keys} keys, not ${rows}`);
    tideway.push(Math.round((rows / m.runMs) * 1000));
    console.error(`run ${run + 1}: redis-benchmark ${baseline[run]} SET/s, tideway ${tideway[run]} rows/s`);
  }
  const b = median(baseline);
  const t = median(tideway);
  const lines = [
    `## Redis sink against redis-benchmark (${new Date().toISOString().slice(0, 10)})`,
    '',
    machineLine({ load: true }),
    `${rows.toLocaleString('en')} SETs, pipeline depth ${DEPTH} (redis-benchmark -P ${DEPTH} -c 1; the sink's batch_size = ${DEPTH}), values of ${sample.length} bytes, median of ${REPEAT} runs taken in turn.`,
    '',
    '| tool | SET/s (median) | every run |',
    '|---|---|---|',
    `| redis-benchmark | ${Math.round(b).toLocaleString('en')} | ${baseline.map((x) => Math.round(x).toLocaleString('en')).join(', ')} |`,
    `| tideway (Sequence -> Redis, job run time) | ${t.toLocaleString('en')} | ${tideway.map((x) => x.toLocaleString('en')).join(', ')} |`,
    '',
    `| ratio | value |`,
    '|---|---|',
    `| tideway / redis-benchmark (issue 38 wants >= 0.8) | ${(t / b).toFixed(2)} |`,
  ];
  console.log(lines.join('\n'));
} finally {
  client.disconnect();
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
