import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { optionsOf, type PluginContext, type SourceReader } from '@tideway/api';
import type { CdcEnumeratorState, CdcSplit } from '@tideway/connector-cdc-common';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { PG_CDC_SPEC } from './pg-cdc-options.js';
import type { PgWatermark } from './pg-dialect.js';
import { PgCdcSource } from './pg-cdc-source.js';
import { applyStrictly, ListCollector, pollUntil, settle, snapshotThenStream } from '@tideway/connector-cdc-common';

let server: TestDatabaseServer;
let admin: pg.Client;

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

async function tableState(): Promise<Map<string, unknown[]>> {
  const src = source({ 'slot.name': `peek_${Date.now()}`, 'startup.mode': 'initial' });
  const splits = await plan(src);
  const reader = src.createReader({
    subtaskIndex: 0,
    parallelism: 1,
    boundedness: 'UNBOUNDED',
    signalNoMoreElement: () => {},
    sendSplitRequest: () => {},
  });
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
  it('reads the snapshot in chunks, then changes in order, each once, across a restore', async () => {
    const src = source();
    const splits = await plan(src);
    expect(splits.filter((s) => s.kind === 'snapshot').length).toBeGreaterThan(3);
    const readerCtx = {
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED' as const,
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    };
    let reader: SourceReader<CdcSplit> = src.createReader(readerCtx);
    reader.addSplits(splits);
    const out = new ListCollector();
    // Changes while the snapshot is half read: some hit chunks already read, some chunks to come.
    await reader.pollNext(out);
    await reader.pollNext(out);
    await admin.query(`UPDATE orders SET name = 'early' WHERE id = 3`); // chunk read: must stream
    await admin.query(`UPDATE orders SET name = 'late' WHERE id = 40`); // chunk to come: in snapshot, not streamed
    await admin.query(`DELETE FROM orders WHERE id = 41`);
    await admin.query(`INSERT INTO orders (id, name) VALUES (100, 'new')`);
    await admin.query(`INSERT INTO notes VALUES ('c', 'z')`);
    const state = new Map<string, unknown[]>();
    // 'c' is in the notes snapshot (read after the insert): wait for the streamed update of 3.
    await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 3n && r.kind === '+U'));
    await settle(reader, out);
    applyStrictly(state, out.rows);
    expect(out.rows.filter((r) => r.fields[0] === 40n && r.kind !== '+I')).toEqual([]);
    expect(out.rows.filter((r) => r.fields[0] === 3n).map((r) => r.kind)).toEqual(['+I', '-U', '+U']);

    // A transaction of several changes, checkpointed in its middle is impossible to force; checkpoint between transactions.
    await admin.query(
      `BEGIN; UPDATE orders SET amount = 99.99 WHERE id = 5; DELETE FROM orders WHERE id = 6; INSERT INTO orders (id, name) VALUES (101, 'x'); COMMIT`,
    );
    let seen = out.rows.length;
    await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 101n));
    await settle(reader, out);
    applyStrictly(state, out.rows.slice(seen));
    const saved = reader.snapshotState(1);
    await reader.notifyCheckpointComplete?.(1);
    await admin.query(`UPDATE orders SET name = 'after-checkpoint' WHERE id = 7`);
    await reader.close();

    reader = src.createReader(readerCtx);
    reader.addSplits(saved);
    seen = out.rows.length;
    await admin.query(`INSERT INTO orders (id, name) VALUES (102, 'y')`);
    await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 102n));
    await settle(reader, out);
    applyStrictly(state, out.rows.slice(seen));
    expect(out.rows.slice(seen).map((r) => `${r.kind}${String(r.fields[0])}`)).toEqual(['-U7', '+U7', '+I102']);
    await reader.close();
    expect(state).toEqual(await tableState());
  }, 60_000);

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
    const reader = src.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED',
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    });
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
    const reader = src.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED',
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    });
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
    const lsn = (await admin.query(`SELECT pg_current_wal_insert_lsn()::text AS l`)).rows[0].l as string;
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
    const reader = src.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED',
      signalNoMoreElement: () => {},
      sendSplitRequest: () => {},
    });
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
      src.createReader({
        subtaskIndex: 0,
        parallelism: 1,
        boundedness: 'UNBOUNDED',
        signalNoMoreElement: () => {},
        sendSplitRequest: () => {},
      }),
      splits,
      async () => {
        await admin.query(`INSERT INTO pat_2_old VALUES (9)`);
        await admin.query(`INSERT INTO pat_2 VALUES (3)`);
      },
      (out) => out.rows.some((r) => r.fields[0] === 3),
    );
    expect(rows).toEqual(['tideway.public.pat_1:+I1', 'tideway.public.pat_2:+I2', 'tideway.public.pat_2:+I3']);
    await expect(plan(byPattern({ 'table-pattern': 'x', 'slot.name': 'pat_none' }))).rejects.toThrow(
      /table-pattern 'x' matches no table Postgres-CDC can capture/,
    );
  }, 30_000);

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
