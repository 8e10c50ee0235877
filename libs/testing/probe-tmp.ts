import pg from 'pg';
import { startPostgres } from '@tideway/testing';
const s = await startPostgres({ logical: true, settings: { output_plugin_libraries: process.env.OPL ?? 'pgoutput' } });
const cols = (process.env.COLS ?? 'id int PRIMARY KEY, v text').trim();
const vals = process.env.VALS ?? "1, 'a'";
try {
  const c = new pg.Client({ connectionString: s.url });
  c.on('error', (e) => console.log('client error', e.message));
  await c.connect();
  await c.query(`CREATE TABLE t (${cols})`);
  await c.query(`SELECT pg_create_logical_replication_slot('p', $1)`, [process.env.PLUGIN ?? 'decoderbufs']);
  console.log('slot ok', (await c.query('SHOW wal_level')).rows, (await c.query('SELECT * FROM pg_replication_slots')).rows);
  await c.query(`INSERT INTO t VALUES (${vals})`);
  await c.query(process.env.UPD ?? `UPDATE t SET id = id WHERE true`);
  await c.query(`DELETE FROM t`);
  await new Promise((r) => setTimeout(r, 1000));
  console.log(
    'cnt',
    (await c.query("SELECT count(*) FROM pg_logical_slot_peek_binary_changes('p', NULL, NULL)")).rows,
    (await c.query('SELECT pg_current_wal_lsn()')).rows,
  );
  const r = await c.query(`SELECT lsn::text, xid::text, encode(data, 'hex') AS h FROM pg_logical_slot_get_binary_changes('p', NULL, NULL)`);
  console.log('rows', r.rows.length);
  for (const row of r.rows) console.log(row.lsn, row.xid, row.h);
  await c.end();
} catch (e) {
  console.log('ERR', (e as Error).message);
} finally {
  await s.stop();
}
