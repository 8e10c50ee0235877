import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { Types } from '@tideway/api';
import { PgCopyOutStream, PgCopyRowStream } from './pg-copy-reader.js';
import { BinaryCopyParser, PgBinaryLayout, type PgBinaryRow } from './pg-binary-rows.js';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER } from './pg-copy-binary.js';
import type { ResultColumn } from './jdbc-connection.js';
import { decoderOf } from './value-codec.js';

const keep = decoderOf((v: string) => v);

/** One protocol message: type byte, int32 length (including itself), payload. */
function message(type: string, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A stand-in for pg's client and connection: it submits at once and records what pg gets back. */
function fakeSession() {
  const handedBack: Buffer[] = [];
  const listeners: Array<(b: Buffer) => void> = [(b) => handedBack.push(b)];
  const sent: string[] = [];
  const flow: string[] = [];
  const connection = {
    stream: {
      listeners: () => [...listeners],
      removeListener: (_: string, fn: (b: Buffer) => void) => listeners.splice(listeners.indexOf(fn), 1),
      on: (_: string, fn: (b: Buffer) => void) => listeners.push(fn),
      pause: () => flow.push('pause'),
      resume: () => flow.push('resume'),
    },
    query: (text: string) => sent.push(text),
  };
  const client = { query: (q: { submit(c: unknown): void }) => q.submit(connection) } as unknown as pg.Client;
  // A socket hands each chunk to its listener once, in a buffer of its own (the reader moves bytes within it).
  const feed = (bytes: Buffer) => listeners[0](Buffer.from(bytes));
  return { client, feed, handedBack, sent, flow };
}

const copyOut = Buffer.concat([
  message('H', Buffer.from([0, 0, 2, 0, 0, 0, 0])),
  message('d', 'a\t1\n'),
  message('N', 'Sa notice\0\0'),
  message('d', '€\t\\N\n'),
  message('d', 'x\t3\n'),
  message('c', ''),
]);
const after = Buffer.concat([message('C', 'COPY 3\0'), message('Z', 'I')]);

describe('COPY TO STDOUT reader', () => {
  it('strips the frames wherever the socket splits them, and hands the bytes after CopyDone back to pg', async () => {
    const all = Buffer.concat([copyOut, after]);
    for (let cut = 1; cut < all.length; cut++) {
      const s = fakeSession();
      const stream = new PgCopyRowStream(s.client, 'select 1', [keep, keep], async () => undefined);
      s.feed(all.subarray(0, cut));
      s.feed(all.subarray(cut));
      expect(s.sent).toEqual(['COPY (select 1) TO STDOUT']);
      expect(Buffer.concat(s.handedBack)).toEqual(after);
      stream.handleReadyForQuery();
      expect(await stream.read(10)).toEqual([
        ['a', '1'],
        ['€', null],
        ['x', '3'],
      ]);
      expect(await stream.read(10)).toEqual([]);
    }
  });

  it('hands an ErrorResponse to pg whole, and fails the read with the error pg reports', async () => {
    const error = Buffer.concat([message('E', 'SERROR\0C57014\0Mcanceling statement\0\0'), message('Z', 'I')]);
    const all = Buffer.concat([message('H', Buffer.from([0, 0, 1, 0, 0])), message('d', 'a\n'), error]);
    for (let cut = 1; cut < all.length; cut++) {
      const s = fakeSession();
      const stream = new PgCopyRowStream(s.client, 'select 1', [keep], async () => undefined);
      s.feed(all.subarray(0, cut));
      s.feed(all.subarray(cut));
      expect(Buffer.concat(s.handedBack)).toEqual(error);
      stream.handleError(new Error('canceling statement'));
      await expect(stream.read(10)).rejects.toThrow('canceling statement');
    }
  });

  it('pauses the socket once the rows waiting for the consumer reach the read-ahead, counted in bytes for wide rows', async () => {
    const s = fakeSession();
    const stream = new PgCopyRowStream(s.client, 'select 1', [keep], async () => undefined);
    s.feed(message('H', Buffer.from([0, 0, 1, 0, 0])));
    const wide = message('d', `${'x'.repeat(1 << 20)}\n`);
    let fed = 0;
    while (!s.flow.includes('pause') && fed < 100) {
      s.feed(wide);
      fed++;
    }
    // 16 MiB of read-ahead: 16 rows of 1 MiB, not the 8192 narrow rows it allows.
    expect(fed).toBe(16);
    expect((await stream.read(4)).length).toBe(4);
    expect(s.flow).toEqual(['pause', 'resume']);
  });

  it('closed before pg submitted it, it is refused when its turn comes and cancels nothing', async () => {
    let submit: (() => unknown) | undefined;
    const client = { query: (q: { submit(c: unknown): unknown }) => (submit = () => q.submit({})) } as unknown as pg.Client;
    let cancels = 0;
    const stream = new PgCopyRowStream(client, 'select 1', [keep], async () => {
      cancels++;
    });
    const closing = stream.close();
    const refused = submit!() as Error;
    expect(refused.message).toBe('the COPY was closed before it started');
    stream.handleError(refused); // what pg does with an error submit() returns
    await closing;
    expect(cancels).toBe(0);
  });

  it('fails the read when the COPY data ends inside a row', async () => {
    const s = fakeSession();
    const stream = new PgCopyRowStream(s.client, 'select 1', [keep], async () => undefined);
    s.feed(Buffer.concat([message('H', Buffer.from([0, 0, 1, 0, 0])), message('d', 'a\n'), message('d', 'half'), message('c', ''), after]));
    stream.handleReadyForQuery();
    expect(await stream.read(10)).toEqual([['a']]);
    await expect(stream.read(10)).rejects.toThrow('COPY output ended in the middle of a row');
  });
});

describe('COPY TO STDOUT (FORMAT binary) reader', () => {
  const columns: ResultColumn[] = [
    { name: 'id', type: Types.BIGINT, nullable: false, nativeType: 'int8', decode: keep, typeOid: 20 },
    { name: 't', type: Types.STRING, nullable: true, nativeType: 'text', decode: keep, typeOid: 25 },
  ];
  const layout = PgBinaryLayout.of(columns)!;

  /** One binary tuple: the field count, then each field's length (-1 for NULL) and bytes. */
  function tuple(id: bigint, t: string | null): Buffer {
    const text = t === null ? undefined : Buffer.from(t);
    const out = Buffer.alloc(2 + 4 + 8 + 4 + (text?.length ?? 0));
    out.writeInt16BE(2, 0);
    out.writeInt32BE(8, 2);
    out.writeBigInt64BE(id, 6);
    out.writeInt32BE(text ? text.length : -1, 14);
    text?.copy(out, 18);
    return out;
  }

  const values: Array<[bigint, string | null]> = [
    [1n, 'a'],
    [-9007199254740993n, null],
    [3n, '€ ünïcødé 😀'],
    [4n, ''],
    [5n, 'x'.repeat(300)],
  ];
  const tuples = values.map(([id, t]) => tuple(id, t));
  // PostgreSQL sends the header with the first tuple, one CopyData message per tuple, and the trailer alone.
  const binaryOut = Buffer.concat([
    message('H', Buffer.from([1, 0, 2, 0, 1, 0, 1])),
    message('d', Buffer.concat([COPY_BINARY_HEADER, tuples[0]])),
    ...tuples.slice(1).map((t) => message('d', t)),
    message('d', COPY_BINARY_TRAILER),
    message('c', ''),
  ]);

  const binaryStream = (client: pg.Client) =>
    new PgCopyOutStream<PgBinaryRow>(client, 'select 1', new BinaryCopyParser('db.public.t', layout), async () => undefined);

  it('cuts the tuples out undecoded wherever the socket splits them: bytes, sizes and on-demand values', async () => {
    const all = Buffer.concat([binaryOut, after]);
    const cuts: number[][] = [];
    for (let cut = 1; cut < all.length; cut++) cuts.push([cut]);
    // And a few runs of small random pieces, so rows span several chunks.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let run = 0; run < 20; run++) {
      const points: number[] = [];
      for (let at = 1 + Math.floor(random() * 40); at < all.length; at += 1 + Math.floor(random() * 40)) points.push(at);
      cuts.push(points);
    }
    for (const points of cuts) {
      const s = fakeSession();
      const stream = binaryStream(s.client);
      let from = 0;
      for (const at of [...points, all.length]) {
        s.feed(all.subarray(from, at));
        from = at;
      }
      expect(s.sent).toEqual(['COPY (select 1) TO STDOUT (FORMAT binary)']);
      expect(Buffer.concat(s.handedBack)).toEqual(after);
      stream.handleReadyForQuery();
      const rows = await stream.read(10);
      expect(rows.map((r) => r.buf.subarray(r.start, r.end))).toEqual(tuples);
      expect(rows.map((r) => r.tableId)).toEqual(values.map(() => 'db.public.t'));
      // Metric sizes: 8 for the bigint, a string's encoded bytes, nothing for NULL.
      expect(rows.map((r) => r.byteSize)).toEqual(values.map(([, t]) => 8 + (t === null ? 0 : Buffer.byteLength(t))));
      expect(rows.map((r) => r.field(0))).toEqual(values.map(([id]) => id));
      expect(rows.map((r) => r.fields)).toEqual(values);
      expect(await stream.read(10)).toEqual([]);
    }
  });

  it('fails the read when the output ends inside a tuple, or before the trailer', async () => {
    for (const cut of [tuples[1].length - 3, tuples[1].length]) {
      const s = fakeSession();
      const stream = binaryStream(s.client);
      s.feed(
        Buffer.concat([
          message('H', Buffer.from([1, 0, 2, 0, 1, 0, 1])),
          message('d', Buffer.concat([COPY_BINARY_HEADER, tuples[0]])),
          message('d', tuples[1].subarray(0, cut)),
          message('c', ''),
          after,
        ]),
      );
      stream.handleReadyForQuery();
      // The complete tuples are read; then the read fails.
      expect(await stream.read(10)).toHaveLength(cut === tuples[1].length ? 2 : 1);
      await expect(stream.read(10)).rejects.toThrow('binary COPY output ended in the middle of a row');
    }
  });

  it('fails the read on a tuple of another field count than the columns', async () => {
    const s = fakeSession();
    const stream = binaryStream(s.client);
    const three = Buffer.concat([Buffer.from([0, 3]), tuple(1n, 'a').subarray(2), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
    s.feed(Buffer.concat([message('H', Buffer.from([1, 0, 2, 0, 1, 0, 1])), message('d', Buffer.concat([COPY_BINARY_HEADER, three]))]));
    await expect(stream.read(10)).rejects.toThrow('binary COPY output has a row of 3 fields where 2 columns were expected');
  });
});
