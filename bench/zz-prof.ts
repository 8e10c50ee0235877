import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '@tideway/testing';
import { loadOrders, pgRun, repo } from './orders-servers.js';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
const rows = Number(process.argv[2] ?? 2_000_000);
const dir = mkdtempSync(join(tmpdir(), 'stb-prof-'));
const s = await startPostgres({ settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
try {
  await pgRun(s, s.database, 'CREATE DATABASE src');
  await loadOrders(dir, s, undefined, rows);
  mkdirSync('/tmp/stb-dev/prof', { recursive: true });
  const vars = { parallelism: '1', checkpoint_interval: '10000', source_url: `jdbc:postgresql://${s.host}:${s.port}/src`, source_table: 'src.public.orders', sink_url: s.jdbcUrl, sink_database: s.database, sink_table: 'public.orders', user: s.user, password: s.password };
  const args = Object.entries(vars).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  const t0 = performance.now();
  execFileSync('/usr/bin/time', ['-v', process.execPath, '--cpu-prof', '--cpu-prof-dir=/tmp/stb-dev/prof', ...cliNodeArgs(), 'run', '-c', join(repo, 'bench/seatunnel/jdbc-pg-pg.conf'), ...args], { env: { ...process.env, TZ: 'UTC', TIDEWAY_THREAD_CPU_PROF: '/tmp/stb-dev/prof' }, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log('seconds', (performance.now() - t0) / 1000);
  console.log(await pgRun(s, s.database, 'select count(*) from orders'));
} finally {
  await s.stop();
}
