import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { optionsOf, type PluginContext } from '@tideway/api';
import type { CdcSplit } from '@tideway/connector-cdc-common';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { PG_CDC_SPEC } from './pg-cdc-options.js';
import type { PgWatermark } from './pg-dialect.js';
import { PgCdcSource } from './pg-cdc-source.js';
import { describeBlockers } from './pg-replication-setup.js';
import {
  applyStrictly,
  chunksThenChangesAcrossRestore,
  ListCollector,
  pollUntil,
  pollWithCheckpoints,
  settle,
  snapshotThenStream,
} from '@tideway/connector-cdc-common';

let server: TestDatabaseServer;
let admin: pg.Client;
/** The context of a lone reader (no enumerator). */
const oneReader = {
  subtaskIndex: 0,
  parallelism: 1,
  boundedness: 'UNBOUNDED' as const,
  signalNoMoreElement: () => {},
  sendSplitRequest: () => {},
};

function source(extra: Record<string, unknown> = {}, jobMode: 'STREAMING' | 'BATCH' = 'STREAMING'): PgCdcSource {
  const options = optionsOf(
    {
      'base-url': server.jdbcUrl,
      username: server.user,
      password: server.password,
      'table-names': ['tideway.public.orders', 'tideway.public.notes'],
      'snapshot.split.size': 10,
      ...extra,
    },
    PG_CDC_SPEC,
  );
  const ctx: PluginContext = { jobId: 'j', jobMode, parallelism: 1, options, inputTables: [] };
  return new PgCdcSource(ctx);
}

async function plan(src: PgCdcSource): Promise<CdcSplit<string, PgWatermark>[]> {
  await src.prepare();
  return (await src.planSplits()) as CdcSplit<string, PgWatermark>[];
}

async function tableState(extra: Record<string, unknown> = {}): Promise<Map<string, unknown[]>> {
  const src = source({ 'slot.name': `peek_${Date.now()}`, 'startup.mode': 'initial', ...extra });
  const splits = await plan(src);
  const reader = src.createReader(oneReader);
  reader.addSplits(splits.filter((s) => s.kind === 'snapshot'));
  const out = new ListCollector();
  for (let i = 0; i < splits.length - 1; i++) await reader.pollNext(out);
  await reader.close();
  await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'peek_%'`);
  const state = new Map<string, unknown[]>();
  applyStrictly(state, out.rows);
  return state;
}

beforeAll(async () => {
  server = await startPostgres({ logical: true });
  admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, name text, amount numeric(12,2), at timestamp(6), zoned timestamptz, day date, flag boolean, tags text[], data jsonb, raw bytea, ratio double precision)`,
  );
  await admin.query(`ALTER TABLE orders REPLICA IDENTITY FULL`);
  await admin.query(`CREATE TABLE notes (code text PRIMARY KEY, body text)`);
  await admin.query(
    `INSERT INTO orders SELECT i, 'n' || i, i * 1.25, '2024-01-02 03:04:05.123456'::timestamp + i * interval '1 day', '2024-01-02 03:04:05.5+08', '2024-02-29', i % 2 = 0, ARRAY['a', 'b"c'], '{"k": 1}', '\\x00ff', 0.1 FROM generate_series(1, 45) i`,
  );
  await admin.query(`INSERT INTO notes VALUES ('a', 'x'), ('b', 'y')`);
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

