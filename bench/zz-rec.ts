import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ClusterProcesses, startPostgres } from '@tideway/testing';
import { loadOrders, pgRun, repo } from './orders-servers.js';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
const dir = mkdtempSync(join(tmpdir(), 'stb-rec-'));
const s = await startPostgres({ settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
try {
  await pgRun(s, s.database, 'CREATE DATABASE src');
  await loadOrders(dir, s, undefined, 2_000_000);
  await pgRun(s, s.database, 'CREATE TABLE orders_r (LIKE orders)');
  const c = new pg.Client({ host: s.host, port: s.port, user: s.user, password: s.password, database: s.database });
  await c.connect();
  const p = await ClusterProcesses.create({ cli: cliNodeArgs(), cwd: repo, dir: join(dir, 'cluster'), workers: [{ attributes: {} }, { attributes: {} }], slotNum: 2, jobScheduleStrategy: 'WAIT' });
  await p.startAll();
  await sleep(3000);
  const vars = { parallelism: '1', checkpoint_interval: '10000', source_url: `jdbc:postgresql://${s.host}:${s.port}/src`, source_table: 'src.public.orders', sink_url: s.jdbcUrl, sink_database: s.database, sink_table: 'public.orders_r', user: s.user, password: s.password };
  const args = Object.entries(vars).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  const cl = spawn(process.execPath, [...cliNodeArgs(), 'submit', '-c', join(repo, 'bench/seatunnel/jdbc-pg-pg.conf'), ...args, '--address', p.address('coordinator')], { stdio: 'ignore' });
  const size = async () => Number((await c.query("select pg_relation_size('orders_r') n")).rows[0].n);
  while ((await size()) === 0) await sleep(100);
  await sleep(2000);
  const names = p.workerNames();
  const logs = names.map((n) => p.log(n).length);
  // the worker whose log grew or just the one with the task: pick by cpu
  const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); return Number(x[11]) + Number(x[12]); };
  const b = names.map((n) => cpu(p.pid(n)!)); await sleep(1000); const u = names.map((n, i) => cpu(p.pid(n)!) - b[i]);
  const victim = names[u.indexOf(Math.max(...u))];
  const kt = new Date();
  console.log('kill', victim, kt.toISOString(), 'size', await size());
  await p.kill(victim, 'SIGKILL');
  const s0 = await size();
  const t0 = performance.now();
  let last = s0;
  while (performance.now() - t0 < 60000) {
    const z = await size();
    if (z !== last) { console.log(((performance.now() - t0) / 1000).toFixed(1), 's size', z); last = z; if (z > s0 + 8192 * 50) break; }
    await sleep(100);
  }
  console.log('--- coordinator log after kill');
  for (const l of p.log('coordinator').split('\n')) { const m = /"time":(\d+)/.exec(l); if (m && Number(m[1]) >= kt.getTime() - 500) console.log(l.slice(0, 400)); }
  console.log('--- resource-manager log after kill');
  for (const l of p.log('resource-manager').split('\n')) { const m = /"time":(\d+)/.exec(l); if (m && Number(m[1]) >= kt.getTime() - 500) console.log(l.slice(0, 300)); }
  cl.kill('SIGKILL');
  await p.stop();
  await c.end();
} finally {
  await s.stop();
}
