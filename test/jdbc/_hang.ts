import { startMariaDb } from '@tideway/testing';
import { myExec, jdbcConnection, JobFolder } from './databases.js';
import { spawnCli, waitForExit } from '../conformance/cli-process.js';
const m = await startMariaDb();
await myExec(m, 'CREATE TABLE dst (id BIGINT PRIMARY KEY, name TEXT)');
const f = new JobFolder();
const conf = f.write(`env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { row.num = 5, schema = { fields { id = bigint, name = string } } } }
sink { Jdbc { ${jdbcConnection('maria', m, { user: 'nobody' })}
 generate_sink_sql = true, database = "tideway", table = "dst" } }`);
const c = spawnCli(['run', '-c', conf]);
const t = setTimeout(() => c.kill('SIGINT'), 20000);
const r = await waitForExit(c);
clearTimeout(t);
console.log(r.code, r.signal, r.stderr.slice(0, 3000));
await m.stop(); f.cleanup();
