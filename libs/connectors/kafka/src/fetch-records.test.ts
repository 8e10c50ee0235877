import { type CompressionAlgorithmValue, compressionsAlgorithms, crc32c, createRecordsBatch, Reader, Writer } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { AbortedTransactions, BatchCursor, CorruptBatchError, type FetchedPartition, parseFetchResponse } from './fetch-records.js';
import { nativeRow } from './record-formats.js';

interface Message {
  key?: string | null;
  value: string | null;
  headers?: [string, string][];
  timestamp?: bigint;
}

/** A record batch as the client's producer writes it, at `firstOffset`, with attribute bits added. */
function batch(
  firstOffset: number,
  messages: Message[],
  opts: { compression?: CompressionAlgorithmValue; producerId?: bigint; transactional?: boolean; control?: boolean } = {},
): Buffer {
  const b = Buffer.from(
    createRecordsBatch(
      messages.map((m) => ({
        topic: 't',
        key: m.key === null || m.key === undefined ? (null as unknown as Buffer) : Buffer.from(m.key),
        value: m.value === null ? (null as unknown as Buffer) : Buffer.from(m.value),
        headers: new Map((m.headers ?? []).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
        timestamp: m.timestamp ?? 1_700_000_000_000n,
      })),
      { compression: opts.compression, producerId: opts.producerId, transactionalId: opts.transactional ? 'tx' : undefined },
    ).buffer,
  );
  b.writeBigInt64BE(BigInt(firstOffset), 0);
  // The control bit (a transaction marker), then the CRC again, as the broker's own batch has it.
  if (opts.control) b.writeInt16BE(b.readInt16BE(21) | 0x30, 21);
  return sealed(b);
}

/** The batch with its CRC-32C (the bytes from the attributes on) written again, after a test changed it. */
function sealed(b: Buffer): Buffer {
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

/**
 * A Fetch response of one partition holding `records`, parsed from bytes that arrived in pieces
 * of `piece` bytes (the connection's socket reads): its partition.
 */
function fetched(
  records: Buffer,
  opts: { piece?: number; errorCode?: number; aborted?: { producerId: bigint; firstOffset: bigint }[] } = {},
): FetchedPartition {
  const w = Writer.create()
    .appendInt32(0)
    .appendInt16(0)
    .appendInt32(0)
    .appendArray([{ id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' }], (w, t) =>
      w.appendUUID(t.id).appendArray([0], (w, p) => {
        w.appendInt32(p)
          .appendInt16(opts.errorCode ?? 0)
          .appendInt64(100n)
          .appendInt64(90n)
          .appendInt64(0n)
          .appendArray(opts.aborted ?? [], (w, a) => w.appendInt64(a.producerId).appendInt64(a.firstOffset))
          .appendInt32(-1)
          .appendUnsignedVarInt(records.length === 0 ? 0 : records.length + 1);
        const piece = opts.piece ?? (records.length || 1);
        for (let i = 0; i < records.length; i += piece) w.append(records.subarray(i, i + piece));
      }),
    )
    .appendTaggedFields();
  const response = parseFetchResponse(1, 1, 17, Reader.from(w));
  expect(response.errorCode).toBe(0);
  expect(response.responses[0]?.topicId).toBe('0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0');
  return response.responses[0]?.partitions[0];
}

/** Every record the cursor reads: offset and value text (null for a tombstone). */
function read(bytes: Buffer | readonly Buffer[], aborted: { producerId: bigint; firstOffset: bigint }[] = []): [number, string | null][] {
  const out: [number, string | null][] = [];
  const cursor = new BatchCursor(bytes);
  const filter = new AbortedTransactions(aborted);
  while (cursor.nextBatch()) {
    if (filter.skips(cursor)) continue;
    cursor.openRecords();
    while (cursor.nextRecord())
      out.push([
        cursor.firstOffset + cursor.offsetDelta,
        cursor.valueStart < 0 ? null : cursor.data.toString('utf8', cursor.valueStart, cursor.valueEnd),
      ]);
  }
  return out;
}

describe('fetch-records', () => {
  it('walks plain batches in place: offsets, values, tombstones; keys, headers and timestamps on request', () => {
    const bytes = Buffer.concat([
      batch(10, [
        { key: 'k1', value: '{"a":1}', headers: [['h', 'x']] },
        { key: null, value: null },
      ]),
      batch(12, [{ value: 'é' }]),
    ]);
    expect(read(bytes)).toEqual([
      [10, '{"a":1}'],
      [11, null],
      [12, 'é'],
    ]);
    expect(fetched(bytes).nextOffset).toBe(13);
    const cursor = new BatchCursor(bytes);
    cursor.nextBatch();
    cursor.openRecords();
    cursor.nextRecord();
    const row = nativeRow(cursor);
    expect(row[0]).toEqual(new Map([['h', 'x']]));
    expect(row[1]).toEqual(Buffer.from('k1'));
    expect(row[3]).toBe(1_700_000_000_000n);
    expect(row[4]).toBe('CreateTime');
    expect(row[5]).toEqual(Buffer.from('{"a":1}'));
    cursor.nextRecord();
    expect(cursor.key()).toBeNull();
    expect(cursor.value()).toBeNull();
    expect(cursor.headers()).toEqual([]);
  });

  it('reads timestamp deltas of either sign and past 32 bits', () => {
    // The client's writer loses varlong bits past 32 (2^40 comes back as 256): bytes of the test's own.
    const zigzag = (v: bigint): number[] => {
      let z = v >= 0n ? v * 2n : -v * 2n - 1n;
      const out: number[] = [];
      while (z >= 0x80n) {
        out.push(Number(z & 0x7fn) | 0x80);
        z >>= 7n;
      }
      return [...out, Number(z)];
    };
    const deltas = [0n, -5n, 2n ** 40n, 2n ** 50n + 3n];
    const records = deltas.map((t, i) => {
      // attributes, timestamp delta, offset delta, key (null), value "v", no headers
      const body = [0, ...zigzag(t), ...zigzag(BigInt(i)), ...zigzag(-1n), ...zigzag(1n), 0x76, ...zigzag(0n)];
      return Buffer.from([...zigzag(BigInt(body.length)), ...body]);
    });
    const head = Buffer.alloc(61);
    head.writeInt32BE(61 - 12 + records.reduce((n, r) => n + r.length, 0), 8);
    head[16] = 2;
    head.writeInt32BE(deltas.length - 1, 23);
    head.writeBigInt64BE(-1n, 43);
    head.writeInt32BE(deltas.length, 57);
    const cursor = new BatchCursor(sealed(Buffer.concat([head, ...records])));
    cursor.nextBatch();
    cursor.openRecords();
    const read: number[] = [];
    while (cursor.nextRecord()) read.push(cursor.timestampDelta);
    expect(read).toEqual(deltas.map(Number));
  });

  const available = (Object.keys(compressionsAlgorithms) as CompressionAlgorithmValue[]).filter(
    (c) => c !== 'none' && compressionsAlgorithms[c].available,
  );
  it('decompresses gzip, snappy, lz4 and zstd batches with the client algorithms', () => {
    // gzip is in every Node; the others as the client has them here (zstd: Node 22.15+).
    expect(available).toContain('gzip');
    for (const compression of available) {
      const values = Array.from({ length: 50 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i)}"}`);
      const bytes = Buffer.concat([
        batch(
          100,
          values.map((value) => ({ value })),
          { compression },
        ),
        batch(150, [{ value: 'plain' }]),
      ]);
      expect(read(bytes), compression).toEqual([...values.map((v, i) => [100 + i, v]), [150, 'plain']]);
    }
  });

  it('skips control batches and the batches of aborted transactions, reads committed ones (read_committed)', () => {
    const bytes = Buffer.concat([
      batch(0, [{ value: 'a0' }, { value: 'a1' }], { producerId: 7n, transactional: true }), // aborted
      batch(2, [{ value: 'c2' }], { producerId: 8n, transactional: true }), // committed
      batch(3, [{ value: '' }], { producerId: 7n, transactional: true, control: true }), // 7's abort marker
      batch(4, [{ value: '' }], { producerId: 8n, transactional: true, control: true }), // 8's commit marker
      batch(5, [{ value: 'a5' }], { producerId: 7n, transactional: true }), // 7 again, aborted again
      batch(6, [{ value: 'p6' }]), // not transactional
      batch(7, [{ value: '' }], { producerId: 7n, transactional: true, control: true }),
      batch(8, [{ value: 'n8' }], { producerId: 7n, transactional: true }), // 7's next, committed
    ]);
    const aborted = [
      { producerId: 7n, firstOffset: 5n },
      { producerId: 7n, firstOffset: 0n },
    ];
    expect(read(bytes, aborted)).toEqual([
      [2, 'c2'],
      [6, 'p6'],
      [8, 'n8'],
    ]);
    // read_uncommitted: no aborted list, only the markers are skipped.
    expect(read(bytes).map(([o]) => o)).toEqual([0, 1, 2, 5, 6, 8]);
  });

  it('leaves a partial last batch (the size limit cut it): the next fetch starts at its offset', () => {
    const whole = batch(0, [{ value: 'one' }, { value: 'two' }]);
    const cut = batch(2, [{ value: 'three' }, { value: 'four' }]);
    for (const keep of [1, 11, 12, 61, cut.length - 1]) {
      const bytes = Buffer.concat([whole, cut.subarray(0, keep)]);
      const expected = [
        [0, 'one'],
        [1, 'two'],
      ];
      expect(read(bytes), `${keep} bytes of the last batch`).toEqual(expected);
      const p = fetched(bytes);
      expect(p.nextOffset).toBe(2);
      expect(p.records?.length).toBe(1);
      expect(read(p.records ?? [])).toEqual(expected);
    }
    expect(fetched(cut.subarray(0, 30))).toMatchObject({ nextOffset: -1, records: [] });
    expect(read(cut.subarray(0, 30))).toEqual([]);
  });

  it('cuts the batches out of a response that arrived in pieces: views where a batch is in one piece, else copies', () => {
    const values = Array.from({ length: 30 }, (_, i) => `{"n":${i}}`);
    const bytes = Buffer.concat(
      values.map((value, i) => batch(i * 2, [{ value }, { value: null }], { compression: i % 3 === 0 ? 'gzip' : 'none' })),
    );
    const expected = values.flatMap((v, i) => [
      [i * 2, v],
      [i * 2 + 1, null],
    ]);
    for (const piece of [7, 61, 100, 1000, bytes.length]) {
      const p = fetched(bytes, { piece });
      expect(p.records?.length, `pieces of ${piece}`).toBe(30);
      expect(p.nextOffset).toBe(60);
      expect(read(p.records ?? []), `pieces of ${piece}`).toEqual(expected);
    }
  });

  it('refuses a record that runs past its batch and a batch of an old message format', () => {
    const b = batch(0, [{ value: 'abc' }]);
    const bad = Buffer.from(b);
    bad[61] = 0x7e; // the record's length varint: 63, past the batch
    const cursor = new BatchCursor(sealed(bad));
    cursor.nextBatch();
    cursor.openRecords();
    expect(() => cursor.nextRecord()).toThrow(/runs past its batch/);
    const old = Buffer.from(b);
    old[16] = 1;
    expect(() => new BatchCursor(old).nextBatch()).toThrow(/message format v1/);
  });

  it("checks each batch's CRC-32C (check.crcs): a damaged byte is refused, naming the batch, unless the check is off", () => {
    const good = batch(7, [{ value: 'abc' }, { value: 'def' }]);
    const damaged = Buffer.concat([batch(5, [{ value: 'x' }, { value: 'y' }]), Buffer.from(good)]);
    damaged[damaged.length - 2] ^= 0x01; // a bit of the last record's value (its headers count follows): "def" becomes "deg"
    const cursor = new BatchCursor(damaged);
    expect(cursor.nextBatch()).toBe(true); // the first batch is whole
    let err: unknown;
    try {
      cursor.nextBatch();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorruptBatchError);
    expect((err as CorruptBatchError).offset).toBe(7n);
    expect((err as CorruptBatchError).stored).toBe(good.readUInt32BE(17));
    expect((err as Error).message).toMatch(/record batch at offset 7 is corrupt: its CRC-32C is \d+, its bytes give \d+/);
    // Unchecked, the batch reads, damage and all (what check.crcs = false asks for).
    const unchecked = new BatchCursor(damaged, false);
    unchecked.nextBatch();
    expect(unchecked.nextBatch()).toBe(true);
    unchecked.openRecords();
    unchecked.nextRecord();
    unchecked.nextRecord();
    expect(unchecked.value()?.toString()).toBe('deg');
  });

  it('parses a Fetch response: partition errors returned, aborted transactions, records left as bytes', () => {
    const records = Buffer.concat([batch(40, [{ value: 'x' }, { value: 'y' }]), batch(42, [{ value: 'z' }]).subarray(0, 20)]);
    const p0 = fetched(records, { aborted: [{ producerId: 3n, firstOffset: 41n }] });
    expect(p0).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 100n, lastStableOffset: 90n, nextOffset: 42 });
    expect(p0.abortedTransactions).toEqual([{ producerId: 3n, firstOffset: 41n }]);
    expect(p0.records).toEqual([records.subarray(0, records.length - 20)]);
    expect(fetched(Buffer.alloc(0), { errorCode: 6 })).toMatchObject({ partitionIndex: 0, errorCode: 6, records: null, nextOffset: -1 });
  });
});
