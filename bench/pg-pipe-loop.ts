/**
 * A light loop for the Jdbc PostgreSQL -> PostgreSQL job against the psql pipe (issue 32): one
 * private PostgreSQL, shared/bench's `orders` loaded once, then rounds of `tideway run` on
 * bench/seatunnel/jdbc-pg-pg.conf (parallelism 1) and the psql `\copy` pipe, in turns (the order
 * rotates each round), medians printed. Several builds can be compared in the same run: each
 * `--cli name=path/to/services/cli/dist/main.js` is one more tool (default: this checkout's); Node
 * options may come before the path, separated by spaces (`--cli "prof=--cpu-prof main.js"`).
 * TIDEWAY_THREAD_CPU_PROF=<dir> in the environment profiles the Tideway runs' task threads.
 *
 * usage: node --import tsx bench/pg-pipe-loop.ts [--rows 2000000] [--rounds 5] [--cli name=main.js ...]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { loadOrders, median, pgCount, pgRun, psqlCopyPipe, psqlEnv, repo } from './orders-servers.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000000' },
    rounds: { type: 'string', default: '5' },
    cli: { type: 'string', multiple: true, default: [] },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const clis: Array<{ name: string; args: string[] }> =
  values.cli.length > 0
    ? values.cli.map((c) => {
        const eq = c.indexOf('=');
        return { name: c.slice(0, eq), args: c.slice(eq + 1).split(' ') };
      })
    : [{ name: 'tideway', args: cliNodeArgs() }];

/** Wall seconds and the CPU seconds (user + system) of a command and its children, from /usr/bin/time. */
function timed(label: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ seconds: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], { cwd: repo, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${label} exited ${code}\n${out.slice(-4000)}`));
      const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(out);
      resolve({ seconds, cpu: m ? Number(m[1]) + Number(m[2]) : NaN });
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'tideway-pg-pipe-'));
const pgSrv = await startPostgres({ settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
const env = { TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
const times = new Map<string, number[]>();
const cpus = new Map<string, number[]>();
try {
  await pgRun(pgSrv, pgSrv.database, 'CREATE DATABASE src');
  await loadOrders(work, pgSrv, undefined, ROWS);
  const vars = {
    parallelism: '1',
    checkpoint_interval: '10000',
    checkpoint_timeout: '60000',
    source_url: `jdbc:postgresql://${pgSrv.host}:${pgSrv.port}/src`,
    source_table: 'src.public.orders',
    sink_url: pgSrv.jdbcUrl,
    sink_database: pgSrv.database,
    sink_table: 'public.orders',
    user: pgSrv.user,
    password: pgSrv.password,
  };
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  const conf = join(repo, 'bench', 'seatunnel', 'jdbc-pg-pg.conf');
  const tools = [
    ...clis.map((c) => ({ name: c.name, run: () => timed(c.name, process.execPath, [...c.args, 'run', '-c', conf, ...varArgs], env) })),
    { name: 'psql pipe', run: () => timed('psql pipe', 'bash', psqlCopyPipe('src', pgSrv.database), { ...env, ...psqlEnv(pgSrv) }) },
  ];
  console.log(
    `load at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = tools.map((_, i) => tools[(i + round) % tools.length]);
    for (const t of order) {
      const m = await t.run();
      const n = await pgCount(pgSrv, pgSrv.database);
      if (n !== ROWS) throw new Error(`${t.name}: the target has ${n} rows, not ${ROWS}`);
      await pgRun(pgSrv, pgSrv.database, 'TRUNCATE orders; CHECKPOINT');
      times.set(t.name, [...(times.get(t.name) ?? []), m.seconds]);
      cpus.set(t.name, [...(cpus.get(t.name) ?? []), m.cpu]);
      console.log(`round ${round + 1}/${ROUNDS} ${t.name}: ${m.seconds.toFixed(2)} s, CPU ${m.cpu.toFixed(2)} s`);
    }
  }
  console.log(
    `load at end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
  const pipe = median(times.get('psql pipe')!);
  for (const [name, ts] of times) {
    const ratio = name === 'psql pipe' ? '' : `, ${(pipe / median(ts)).toFixed(2)}x the pipe`;
    const cpu = cpus.get(name)!;
    console.log(
      `${name}: median ${median(ts).toFixed(2)} s (${ts.map((x) => x.toFixed(2)).join(', ')})${ratio}; CPU median ${median(cpu).toFixed(2)} s (${cpu.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  await pgSrv.stop();
  rmSync(work, { recursive: true, force: true });
}
