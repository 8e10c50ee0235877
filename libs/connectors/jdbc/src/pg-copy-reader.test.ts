import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PgCopyRowStream } from './pg-copy-reader.js';
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
