import { describe, expect, it, vi } from 'vitest';
import { newCatalogTable, Types, type Row } from '@tideway/api';
import { MAX_RUN_MS } from './copy-runs.js';
import { PG_COPY_BINARY, PgBinaryLayout, PgBinaryRow } from './pg-binary-rows.js';
import type { ResultColumn } from './jdbc-connection.js';
import { flushed, makeSink } from './test/wiring.js';
import { usePgFixture } from './test/pg-admin.js';

const db = usePgFixture();

const table = newCatalogTable({ table: 'in' }, [
  { name: 'id', type: Types.INT, nullable: false },
  { name: 'v', type: Types.STRING, nullable: true },
]);
const rows = (from: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ kind: '+I', tableId: 'in', fields: [from + i, `v${from + i}`] }));
const conn = () => db.sinkConnection();
const count = async (t: string) =>
  (await db.admin.query(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM public.${t}`)).rows[0] as { n: number; d: number };

describe('Jdbc sink on PostgreSQL: plain inserts stream into one COPY', () => {
  it('keeps one COPY open across batches and ends it (auto-commit: commits it) at the flush', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.streamed', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    for (let i = 0; i < 5; i++) await w.write(rows(1 + i * 10, 10));
    // Writes wait for the socket, not for a round trip: the statement may still be on its way
    // to the server when the last write resolves, so look until its session shows it.
    const openCopies = async () =>
      (
        await db.admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'COPY%streamed%FROM STDIN%'",
        )
      ).rows[0].n;
    await vi.waitFor(async () => expect(await openCopies()).toBeGreaterThan(0), { timeout: 5000, interval: 20 });
    expect(await openCopies()).toBe(1);
    expect((await count('streamed')).n).toBe(0);
    await flushed(w);
    expect(await count('streamed')).toEqual({ n: 50, d: 50 });
    await w.close();
  });

  it('in auto-commit mode ends a COPY that has been open for a second when the next batch comes', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.aged', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 10));
    await new Promise((r) => setTimeout(r, MAX_RUN_MS + 100));
    await w.write(rows(11, 10)); // written into the aged COPY, which then ends
    await w.write(rows(21, 10)); // waits for the previous batch: the aged COPY has committed
    expect((await count('aged')).n).toBe(20);
    await w.close();
    expect(await count('aged')).toEqual({ n: 30, d: 30 });
  });

  it('with max_retries writes a failed COPY again whole on a new session: every row once', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.replayed', batch_size: 10, max_retries: 2 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 10));
    await w.write(rows(11, 10));
    await w.write(rows(21, 10));
    await db.killSessionOf(w);
    await w.write(rows(31, 10));
    await w.write(rows(41, 10));
    await w.close();
    expect(await count('replayed')).toEqual({ n: 50, d: 50 });
  });

  it('a row the table refuses fails the write in one sentence and inserts nothing of that COPY', async () => {
    await db.admin.query('CREATE TABLE public.keyed (id int PRIMARY KEY, v text)');
    const sink = await makeSink({ ...conn(), table: 'public.keyed', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 10));
    await w.write(rows(5, 10));
    const err = (await flushed(w).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^plugin test: writing a batch failed: .*duplicate key value violates unique constraint "keyed_pkey"/);
    expect(err.message.split('\n')).toHaveLength(1);
    expect((await count('keyed')).n).toBe(0);
    await Promise.resolve(w.close()).catch(() => undefined);
  });
});

describe('Jdbc sink on PostgreSQL: binary tuples passed through (rowEncoding)', () => {
  /** The source side of `table`: int4 and text columns, as PostgreSQL describes them. */
  const layout = PgBinaryLayout.of([
    { name: 'id', type: Types.INT, nullable: false, nativeType: 'int4', decode: (v) => v, typeOid: 23 },
    { name: 'v', type: Types.STRING, nullable: true, nativeType: 'text', decode: (v) => v, typeOid: 25 },
  ] satisfies ResultColumn[])!;

  /** Rows as binary tuples, all in one buffer (as the source cuts them from a socket chunk). */
  function binaryRows(from: number, n: number): PgBinaryRow[] {
    const parts: Buffer[] = [];
    for (let i = from; i < from + n; i++) {
      const text = Buffer.from(`v${i}`);
      const t = Buffer.alloc(2 + 4 + 4 + 4 + text.length);
      t.writeInt16BE(2, 0);
      t.writeInt32BE(4, 2);
      t.writeInt32BE(i, 6);
      t.writeInt32BE(text.length, 10);
      text.copy(t, 14);
      parts.push(t);
    }
    const buf = Buffer.concat(parts);
    let at = 0;
    return parts.map((p) => new PgBinaryRow('in', layout, buf, at, (at += p.length), 4 + p.length - 14));
  }

  const ids = async (t: string) =>
    (await db.admin.query<{ id: number; v: string }>(`SELECT id, v FROM public.${t} ORDER BY id`)).rows.map((r) => `${r.id}:${r.v}`);
  const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}:v${i + 1}`);

  it('accepts a layout of its target columns’ types (varchar for text too), writes the tuples as they are, and rows of values beside them', async () => {
    await db.admin.query('CREATE TABLE public.passed (id int, v varchar(10))');
    const sink = await makeSink({ ...conn(), table: 'public.passed', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const offer = w.rowEncoding!()!;
    expect(offer.encoding).toBe(PG_COPY_BINARY);
    expect(await offer.accepts('in', layout)).toBe(true);
    const passed = binaryRows(1, 25);
    await w.write(passed);
    // A batch mixing rows of values in: written from the values (the tuples decoded on demand).
    const mixed = binaryRows(26, 5);
    await w.write([...mixed, ...rows(31, 5)]);
    await w.write(binaryRows(36, 5));
    await w.close();
    expect(await ids('passed')).toEqual(expected(40));
    const decoded = (r: PgBinaryRow) => (r as unknown as { values?: unknown[] }).values !== undefined;
    expect(passed.some(decoded)).toBe(false);
    expect(mixed.every(decoded)).toBe(true);
  });

  it('refuses a layout whose types differ from its target’s, and another table’s; the rows then go as values', async () => {
    await db.admin.query('CREATE TABLE public.wider (id bigint, v text)');
    const sink = await makeSink({ ...conn(), table: 'public.wider', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const offer = w.rowEncoding!()!;
    expect(await offer.accepts('in', layout)).toBe(false);
    expect(await offer.accepts('other', layout)).toBe(false);
    await w.write(binaryRows(1, 20));
    await w.close();
    expect(await ids('wider')).toEqual(expected(20));
  });

  it('offers nothing with row-level error handling (it writes statements and must read the values)', async () => {
    const sink = await makeSink({ ...conn(), table: 'public.guarded', batch_size: 10 }, [table]);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    w.handleRowErrors!(() => undefined);
    expect(w.rowEncoding!()).toBeUndefined();
    await w.close();
  });
});
