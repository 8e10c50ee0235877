import { startPostgres } from '@tideway/testing';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pgExec, jdbcConnection, JobFolder } from './databases.js';
import { runCli } from '../conformance/cli-process.js';
const pgs = await startPostgres();
const f = new JobFolder();
for (let attempt = 0; attempt < 4; attempt++) {
  const t = `t${attempt}`;
  await pgExec(pgs, `create table ${t} (k int, seq bigint, payload text)`);
  const fd = join(f.dir, `faults${attempt}`);
  const conf = f.write(`env { job.mode = "BATCH", parallelism = 2, checkpoint.interval = 400, job.retry.times = 20, job.retry.interval.seconds = 0 }
source { Sequence { plugin_output = "seq", keys = 4, rows.per.key = 2000, rows.per.second = 2000 } }
transform { FaultInjector { plugin_input = "seq", plugin_output = "out", probability = 0.2, max = 4, min.rows = 500, dir = "${fd}" } }
sink { Jdbc { plugin_input = "out"
 ${jdbcConnection('pg', pgs)}
 query = "insert into ${t} (k, seq, payload) values (?, ?, ?)"
 is_exactly_once = true
 xa_data_source_class_name = "org.postgresql.xa.PGXADataSource" } }`);
  const r = await runCli(['run', '-c', conf], 150000);
  const gaps = await pgExec(pgs, `select k, s from (select k, generate_series(0,1999) s from generate_series(0,3) k) a where not exists (select 1 from ${t} b where b.k=a.k and b.seq=a.s) order by k, s`);
  const ranges: string[] = [];
  let cur: any = null;
  for (const g of gaps as any[]) { if (cur && cur.k === g.k && cur.e + 1 === Number(g.s)) cur.e++; else { if (cur) ranges.push(`${cur.k}:${cur.b}-${cur.e}`); cur = { k: g.k, b: Number(g.s), e: Number(g.s) }; } }
  if (cur) ranges.push(`${cur.k}:${cur.b}-${cur.e}`);
  const prep = await pgExec(pgs, 'select gid from pg_prepared_xacts');
  console.log(`attempt ${attempt}: code ${r.code} faults ${readdirSync(fd).length} lost ${gaps.length} ranges ${ranges.join(' ')} prepared ${prep.map((p: any) => p.gid).join(',')}`);
  if (gaps.length > 0) { (await import('node:fs')).writeFileSync(`/tmp/repro-${attempt}.log`, r.stderr); }
}
await pgs.stop();
