import { describe, expect, it } from 'vitest';
import { newCatalogTable, Types, type Row } from '@tideway/api';
import { flushed, makeSink } from './test/wiring.js';
import { usePgFixture } from './test/pg-admin.js';
import type { JdbcConnection } from './jdbc-connection.js';

const db = usePgFixture();

const table = newCatalogTable(
  { table: 'in' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'v', type: Types.STRING, nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);
const rows = (from: number, n: number, kind: Row['kind'] = '+I'): Row[] =>
  Array.from({ length: n }, (_, i) => ({ kind, tableId: 'in', fields: [from + i, `v${from + i}`] }));
const conn = () => db.sinkConnection();

describe('Jdbc sink sessions on PostgreSQL', () => {
  it('max_retries retries a failed batch on a new session; without retries the failure is one sentence', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.retry', max_retries: 2, batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 10));
    await flushed(w);
    await db.killSessionOf(w);
    await w.write(rows(11, 10));
    await w.close();
    expect((await db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM public.retry')).rows[0].n).toBe(20);

    const noRetry = await makeSink({ ...conn(), table: 'public.noretry', batch_size: 10 }, [table]);
    const w2 = noRetry.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w2.write(rows(1, 10));
    await flushed(w2);
    await db.killSessionOf(w2);
    // The batch is written in the background: its failure surfaces at the next flush.
    const err = (await Promise.resolve(w2.write(rows(11, 10)))
      .then(() => flushed(w2))
      .catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^plugin test: writing a batch failed: /);
    await Promise.resolve(w2.close()).catch(() => undefined);
  });

  it('use_copy_statement writes every row with COPY, whatever its kind', async () => {
    const sink = await makeSink(
      { ...conn(), table: 'public.copied', use_copy_statement: true, primary_keys: ['id'], create_index: false },
      [table],
    );
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write([...rows(1, 3), ...rows(1, 1, '-D')]);
    await w.close();
    expect((await db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM public.copied')).rows[0].n).toBe(4);
  });

  it('a writer opens its session and learns the COPY types before its first batch; one closed at once leaves no session', async () => {
    const sessions = async () =>
      (
        await db.admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
        )
      ).rows[0].n;
    const sink = await makeSink({ ...conn(), table: 'public.warm', batch_size: 5 }, [table]);
    const before = await sessions();
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const state = w as unknown as { conn?: JdbcConnection; slots: Map<string, { copy?: { ready: boolean } }> };
    for (let i = 0; i < 100 && !state.slots.get('in')?.copy?.ready; i++) await new Promise((r) => setTimeout(r, 20));
    // No row written yet: the session is open and the COPY encoder ready.
    expect(state.conn).toBeDefined();
    expect(state.slots.get('in')?.copy?.ready).toBe(true);
    expect(await sessions()).toBe(before + 1);
    await w.write(rows(1, 5));
    await w.close();
    expect((await db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM public.warm')).rows[0].n).toBe(5);

    const closedAtOnce = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await closedAtOnce.close();
    expect((closedAtOnce as unknown as { conn?: JdbcConnection }).conn).toBeUndefined();
    for (let i = 0; i < 50 && (await sessions()) > before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await sessions()).toBe(before);
  });

  it('transaction_timeout_sec bounds how long an open transaction may idle', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.tt', auto_commit: false, transaction_timeout_sec: 7, batch_size: 1 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 1));
    await flushed(w);
    const c = (w as unknown as { conn: JdbcConnection }).conn;
    expect((await c.execute('SHOW idle_in_transaction_session_timeout')).rows[0][0]).toBe('7s');
    await w.prepareCommit?.(1);
    await w.close();
  });
});
