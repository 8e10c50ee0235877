import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import { optionsOf, type PluginContext } from '@tideway/api';
import {
  applyStrictly,
  chunksThenChangesAcrossRestore,
  ListCollector,
  pollUntil,
  pollWithCheckpoints,
  settle,
  snapshotThenStream,
  type CdcEnumeratorState,
  type CdcSplit,
} from '@tideway/connector-cdc-common';
import { startMariaDb, type TestDatabaseServer } from '@tideway/testing';
import { MYSQL_CDC_SPEC } from './mysql-cdc-options.js';
import type { BinlogPosition } from './binlog-position.js';
import { MySqlCdcSource } from './mysql-cdc-source.js';

let server: TestDatabaseServer;
let admin: mysql.Connection;
const readerCtx = {
  subtaskIndex: 0,
  parallelism: 1,
  boundedness: 'UNBOUNDED' as const,
  signalNoMoreElement: () => {},
  sendSplitRequest: () => {},
};

function source(extra: Record<string, unknown> = {}, url?: string): MySqlCdcSource {
  const options = optionsOf(
    {
      'base-url': url ?? server.jdbcUrl,
      username: server.user,
      password: server.password,
      'table-names': ['tideway.orders', 'tideway.notes'],
      'snapshot.split.size': 10,
      'server-id': '5400-5408',
      ...extra,
    },
    MYSQL_CDC_SPEC,
  );
  const ctx: PluginContext = { jobId: 'j', jobMode: 'STREAMING', parallelism: 1, options, inputTables: [] };
  return new MySqlCdcSource(ctx);
}

async function plan(src: MySqlCdcSource): Promise<CdcSplit<BinlogPosition, BinlogPosition>[]> {
  await src.prepare();
  return (await src.planSplits()) as CdcSplit<BinlogPosition, BinlogPosition>[];
}

async function tableState(): Promise<Map<string, unknown[]>> {
  const src = source();
  const splits = await plan(src);
  const reader = src.createReader(readerCtx);
  reader.addSplits(splits.filter((s) => s.kind === 'snapshot'));
  const out = new ListCollector();
  for (let i = 0; i < splits.length - 1; i++) await reader.pollNext(out);
  await reader.close();
  const state = new Map<string, unknown[]>();
  applyStrictly(state, out.rows);
  return state;
}