describe('Postgres-CDC', () => {
  it('tells which prepared transaction a replication slot creation waits for', async () => {
    // A two-phase transaction left prepared (an XA sink's writer killed between prepare and
    // commit): PostgreSQL creates no logical slot until it ends, in whatever database it is.
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    const src = source();
    const creator = await src.catalog.connect();
    const watcher = await src.catalog.connect();
    try {
      await holder.query('CREATE TABLE held (id int)');
      await holder.query('BEGIN');
      await holder.query('INSERT INTO held VALUES (1)');
      await holder.query("PREPARE TRANSACTION 'tw-left-prepared'");
      const pid = Number((await creator.execute('SELECT pg_backend_pid()')).rows[0][0]);
      expect(await describeBlockers(watcher, pid)).toBeUndefined();
      const creating = creator.execute("SELECT pg_create_logical_replication_slot('held_slot', 'pgoutput')");
      let said: string | undefined;
      for (const end = Date.now() + 20_000; said === undefined && Date.now() < end; ) {
        said = await describeBlockers(watcher, pid);
        if (said === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(said).toMatch(
        /^prepared transaction 'tw-left-prepared' in database 'tideway' \(prepared .+; end it with COMMIT PREPARED or ROLLBACK PREPARED\)$/,
      );
      await admin.query("ROLLBACK PREPARED 'tw-left-prepared'");
      await creating;
      expect(await describeBlockers(watcher, pid)).toBeUndefined();
    } finally {
      const left = await admin.query("SELECT 1 FROM pg_prepared_xacts WHERE gid = 'tw-left-prepared'");
      if (left.rowCount) await admin.query("ROLLBACK PREPARED 'tw-left-prepared'");
      await admin.query("SELECT pg_drop_replication_slot('held_slot') FROM pg_replication_slots WHERE slot_name = 'held_slot'");
      await admin.query('DROP TABLE IF EXISTS held');
      await holder.end();
      await creator.close();
      await watcher.close();
    }
  }, 60_000);

  it(
    'reads the snapshot in chunks, then changes in order, each once, across a restore',
    () =>
      chunksThenChangesAcrossRestore({
        source: source(),
        run: (sql) => admin.query(sql),
        transaction: (statements) => admin.query(['BEGIN', ...statements, 'COMMIT'].join('; ')),
        tableState,
      }),
    60_000,
  );

  it("chunks a table by pg_class's row estimate, as SeaTunnel's Postgres splitter does, and a stale one loses no row", async () => {
    // Analyzed at 100 rows, then grown to 300 (autovacuum off, so the estimate stays stale).
    await admin.query(`CREATE TABLE big (id bigint PRIMARY KEY, v text) WITH (autovacuum_enabled = false);
      INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 100) g; ANALYZE big;
      INSERT INTO big SELECT g, 'v' || g FROM generate_series(101, 300) g;`);
    const extra = { 'table-names': ['tideway.public.big'] };
    const splits = await plan(source({ ...extra, 'slot.name': `peek_plan_${Date.now()}`, 'startup.mode': 'initial' }));
    // 100 rows estimated over keys 1..300: evenly spread, steps of 30 keys (counted, they would be steps of 10).
    expect(splits.filter((s) => s.kind === 'snapshot')).toHaveLength(10);
    const state = await tableState(extra);
    expect(state.size).toBe(300);
    expect(state.get('tideway.public.big:300')).toEqual([300n, 'v300']);
    // A table never analyzed is counted.
    await admin.query(`CREATE TABLE fresh (id bigint PRIMARY KEY, v text) WITH (autovacuum_enabled = false);
      INSERT INTO fresh SELECT g, 'v' || g FROM generate_series(1, 300) g;`);
    const counted = await plan(
      source({ 'table-names': ['tideway.public.fresh'], 'slot.name': `peek_plan2_${Date.now()}`, 'startup.mode': 'initial' }),
    );
    expect(counted.filter((s) => s.kind === 'snapshot')).toHaveLength(30);
    await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'peek_%'`);
  });

  it('keeps every type exact, as the Jdbc connector reads it', async () => {
    const src = source({ 'table-names': ['tideway.public.orders'], 'startup.mode': 'latest', 'slot.name': 'types' });
    const splits = await plan(src);
    expect(src.catalogTables()[0].columns.map((c) => c.type.kind)).toEqual([
      'bigint',
      'string',
      'decimal',
      'timestamp',
      'timestamp_tz',
      'date',
      'boolean',
      'array',
      'string',
      'bytes',
      'double',
    ]);
    const reader = src.createReader(oneReader);
    reader.addSplits(splits);
    const out = new ListCollector();
    await reader.pollNext(out); // opens the stream
    await admin.query(
      `INSERT INTO orders VALUES (500, 'ü', 12345678.91, '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.654321+08', '2024-02-29', true, ARRAY['a', NULL, 'b"c'], '{"k": [1, 2]}', '\\x00ff10', 0.1)`,
    );
    await pollUntil(reader, out, () => out.rows.length > 0);
    expect(out.rows[0].fields).toEqual([
      500n,
      'ü',
      '12345678.91',
      '2024-01-02T03:04:05.123456',
      '2024-01-01T19:04:05.654321+00:00',
      '2024-02-29',
      true,
      ['a', null, 'b"c'],
      '{"k": [1, 2]}',
      Buffer.from([0, 255, 16]),
      0.1,
    ]);
    await reader.close();
  }, 30_000);

  it('turns a key change under the default replica identity into a delete of the old key and an insert', async () => {
    await admin.query(`CREATE TABLE renames (k text PRIMARY KEY, v text)`);
    await admin.query(`INSERT INTO renames VALUES ('a', 'x')`);
    const src = source({ 'table-names': ['tideway.public.renames'], 'startup.mode': 'latest', 'slot.name': 'renames' });
    const splits = await plan(src);
    const reader = src.createReader(oneReader);
    reader.addSplits(splits);
    const out = new ListCollector();
    await reader.pollNext(out); // opens the stream
    await admin.query(`UPDATE renames SET v = 'y' WHERE k = 'a'`); // no old tuple: +U only
    await admin.query(`UPDATE renames SET k = 'b' WHERE k = 'a'`); // old key only ('K')
    await pollUntil(reader, out, () => out.rows.length >= 3);
    await settle(reader, out);
    expect(out.rows.map((r) => [r.kind, ...r.fields])).toEqual([
      ['+U', 'a', 'y'],
      ['-D', 'a', null],
      ['+I', 'b', 'y'],
    ]);
    await reader.close();
  }, 30_000);

  it('starts at a given LSN (startup.mode = specific), skipping what committed before it, and refuses one the slot has released', async () => {
    await admin.query(`CREATE TABLE spec (id int PRIMARY KEY)`);
    await plan(source({ 'table-names': ['tideway.public.spec'], 'startup.mode': 'latest', 'slot.name': 'spec' })); // slot and publication
    await admin.query(`INSERT INTO spec VALUES (1)`);
    const lsn = (await admin.query<{ l: string }>(`SELECT pg_current_wal_insert_lsn()::text AS l`)).rows[0].l;
    await admin.query(`INSERT INTO spec VALUES (2)`);
    const [hi, lo] = lsn.split('/').map((h) => BigInt(`0x${h}`));
    const src = source({
      'table-names': ['tideway.public.spec'],
      'startup.mode': 'specific',
      'startup.specific-offset.pos': String((hi << 32n) | lo),
      'slot.name': 'spec',
    });
    const splits = await plan(src);
    expect(splits.map((s) => s.kind)).toEqual(['stream']);
    const reader = src.createReader(oneReader);
    reader.addSplits(splits);
    const out = new ListCollector();
    await admin.query(`INSERT INTO spec VALUES (3)`);
    await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 3));
    await settle(reader, out);
    expect(out.rows.map((r) => `${r.kind}${String(r.fields[0])}`)).toEqual(['+I2', '+I3']);
    reader.snapshotState(1);
    await reader.notifyCheckpointComplete?.(1);
    await reader.close();
    await expect(
      plan(
        source({
          'table-names': ['tideway.public.spec'],
          'startup.mode': 'specific',
          'startup.specific-offset.pos': '16',
          'slot.name': 'spec',
        }),
      ),
    ).rejects.toThrow(/lies before replication slot 'spec''s confirmed position/);
  }, 30_000);

  it('table-pattern captures the tables whose whole db.schema.table names match', async () => {
    await admin.query(
      `CREATE TABLE pat_1 (id int PRIMARY KEY); CREATE TABLE pat_2 (id int PRIMARY KEY); CREATE TABLE pat_2_old (id int PRIMARY KEY)`,
    );
    await admin.query(`INSERT INTO pat_1 VALUES (1); INSERT INTO pat_2 VALUES (2)`);
    const byPattern = (o: Record<string, unknown>) =>
      new PgCdcSource({
        jobId: 'j',
        jobMode: 'STREAMING',
        parallelism: 1,
        inputTables: [],
        options: optionsOf(
          { 'base-url': server.jdbcUrl, username: server.user, password: server.password, 'slot.name': 'pat', ...o },
          PG_CDC_SPEC,
        ),
      });
    const src = byPattern({ 'table-pattern': 'tideway\\.public\\.pat_[0-9]+' });
    const splits = await plan(src);
    expect(src.catalogTables().map((t) => t.tableId)).toEqual(['tideway.public.pat_1', 'tideway.public.pat_2']);
    const rows = await snapshotThenStream(
      src.createReader(oneReader),
      splits,
      async () => {
        await admin.query(`INSERT INTO pat_2_old VALUES (9)`);
        await admin.query(`INSERT INTO pat_2 VALUES (3)`);
      },
      (out) => out.rows.some((r) => r.fields[0] === 3),
    );
    expect(rows).toEqual(['tideway.public.pat_1:+I1', 'tideway.public.pat_2:+I2', 'tideway.public.pat_2:+I3']);

    // A matching table created while streaming joins the captured tables (the publication is
    // FOR ALL TABLES, so its first rows, written before the stream saw it, are not lost); one
    // not matching stays out.
    const again = byPattern({ 'table-pattern': 'tideway\\.public\\.pat_[0-9]+', 'startup.mode': 'latest', 'slot.name': 'pat_new' });
    const streaming = again.createReader(oneReader);
    streaming.addSplits(await plan(again));
    const out = new ListCollector();
    await streaming.pollNext(out);
    await admin.query(
      `BEGIN; CREATE TABLE pat_3 (id int PRIMARY KEY, v text NOT NULL); INSERT INTO pat_3 VALUES (30, 'a'), (31, 'b'); COMMIT; CREATE TABLE pat_3_old (id int PRIMARY KEY); INSERT INTO pat_3_old VALUES (39)`,
    );
    await admin.query(`UPDATE pat_3 SET v = 'c' WHERE id = 31; DELETE FROM pat_3 WHERE id = 30`);
    await pollWithCheckpoints(streaming, out, () => out.rows.length >= 4);
    await settle(streaming, out);
    await streaming.close();
    expect(out.schemaChanges.map((c) => [c.event.tableId, c.event.created, c.rowsBefore])).toEqual([['tideway.public.pat_3', true, 0]]);
    expect(out.schemaChanges[0].event.table.columns.map((c) => [c.name, c.nullable])).toEqual([
      ['id', false],
      ['v', false],
    ]);
    expect(out.schemaChanges[0].event.table.primaryKey?.columns).toEqual(['id']);
    expect(out.rows.map((r) => `${r.tableId}:${r.kind}${r.fields.join(',')}`)).toEqual([
      'tideway.public.pat_3:+I30,a',
      'tideway.public.pat_3:+I31,b',
      'tideway.public.pat_3:+U31,c',
      'tideway.public.pat_3:-D30,',
    ]);
    // A publication that lists its tables would not publish tables created later.
    await admin.query(`CREATE PUBLICATION pat_listed_publication FOR TABLE pat_1`);
    await expect(plan(byPattern({ 'table-pattern': 'tideway\\.public\\.pat_[0-9]+', 'slot.name': 'pat_listed' }))).rejects.toThrow(
      /publication 'pat_listed_publication' lists its tables, so tables that table-pattern/,
    );
    await expect(plan(byPattern({ 'table-pattern': 'x', 'slot.name': 'pat_none' }))).rejects.toThrow(
      /table-pattern 'x' matches no table Postgres-CDC can capture/,
    );
  }, 30_000);

  it('decoderbufs: types, NULLs, unchanged TOAST values and transactions decode as the snapshot reads them', async () => {
    await admin.query(
      `CREATE TABLE kinds (id int PRIMARY KEY, i2 smallint, i8 bigint, n numeric(20,5), f4 real, f8 float8, b boolean, t text, vc varchar(8), c char(3), d date, ti time(3), ts timestamp(6), tz timestamptz, iv interval, j jsonb, u uuid, by bytea, arr int[], ip inet, p point, big text)`,
    );
    await admin.query(`ALTER TABLE kinds REPLICA IDENTITY FULL`);
    const opts = { 'table-names': ['tideway.public.kinds'], 'decoding.plugin.name': 'decoderbufs' };
    const src = source({ ...opts, 'slot.name': 'bufs', 'startup.mode': 'latest' });
    const reader = src.createReader(oneReader);
    reader.addSplits(await plan(src));
    const out = new ListCollector();
    await reader.pollNext(out);
    const big = `(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g)`;
    await admin.query(
      `BEGIN; INSERT INTO kinds VALUES (1, -7, 9007199254740993, 12345678901234.56789, 0.1, 1e-300, true, 'héllo', 'ab', 'x', '2024-02-29', '12:34:56.789', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+08', '1 day 02:00:03', '{"k": [1, "a"]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', '{1,NULL,3}', '10.0.0.1/8', '(1.5,-2)', ${big}); INSERT INTO kinds (id) VALUES (2), (3); COMMIT`,
    );
    await admin.query(`INSERT INTO kinds (id, d, ts, tz, f4) VALUES (4, '0044-03-15 BC', '1969-12-31 23:59:59.5', 'infinity', 'NaN')`);
    // The big value is TOASTed; this update leaves it unchanged, so decoderbufs does not send it.
    await admin.query(`UPDATE kinds SET t = 'changed', i2 = NULL WHERE id = 1`);
    await admin.query(`BEGIN; UPDATE kinds SET id = 5 WHERE id = 2; DELETE FROM kinds WHERE id = 3; COMMIT`);
    await pollUntil(reader, out, () => out.rows.length >= 9);
    await settle(reader, out);
    // The position is a commit's end: a reader restored from it repeats nothing.
    const [stream] = reader.snapshotState(1) as { position: string; skip: number }[];
    await reader.close();
    expect(out.rows.map((r) => `${r.kind}${String(r.fields[0])}`)).toEqual(['+I1', '+I2', '+I3', '+I4', '-U1', '+U1', '-U2', '+U5', '-D3']);
    const streamed = new Map<string, unknown[]>();
    applyStrictly(streamed, out.rows);
    expect(streamed).toEqual(await tableState(opts));
    await admin.query(`INSERT INTO kinds (id) VALUES (6)`);
    const again = source({ ...opts, 'slot.name': 'bufs', 'startup.mode': 'latest' });
    await again.prepare();
    const restored = again.createReader(oneReader);
    restored.addSplits([{ splitId: 'stream', kind: 'stream', position: stream.position, skip: stream.skip, chunks: [] }]);
    const after = new ListCollector();
    await pollUntil(restored, after, () => after.rows.length >= 1);
    await settle(restored, after);
    await restored.close();
    expect(after.rows.map((r) => `${r.kind}${String(r.fields[0])}`)).toEqual(['+I6']);
    await admin.query(`CREATE TABLE zoned (id int PRIMARY KEY, tt timetz)`);
    const refused = source({
      'table-names': ['tideway.public.zoned'],
      'decoding.plugin.name': 'decoderbufs',
      'slot.name': 'bufs_tz',
      'startup.mode': 'latest',
    });
    const r3 = refused.createReader(oneReader);
    r3.addSplits(await plan(refused));
    await r3.pollNext(new ListCollector());
    await admin.query(`INSERT INTO zoned VALUES (1, '12:00+02')`);
    await expect(pollUntil(r3, new ListCollector(), () => false)).rejects.toThrow(
      /column 'tt' of table tideway.public.zoned has type oid 1266/,
    );
    await r3.close();
    // A table created while streaming and matching table-pattern (no publication with decoderbufs).
    const byPattern = new PgCdcSource({
      jobId: 'j',
      jobMode: 'STREAMING',
      parallelism: 1,
      inputTables: [],
      options: optionsOf(
        {
          'base-url': server.jdbcUrl,
          username: server.user,
          password: server.password,
          'table-pattern': 'tideway\\.public\\.kinds|tideway\\.public\\.bufs_new',
          'decoding.plugin.name': 'decoderbufs',
          'slot.name': 'bufs_new',
          'startup.mode': 'latest',
        },
        PG_CDC_SPEC,
      ),
    });
    const r4 = byPattern.createReader(oneReader);
    r4.addSplits(await plan(byPattern));
    const created = new ListCollector();
    await r4.pollNext(created);
    await admin.query(`BEGIN; CREATE TABLE bufs_new (id int PRIMARY KEY, v text); INSERT INTO bufs_new VALUES (1, 'a'), (2, NULL); COMMIT`);
    await pollWithCheckpoints(r4, created, () => created.rows.length >= 2);
    await r4.close();
    expect(created.schemaChanges.map((c) => [c.event.tableId, c.event.created])).toEqual([['tideway.public.bufs_new', true]]);
    expect(created.rows.map((r) => `${r.tableId}:${r.kind}${r.fields.join(',')}`)).toEqual([
      'tideway.public.bufs_new:+I1,a',
      'tideway.public.bufs_new:+I2,',
    ]);
  }, 60_000);

  it('names the problem in one sentence: bad login, missing table, batch mode, bad options', async () => {
    await expect(plan(source({ password: 'wrong' }))).rejects.toThrow(/refused the login of user 'postgres'/);
    await expect(plan(source({ 'table-names': ['tideway.public.nope'] }))).rejects.toThrow(/table tideway.public.nope does not exist/);
    expect(() => source({}, 'BATCH')).toThrow(/streaming source/);
    expect(() => source({ 'decoding.plugin.name': 'wal2json' })).toThrow(/decoding.plugin.name 'wal2json' is not supported/);
    expect(() => source({ 'startup.mode': 'specific' })).toThrow(/startup.mode specific needs startup.specific-offset.pos/);
    expect(() => source({ 'startup.mode': 'timestamp' })).toThrow(/startup.mode timestamp is not supported by Postgres-CDC/);
    expect(() => source({ 'startup.mode': 'specific', 'startup.specific-offset.file': 'f', 'startup.specific-offset.pos': 4 })).toThrow(
      /startup.specific-offset.file is not supported/,
    );
    expect(() => source({ 'stop.mode': 'latest' })).toThrow(/stop.mode latest is not supported/);
    expect(() => source({ debezium: { 'snapshot.mode': 'never' } })).toThrow(/debezium property 'snapshot.mode'/);
  }, 30_000);

  it('says wal_level must be logical', async () => {
    const plain = await startPostgres();
    try {
      const options = optionsOf(
        { 'base-url': plain.jdbcUrl, username: plain.user, password: plain.password, 'table-names': ['tideway.public.t'] },
        PG_CDC_SPEC,
      );
      const src = new PgCdcSource({ jobId: 'j', jobMode: 'STREAMING', parallelism: 1, options, inputTables: [] });
      await expect(src.prepare()).rejects.toThrow(/wal_level=replica; Postgres-CDC needs wal_level=logical/);
    } finally {
      await plain.stop();
    }
  }, 60_000);
});
