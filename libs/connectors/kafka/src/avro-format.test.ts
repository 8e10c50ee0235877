import type { DataType } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { avroColumnsProblem, compileAvroDecoder, compileAvroEncoder } from './avro-format.js';

/** Avro's binary encoding written out by hand from the spec (zigzag varints, length-prefixed bytes), independent of avsc. */
function varint(n: bigint): number[] {
  let z = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const out: number[] = [];
  do {
    const b = Number(z & 0x7fn);
    z >>= 7n;
    out.push(z > 0n ? b | 0x80 : b);
  } while (z > 0n);
  return out;
}
const bytes = (b: number[]) => [...varint(BigInt(b.length)), ...b];
const str = (s: string) => bytes([...Buffer.from(s, 'utf8')]);

const columns: { name: string; type: DataType }[] = [
  { name: 'id', type: { kind: 'bigint' } },
  { name: 'c_map', type: { kind: 'map', key: { kind: 'string' }, value: { kind: 'smallint' } } },
  { name: 'c_array', type: { kind: 'array', element: { kind: 'tinyint' } } },
  { name: 'c_string', type: { kind: 'string' } },
  { name: 'c_boolean', type: { kind: 'boolean' } },
  { name: 'c_double', type: { kind: 'double' } },
  { name: 'c_decimal', type: { kind: 'decimal', precision: 38, scale: 18 } },
  { name: 'c_bytes', type: { kind: 'bytes' } },
  { name: 'c_date', type: { kind: 'date' } },
  { name: 'c_timestamp', type: { kind: 'timestamp' } },
  {
    name: 'c_row',
    type: {
      kind: 'row',
      fields: [
        { name: 'c_int', type: { kind: 'int' } },
        { name: 'c_neg', type: { kind: 'decimal', precision: 2, scale: 1 } },
      ],
    },
  },
];

const row = [
  9007199254740993n,
  new Map([['key', 1]]),
  [1, -2],
  'string',
  false,
  1.5,
  '-1.100000000000000000',
  new Uint8Array(Buffer.from('test')),
  '2024-01-01',
  '2024-01-01T12:59:23.123456',
  [-3, '-0.5'],
];

describe("avro format (SeaTunnel's schema, binary datum)", () => {
  it('encodes a row byte for byte as the Avro spec says for the schema SeaTunnel derives', () => {
    const doubleLE = [...Buffer.from(new Float64Array([1.5]).buffer)];
    // -1.1 at scale 18 = -1100000000000000000: two's complement big-endian, fewest bytes (Java's BigInteger.toByteArray).
    const unscaled = BigInt.asUintN(64, -1100000000000000000n).toString(16).padStart(16, '0');
    const expected = [
      ...varint(9007199254740993n),
      ...varint(1n),
      ...str('key'),
      ...varint(1n),
      0, // a map block of 1 entry, then the end block
      ...varint(2n),
      ...varint(1n),
      ...varint(254n), // -2: tinyints go out as their unsigned bytes, as SeaTunnel writes them

      0,
      ...str('string'),
      0,
      ...doubleLE,
      ...bytes([...Buffer.from(unscaled, 'hex')]),
      ...str('test'),
      ...varint(19723n), // 2024-01-01 in days since 1970-01-01
      ...varint(1704113963123n), // local-timestamp-millis: the sub-millisecond part dropped
      ...varint(-3n),
      ...bytes([0xfb]), // -0.5 at scale 1 = -5
    ];
    expect([...compileAvroEncoder(columns)(row)]).toEqual(expected);
  });

  it("decodes what it encodes into the engine's values (timestamps to the millisecond)", () => {
    const back = compileAvroDecoder(columns)(compileAvroEncoder(columns)(row));
    expect(back).toEqual([
      9007199254740993n,
      new Map([['key', 1]]),
      [1, -2],
      'string',
      false,
      1.5,
      '-1.100000000000000000',
      new Uint8Array(Buffer.from('test')),
      '2024-01-01',
      '2024-01-01T12:59:23.123',
      [-3, '-0.5'],
    ]);
  });

  it("refuses a null (SeaTunnel's avro fields are not nullable) and bytes that are not one datum", () => {
    const enc = compileAvroEncoder(columns);
    expect(() => enc(row.map((v, i) => (i === 3 ? null : v)))).toThrow(
      /'c_string' is null, and SeaTunnel's avro records have no nullable fields/,
    );
    expect(() => enc(row.map((v, i) => (i === 10 ? [null, '1.0'] : v)))).toThrow(/'c_row\.c_int' is null/);
    const dec = compileAvroDecoder(columns);
    expect(() => dec(Buffer.from('{"id": 1}'))).toThrow();
    expect(() => dec(Buffer.concat([enc(row), Buffer.from([0])]))).toThrow(/trailing/);
  });

  it('says which columns Avro cannot carry', () => {
    expect(avroColumnsProblem(columns)).toBeUndefined();
    expect(avroColumnsProblem([{ name: 't', type: { kind: 'time' } }])).toMatch(/column 't' is of type time/);
    expect(avroColumnsProblem([{ name: 'm', type: { kind: 'map', key: { kind: 'int' }, value: { kind: 'int' } } }])).toMatch(/int keys/);
    expect(avroColumnsProblem([{ name: 'a-b', type: { kind: 'int' } }])).toMatch(/'a-b' is not an Avro name/);
    const nested: DataType = { kind: 'row', fields: [{ name: 'x', type: { kind: 'int' } }] };
    expect(avroColumnsProblem([{ name: 'r', type: { kind: 'row', fields: [{ name: 'r', type: nested }] } }])).toMatch(
      /repeats the record name r/,
    );
  });
});
