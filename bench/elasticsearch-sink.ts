/**
 * Elasticsearch sink benchmark (issue 38: >= 0.8x the docs/s of a `_bulk` loader at the same
 * batch size), in one run against one OpenSearch 2.19 node (scripts/ensure-opensearch.sh):
 * - the loader: one keep-alive connection POSTing `_bulk` requests of <batch> index actions in
 *   turn, documents prepared before the clock starts (what a plain loading script does);
 * - a job (bench/job-case.ts, local mode in process): Sequence -> Elasticsearch sink,
 *   max_batch_size = <batch>, as many documents of the same shape.
 * The node is warmed first by one untimed loader pass (its JIT and caches; the first pass used to
 * run at a third of the later ones). Each is then run BENCH_REPEAT times (default 3) in turn into
 * a fresh index; medians are reported.
 * The job's rate is rows over the job's run time (its start and finish timestamps), so CLI
 * start-up is left out. Each side's client CPU time (all threads, user + system) per 1,000
 * documents is reported too: the node shares the machine's cores with the client, and CPU time
 * varies far less than rates on a busy machine. Prints a Markdown section for bench/RESULTS.md.
 *
 * usage: pnpm bench:elasticsearch [docs] [batch]   (default 200,000 docs, batch 1,000)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpenSearch } from '@tideway/testing';
import { machineLine } from './machine.js';

const DOCS = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 1000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const KEYS = 8;
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-es-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const node = await startOpenSearch({ heapMb: 1024 });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function post(path: string, body: string, type = 'application/json'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${node.url}${path}`, { method: 'POST', agent, headers: { 'content-type': type } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`${path}: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function count(index: string): Promise<number> {
  await post(`/${index}/_refresh`, '');
  return (JSON.parse(await post(`/${index}/_count`, '{}')) as { count: number }).count;
}
async function reset(index: string): Promise<void> {
  await fetch(`${node.url}/${index}`, { method: 'DELETE' });
  await fetch(`${node.url}/${index}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mappings: { properties: { key: { type: 'integer' }, seq: { type: 'long' }, payload: { type: 'text' } } } }),
  });
}

try {
  const rows = KEYS * Math.ceil(DOCS / KEYS);
  const job = join(work, 'sequence-to-es.conf');
  writeFileSync(
    job,
    `env { parallelism = 1, job.mode = "BATCH" }
source { Sequence { keys = ${KEYS}, rows.per.key = ${rows / KEYS} } }
sink { Elasticsearch { hosts = ["${node.url}"], index = "bench_tw", max_batch_size = ${BATCH}, schema_save_mode = IGNORE } }
`,
  );
  // The loader's requests: the same documents (key, seq, payload) the Sequence source makes.
  const bodies: string[] = [];
  let lines = '';
  for (let i = 0; i < rows; i++) {
    const key = i % KEYS;
    const seq = Math.floor(i / KEYS);
    lines += `{"index":{"_index":"bench_loader"}}\n${JSON.stringify({ key, seq, payload: `k${key}-s${seq}` })}\n`;
    if ((i + 1) % BATCH === 0 || i === rows - 1) {
      bodies.push(lines);
      lines = '';
    }
  }
  const loader: number[] = [];
  const tideway: number[] = [];
  const loaderCpu: number[] = [];
  const tidewayCpu: number[] = [];
  const ratios: number[] = [];
  await reset('bench_loader');
  for (const b of bodies) await post('/_bulk', b, 'application/x-ndjson'); // warm-up, untimed
  for (let run = 0; run < REPEAT; run++) {
    await reset('bench_loader');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (const b of bodies) {
      const answer = await post('/_bulk', b, 'application/x-ndjson');
      if (answer.includes('"errors":true')) throw new Error('the loader got item errors');
    }
    loader.push(Math.round((rows / (performance.now() - t0)) * 1000));
    const cpu = process.cpuUsage(cpu0);
    loaderCpu.push((cpu.user + cpu.system) / 1000 / (rows / 1000));
    if ((await count('bench_loader')) !== rows) throw new Error('the loader did not index every document');
    await reset('bench_tw');
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'bench/job-case.ts', job], {
      cwd: join(import.meta.dirname, '..'),
    }).toString();
    const m = JSON.parse(out.trim().split('\n').pop()!) as { rowsWritten: number; runMs: number; cpuMs: number };
    const indexed = await count('bench_tw');
    if (m.rowsWritten !== rows || indexed !== rows)
      throw new Error(`the job wrote ${m.rowsWritten} rows and indexed ${indexed}, not ${rows}`);
    tideway.push(Math.round((rows / m.runMs) * 1000));
    tidewayCpu.push(m.cpuMs / (rows / 1000));
    ratios.push(tideway[run] / loader[run]);
    console.error(`run ${run + 1}: _bulk loader ${loader[run]} docs/s, tideway ${tideway[run]} rows/s`);
  }
  const l = median(loader);
  const t = median(tideway);
  console.log(
    [
      `## Elasticsearch sink against a _bulk loader (${new Date().toISOString().slice(0, 10)})`,
      '',
      machineLine({ load: true }),
      `${rows.toLocaleString('en')} documents of 3 fields into one OpenSearch 2.19.6 node (1 GB heap), _bulk batches of ${BATCH} (the sink's max_batch_size), one connection, after an untimed warm-up pass of the loader, median of ${REPEAT} runs taken in turn, each into a fresh index.`,
      '',
      '| tool | docs/s (median) | every run |',
      '|---|---|---|',
      `| _bulk loader (Node, requests prepared beforehand) | ${l.toLocaleString('en')} | ${loader.map((x) => x.toLocaleString('en')).join(', ')} |`,
      `| tideway (Sequence -> Elasticsearch, job run time) | ${t.toLocaleString('en')} | ${tideway.map((x) => x.toLocaleString('en')).join(', ')} |`,
      '',
      '| ratio | value |',
      '|---|---|',
      `| tideway / _bulk loader (issue 38 wants >= 0.8) | ${(t / l).toFixed(2)} |`,
      `| median of each run's tideway / loader (${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${median(ratios).toFixed(2)} |`,
      `| client CPU ms per 1,000 docs, loader / tideway (median) | ${median(loaderCpu).toFixed(1)} / ${median(tidewayCpu).toFixed(1)} |`,
    ].join('\n'),
  );
} finally {
  agent.destroy();
  await node.stop();
  rmSync(work, { recursive: true, force: true });
}