beforeAll(async () => {
  server = await startMariaDb();
  admin = await mysql.createConnection({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: server.database,
  });
  await admin.query(
    `CREATE TABLE orders (id bigint PRIMARY KEY, name varchar(64), amount decimal(12,2), at datetime(6), day date, flag tinyint(1), data json, raw varbinary(16), ratio double, big bigint unsigned, t time(3))`,
  );
  await admin.query(`CREATE TABLE notes (code varchar(8) PRIMARY KEY, body text)`);
  for (let i = 1; i <= 45; i++) {
    await admin.query(
      `INSERT INTO orders VALUES (?, ?, ?, '2024-01-02 03:04:05.123456', '2024-02-29', ?, '{"k": 1}', x'00ff', 0.1, 18446744073709551615, '12:34:56.789')`,
      [i, `n${i}`, (i * 1.25).toFixed(2), i % 2],
    );
  }
  await admin.query(`INSERT INTO notes VALUES ('a', 'x'), ('b', 'y')`);
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

describe('MySQL-CDC on MariaDB', () => {
  it(
    'reads the snapshot in chunks, then binlog changes in order, each once, across a restore',
    () =>
      chunksThenChangesAcrossRestore({
        source: source(),
        run: (sql) => admin.query(sql),
        transaction: async (statements) => {
          await admin.query('BEGIN');
          for (const sql of statements) await admin.query(sql);
          await admin.query('COMMIT');
        },
        tableState,
      }),
    60_000,
  );

  it('gives binlog values the same SeaTunnel values as the snapshot', async () => {
    const src = source({ 'table-names': ['tideway.orders'], 'startup.mode': 'latest' });
    const splits = await plan(src);
    const reader = src.createReader(readerCtx);
    reader.addSplits(splits);
    const out = new ListCollector();
    await reader.pollNext(out);
    await admin.query(
      `INSERT INTO orders VALUES (500, 'ü', 12345678.91, '2024-01-02 03:04:05.123456', '2024-02-29', 1, '{"k": [1, 2]}', x'00ff10', 0.1, 18446744073709551615, '12:34:56.789')`,
    );
    await pollUntil(reader, out, () => out.rows.length > 0);
    await reader.close();
    const streamed = out.rows[0].fields;
    const snap = (await tableState()).get('tideway.orders:500');
    expect(streamed).toEqual(snap);
    expect(streamed).toEqual([
      500n,
      'ü',
      '12345678.91',
      '2024-01-02T03:04:05.123456',
      '2024-02-29',
      true,
      '{"k": [1, 2]}',
      Buffer.from([0, 255, 16]),
      0.1,
      '18446744073709551615',
      '12:34:56.789',
    ]);
  }, 30_000);

  it('startup.mode = timestamp reads the binlog from its oldest file and skips transactions that began before the time', async () => {
    await admin.query(`CREATE TABLE stamps (id int PRIMARY KEY, v varchar(8))`);
    await admin.query(`INSERT INTO stamps VALUES (1, 'before')`);
    // The binlog keeps whole seconds: start at the next second, then write.
    const from = (Math.floor(Date.now() / 1000) + 1) * 1000;
    await new Promise((r) => setTimeout(r, from - Date.now() + 50));
    await admin.query(`INSERT INTO stamps VALUES (2, 'after')`);
    await admin.query(`UPDATE stamps SET v = 'changed' WHERE id = 1`);
    const src = source({ 'table-names': ['tideway.stamps'], 'startup.mode': 'timestamp', 'startup.timestamp': from });
    const splits = await plan(src);
    expect(splits.map((s) => s.kind)).toEqual(['stream']);
    const reader = src.createReader(readerCtx);
    reader.addSplits(splits);
    const out = new ListCollector();
    await pollUntil(reader, out, () => out.rows.length >= 3);
    await settle(reader, out);
    await reader.close();
    expect(out.rows.map((r) => `${r.kind}${String(r.fields[0])}:${String(r.fields[1])}`)).toEqual([
      '+I2:after',
      '-U1:before',
      '+U1:changed',
    ]);
    expect(() => source({ 'startup.mode': 'timestamp' })).toThrow(/timestamp needs startup.timestamp/);
  }, 30_000);

  it("holds only the binlog dump connection once streaming, as SeaTunnel's IT expects", async () => {
    const src = source({ 'table-names': ['tideway.notes'], 'server-id': '5420' });
    const splits = await plan(src);
    const reader = src.createReader(readerCtx);
    reader.addSplits(splits);
    const out = new ListCollector();
    for (let i = 0; i < splits.length + 2; i++) await reader.pollNext(out);
    const [rows] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT command FROM information_schema.processlist WHERE user = ? AND id <> CONNECTION_ID() AND command <> 'Daemon'`,
      [server.user],
    );
    expect(rows.map((r) => String(r.command))).toEqual(['Binlog Dump']);
    await admin.query(`INSERT INTO notes VALUES ('zz', 'after')`);
    await pollUntil(reader, out, () => out.rows.some((r) => r.fields[0] === 'zz'));
    await reader.close();
    // The server drops a closed session's thread a moment after the client quit (seen still
    // 'Sleep' under load): a leaked connection would stay for good, so wait a few seconds for it.
    let after: string[];
    for (const until = Date.now() + 5000; ; ) {
      const [left] = await admin.query<mysql.RowDataPacket[]>(
        `SELECT command FROM information_schema.processlist WHERE user = ? AND id <> CONNECTION_ID() AND command <> 'Daemon'`,
        [server.user],
      );
      after = left.map((r) => String(r.command));
      if (after.length === 0 || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(after).toEqual([]);
  }, 30_000);

  it('table-pattern / database-pattern capture the tables whose whole names match, snapshot and binlog', async () => {
    await admin.query(`CREATE TABLE pat_1 (id int PRIMARY KEY)`);
    await admin.query(`CREATE TABLE pat_2 (id int PRIMARY KEY)`);
    await admin.query(`CREATE TABLE pat_2_old (id int PRIMARY KEY)`);
    await admin.query(`INSERT INTO pat_1 VALUES (1)`);
    await admin.query(`INSERT INTO pat_2 VALUES (2)`);
    const byPattern = (o: Record<string, unknown>) =>
      new MySqlCdcSource({
        jobId: 'j',
        jobMode: 'STREAMING',
        parallelism: 1,
        inputTables: [],
        options: optionsOf(
          { 'base-url': server.jdbcUrl, username: server.user, password: server.password, 'server-id': '5410', ...o },
          MYSQL_CDC_SPEC,
        ),
      });
    const src = byPattern({ 'table-pattern': 'tideway\\.pat_[0-9]+', 'database-pattern': 'tide.*' });
    const splits = await plan(src);
    expect(src.catalogTables().map((t) => t.tableId)).toEqual(['tideway.pat_1', 'tideway.pat_2']);
    const rows = await snapshotThenStream(
      src.createReader(readerCtx),
      splits,
      async () => {
        await admin.query(`INSERT INTO pat_2_old VALUES (9)`);
        await admin.query(`INSERT INTO pat_2 VALUES (3)`);
      },
      (out) => out.rows.some((r) => r.fields[0] === 3),
    );
    expect(rows).toEqual(['tideway.pat_1:+I1', 'tideway.pat_2:+I2', 'tideway.pat_2:+I3']);
    // A matching table created while streaming joins the captured tables; one not matching stays out.
    const again = byPattern({ 'table-pattern': 'tideway\\.pat_[0-9]+', 'startup.mode': 'latest' });
    const streaming = again.createReader(readerCtx);
    streaming.addSplits(await plan(again));
    const out = new ListCollector();
    await streaming.pollNext(out);
    await admin.query(`CREATE TABLE pat_3 (id int PRIMARY KEY, v varchar(8))`);
    await admin.query(`CREATE TABLE pat_3_old (id int PRIMARY KEY)`);
    await admin.query(`INSERT INTO pat_3 VALUES (30, 'a'), (31, 'b')`);
    await admin.query(`INSERT INTO pat_3_old VALUES (39)`);
    await admin.query(`UPDATE pat_3 SET v = 'c' WHERE id = 31`);
    await admin.query(`DELETE FROM pat_3 WHERE id = 30`);
    await pollWithCheckpoints(streaming, out, () => out.rows.length >= 4);
    await settle(streaming, out);
    await streaming.close();
    expect(out.schemaChanges.map((c) => [c.event.tableId, c.event.created, c.rowsBefore])).toEqual([['tideway.pat_3', true, 0]]);
    expect(out.schemaChanges[0].event.table.columns.map((c) => c.name)).toEqual(['id', 'v']);
    expect(out.schemaChanges[0].event.table.primaryKey?.columns).toEqual(['id']);
    expect(out.rows.map((r) => `${r.tableId}:${r.kind}${r.fields.join(',')}`)).toEqual([
      'tideway.pat_3:+I30,a',
      'tideway.pat_3:+I31,b',
      'tideway.pat_3:-U31,b',
      'tideway.pat_3:+U31,c',
      'tideway.pat_3:-D30,a',
    ]);
    await expect(plan(byPattern({ 'table-pattern': 'tideway\\.nothing_.*' }))).rejects.toThrow(
      /table-pattern 'tideway.*' matches no table MySQL-CDC can capture/,
    );
    expect(() => byPattern({ 'table-pattern': '(' })).toThrow(/table-pattern '\(' is not a regular expression/);
    expect(() => byPattern({ 'table-pattern': 'x', 'table-names': ['tideway.pat_1'] })).toThrow(
      /table-names cannot be combined with table-pattern/,
    );
    expect(() => byPattern({})).toThrow(/MySQL-CDC needs table-names, table-pattern or database-pattern/);
  }, 30_000);

  it('restored during its snapshot with a config that adds one table and drops another, plans the added one and drops the other (decision 0041)', async () => {
    const first = source({ 'table-names': ['tideway.orders'] });
    const planned = await plan(first);
    const stream = planned.find((s) => s.kind === 'stream')!;
    const chunks = planned.filter((s) => s.kind === 'snapshot');
    // Stopped with one chunk of orders read and the rest pending.
    const restored: CdcEnumeratorState = {
      planned: true,
      pending: chunks.slice(1),
      finished: [{ ...chunks[0], keyIndex: 0, watermark: (stream as { position: unknown }).position }],
      readBy: [0],
      stream,
    };
    const assigned: CdcSplit[] = [];
    const enumerate = async (tables: string[]) => {
      assigned.length = 0;
      const src = source({ 'table-names': tables });
      await src.prepare();
      const e = src.createEnumerator(
        { parallelism: 1, registeredReaders: () => [], assignSplits: (_, s) => assigned.push(...s), signalNoMoreSplits: () => {} },
        structuredClone(restored),
      );
      e.registerReader(0);
      expect(assigned, 'nothing is handed out before the tables are reconciled').toEqual([]);
      await e.run();
      for (let i = 0; i < chunks.length + 2; i++) e.handleSplitRequest(0);
      const state = e.snapshotState(1);
      const recorded = (state.stream?.schema as { tables: { catalog: { tableId: string } }[] }).tables.map((t) => t.catalog.tableId);
      return { ids: assigned.map((s) => `${s.splitId}${s.kind === 'snapshot' && s.announce ? ' (announced)' : ''}`), recorded, state };
    };
    const added = await enumerate(['tideway.orders', 'tideway.notes']);
    expect(added.ids).toEqual([...chunks.slice(1).map((c) => c.splitId), 'tideway.notes:0 (announced)']);
    expect(added.recorded).toEqual(['tideway.orders', 'tideway.notes']);
    const swapped = await enumerate(['tideway.notes']);
    expect(swapped.ids).toEqual(['tideway.notes:0 (announced)']);
    expect(swapped.recorded).toEqual(['tideway.notes']);
    expect(swapped.state.finished).toEqual([]);
  }, 30_000);

  it('names the problem in one sentence: bad login, missing table, binlog off, bad options', async () => {
    await expect(plan(source({ password: 'wrong' }))).rejects.toThrow(/refused the login of user 'root'/);
    await expect(plan(source({ 'table-names': ['tideway.nope'] }))).rejects.toThrow(/table tideway.nope does not exist/);
    expect(() => source({ 'stop.mode': 'latest' })).toThrow(/stop.mode latest is not supported/);
    expect(() => source({ 'server-id': 'abc' })).toThrow(/server-id 'abc' is not a server id/);
    expect(() => source({ 'startup.mode': 'specific' })).toThrow(/specific needs startup.specific-offset.file/);
    const off = await startMariaDb({ settings: { 'skip-log-bin': 1 } });
    try {
      const options = optionsOf(
        { 'base-url': off.jdbcUrl, username: off.user, password: off.password, 'table-names': ['tideway.t'] },
        MYSQL_CDC_SPEC,
      );
      const src = new MySqlCdcSource({ jobId: 'j', jobMode: 'STREAMING', parallelism: 1, options, inputTables: [] });
      await expect(src.prepare()).rejects.toThrow(/the binlog is off/);
    } finally {
      await off.stop();
    }
  }, 60_000);
});
