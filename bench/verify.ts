/**
 * `tideway verify` time on shared/bench's `orders` (issue 14), against the copy it checks, in
 * one run on the same servers:
 * - PostgreSQL -> PostgreSQL: `tideway run` (Jdbc, COPY), then `tideway verify` on the equal
 *   tables, then again after one row was deleted and one changed in the target (the
 *   differing ranges are fetched and matched by key);
 * - MariaDB -> PostgreSQL: the same. Its `weight` (double) and `attrs` (JSON) columns have no
 *   canonical text shared by the two dialects, so verify compares them itself and reads every
 *   row of those columns (decision 0016).
 * Prints a Markdown section for bench/RESULTS.md.
 *
 * usage: pnpm bench:verify [rows]   (default 2,000,000; builds first)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import {
  jobConf,
  loadOrders,
  mariaConnection,
  pgConnection,
  pgCount,
  pgRun,
  startOrdersServers,
  timed,
  type Measured,
} from './orders-servers.js';
import { machineLine } from './machine.js';

const ROWS = Number(process.argv[2] ?? 2_000_000);
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-verify-'));
const cli = cliNodeArgs();
const { pgSrv, mySrv } = await startOrdersServers();
const results: Array<{ flow: string; step: string; m: Measured; note: string }> = [];

try {
  const sink = [
    ...pgConnection(pgSrv, pgSrv.database),
    '    generate_sink_sql = true',
    `    database = "${pgSrv.database}"`,
    '    table = "public.orders"',
    '    use_copy_statement = true',
  ].join('\n');
  const flows = [
    {
      flow: 'PG->PG',
      conf: jobConf(work, 'pg-to-pg', [...pgConnection(pgSrv, 'src'), '    table_path = "src.public.orders"'].join('\n'), sink),
    },
    {
      flow: 'MariaDB->PG',
      conf: jobConf(work, 'maria-to-pg', [...mariaConnection(mySrv), `    table_path = "${mySrv.database}.orders"`].join('\n'), sink),
    },
  ];
  console.error(`loading ${ROWS} rows into PostgreSQL and MariaDB ...`);
  await loadOrders(work, pgSrv, mySrv, ROWS);
  for (const { flow, conf } of flows) {
    console.error(`${flow}: copy ...`);
    const copy = await timed('run', process.execPath, [...cli, 'run', '-c', conf]);
    results.push({ flow, step: 'tideway run (the copy)', m: copy, note: '' });
    const copied = await pgCount(pgSrv, pgSrv.database);
    if (copied !== ROWS)
      throw new Error(`${flow}: the target holds ${copied} rows, not ${ROWS}; the run printed:\n${copy.stdout.slice(-3000)}`);
    await pgRun(pgSrv, pgSrv.database, 'VACUUM ANALYZE orders');
    console.error(`${flow}: verify (equal) ...`);
    const equal = await timed('verify', process.execPath, [...cli, 'verify', '-c', conf, '--json']);
    const r = JSON.parse(equal.stdout) as { equal: boolean; tables: Array<{ ranges: number; differingRanges: number }> };
    if (!r.equal) throw new Error(`${flow}: verify found the copy unequal:\n${equal.stdout.slice(0, 3000)}`);
    results.push({ flow, step: 'tideway verify, equal', m: equal, note: `${r.tables[0].ranges} ranges` });
    await pgRun(
      pgSrv,
      pgSrv.database,
      `DELETE FROM orders WHERE id = ${Math.floor(ROWS / 3)}; UPDATE orders SET note = 'changed' WHERE id = ${Math.floor((2 * ROWS) / 3)}`,
    );
    console.error(`${flow}: verify (2 rows differ) ...`);
    const unequal = await timed('verify', process.execPath, [...cli, 'verify', '-c', conf, '--json'], {}, [1]);
    const u = JSON.parse(unequal.stdout) as { tables: Array<{ missing: number; different: number; differingRanges: number }> };
    if (u.tables[0].missing !== 1 || u.tables[0].different !== 1)
      throw new Error(`${flow}: verify did not find the two changed rows:\n${unequal.stdout.slice(0, 3000)}`);
    results.push({
      flow,
      step: 'tideway verify, 1 row deleted + 1 changed',
      m: unequal,
      note: `${u.tables[0].differingRanges} differing ranges; both keys named`,
    });
    await pgRun(pgSrv, pgSrv.database, 'TRUNCATE orders; CHECKPOINT');
  }
} finally {
  await Promise.all([pgSrv.stop(), mySrv.stop()]);
  rmSync(work, { recursive: true, force: true });
}

const lines: string[] = [];
lines.push(`## tideway verify (bench/verify.ts), ${new Date().toISOString().slice(0, 10)}`, '');
lines.push(machineLine({ postgres: true }));
lines.push(
  `Data: ${ROWS.toLocaleString('en')} rows of shared/bench orders; servers as in the Jdbc sync benchmark. Wall time of each whole command, one run each.`,
  '',
);
lines.push('| flow | command | seconds | of the copy | peak RSS MB | note |', '|---|---|---|---|---|---|');
for (const r of results) {
  const copy = results.find((x) => x.flow === r.flow && x.step.startsWith('tideway run'))!;
  lines.push(
    `| ${r.flow} | ${r.step} | ${r.m.seconds.toFixed(1)} | ${((r.m.seconds / copy.m.seconds) * 100).toFixed(0)}% | ${Math.round(r.m.peakRssMb)} | ${r.note} |`,
  );
}
console.log(lines.join('\n'));
