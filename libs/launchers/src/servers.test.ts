import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { isListening, startMariaDb, startPostgres, startRedis, type TestServer } from './index.js';

const MACHINE_PORTS = [5432, 3306, 6379];

const started: TestServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe('startPostgres', () => {
  it('starts a private logical-replication server that needs the password over TCP, and stop() removes it', async () => {
    const t0 = Date.now();
    const server = await startPostgres({ logical: true });
    started.push(server);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(MACHINE_PORTS).not.toContain(server.port);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const settings = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('wal_level','max_prepared_transactions','max_replication_slots','port') ORDER BY name",
    );
    expect(Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]))).toEqual({
      max_prepared_transactions: '20',
      max_replication_slots: '10',
      port: String(server.port),
      wal_level: 'logical',
    });
    expect((await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db).toBe(server.database);
    await client.end();

    const wrong = new pg.Client({ host: server.host, port: server.port, user: server.user, password: 'wrong', database: server.database });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);

    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    expect(await isListening(server.port)).toBe(false);
    await server.stop(); // twice is fine
  });

  it('runs two servers side by side on different ports', async () => {
    const [a, b] = await Promise.all([startPostgres(), startPostgres({ database: 'other' })]);
    started.push(a, b);
    expect(a.port).not.toBe(b.port);
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    expect((await client.query<{ wal_level: string }>('SHOW wal_level')).rows[0].wal_level).toBe('replica');
    await client.end();
  });
});

describe('startMariaDb', () => {
  it('starts a private server with a ROW binlog and a root password, and stop() removes it', async () => {
    const t0 = Date.now();
    const server = await startMariaDb();
    started.push(server);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(MACHINE_PORTS).not.toContain(server.port);
    const conn = await mysql.createConnection({ uri: server.url });
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      'SELECT @@log_bin AS log_bin, @@binlog_format AS fmt, @@binlog_row_image AS image, @@server_id AS id, @@port AS port, DATABASE() AS db, @@character_set_server AS cs',
    );
    expect(rows[0]).toMatchObject({ log_bin: 1, fmt: 'ROW', image: 'FULL', port: server.port, db: server.database, cs: 'utf8mb4' });
    expect(Number(rows[0].id)).toBeGreaterThan(0);
    await conn.end();
    await expect(mysql.createConnection({ host: server.host, port: server.port, user: server.user, password: 'wrong' })).rejects.toThrow(
      /Access denied/,
    );
    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    expect(await isListening(server.port)).toBe(false);
  });
});

describe('startRedis', () => {
  it('starts a private server that answers PING, with and without a password', async () => {
    const open = await startRedis();
    const locked = await startRedis({ password: 'sesame' });
    started.push(open, locked);
    expect(MACHINE_PORTS).not.toContain(open.port);
    expect(open.url).toBe(`redis://127.0.0.1:${open.port}/0`);
    expect(locked.url).toBe(`redis://:sesame@127.0.0.1:${locked.port}/0`);
    const reply = await new Promise<string>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: locked.port });
      s.on('error', reject);
      s.on('connect', () => s.write('PING\r\n'));
      s.on('data', (d) => {
        s.destroy();
        resolve(d.toString());
      });
    });
    expect(reply).toMatch(/^-NOAUTH/);
    await open.stop();
    expect(await isListening(open.port)).toBe(false);
    expect(existsSync(open.dir)).toBe(false);
  });

  it('restarts on the same port, with its data back only when the append-only file is on', async () => {
    const durable = await startRedis({ appendOnly: true });
    const volatile = await startRedis();
    started.push(durable, volatile);
    for (const server of [durable, volatile]) expect(await redisSay(server.port, 'SET k v')).toBe('+OK');
    const pid = durable.pid;
    await Promise.all([durable.restart(), volatile.restart()]);
    expect(durable.pid).not.toBe(pid);
    expect(await redisSay(durable.port, 'GET k')).toBe('$1\r\nv');
    expect(await redisSay(volatile.port, 'GET k')).toBe('$-1');
    await durable.stop();
    expect(existsSync(durable.dir)).toBe(false);
  });
});

/** Sends one inline command and resolves with the reply, trimmed. */
function redisSay(port: number, command: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port });
    s.on('error', reject);
    s.on('connect', () => s.write(`${command}\r\n`));
    s.on('data', (d) => {
      s.destroy();
      resolve(d.toString().trim());
    });
  });
}
