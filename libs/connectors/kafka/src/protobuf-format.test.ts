import type { DataType } from '@tideway/api';
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { compileProtobufDecoder, compileProtobufEncoder, protobufColumnsProblem, protobufType } from './protobuf-format.js';

/** The message of SeaTunnel's protobuf e2e configs. */
const SCHEMA = `
  syntax = "proto3";
  package org.apache.seatunnel.format.protobuf;
  message Person {
    int32 c_int32 = 1;
    int64 c_int64 = 2;
    float c_float = 3;
    double c_double = 4;
    bool c_bool = 5;
    string c_string = 6;
    bytes c_bytes = 7;
    message Address {
      string street = 1;
      string city = 2;
      string state = 3;
      string zip = 4;
    }
    Address address = 8;
    map<string, float> attributes = 9;
    repeated string phone_numbers = 10;
    repeated int32 scores = 11;
  }`;

const s = (kind: string): DataType => ({ kind }) as DataType;
const COLUMNS: { name: string; type: DataType }[] = [
  { name: 'c_int32', type: s('int') },
  { name: 'c_int64', type: s('bigint') },
  { name: 'c_float', type: s('float') },
  { name: 'c_double', type: s('double') },
  { name: 'c_bool', type: s('boolean') },
  { name: 'c_string', type: s('string') },
  { name: 'c_bytes', type: s('bytes') },
  {
    name: 'Address',
    type: {
      kind: 'row',
      fields: [
        { name: 'city', type: s('string') },
        { name: 'state', type: s('string') },
        { name: 'street', type: s('string') },
      ],
    },
  },
  { name: 'attributes', type: { kind: 'map', key: s('string'), value: s('float') } },
  { name: 'phone_numbers', type: { kind: 'array', element: s('string') } },
  { name: 'scores', type: { kind: 'array', element: s('int') } },
];

const message = protobufType({ messageName: 'Person', schema: SCHEMA }) as protobuf.Type;

/** Protocol Buffers' wire format written out by hand from the spec. */
const varint = (n: bigint): number[] => {
  const out: number[] = [];
  let z = BigInt.asUintN(64, n);
  do {
    const b = Number(z & 0x7fn);
    z >>= 7n;
    out.push(z > 0n ? b | 0x80 : b);
  } while (z > 0n);
  return out;
};
const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const len = (field: number, body: number[]) => [...tag(field, 2), ...varint(BigInt(body.length)), ...body];
const text = (field: number, t: string) => len(field, [...Buffer.from(t)]);
const f32 = (x: number) => [...Buffer.from(new Float32Array([x]).buffer)];
const f64 = (x: number) => [...Buffer.from(new Float64Array([x]).buffer)];

describe("protobuf format (SeaTunnel's mapping of columns to fields)", () => {
  it("encodes KafkaIT's row as the wire format says, fields by number, proto3 defaults left out", () => {
    const row = [
      123,
      123123123123n,
      0.123,
      0.123,
      false,
      'test data',
      Uint8Array.of(1, 2, 3),
      ['city_value', 'state_value', 'street_value'],
      new Map([
        ['k1', 0.1],
        ['k2', 2.3],
      ]),
      ['1', '2'],
      [1, -1],
    ];
    const expected = [
      ...tag(1, 0),
      ...varint(123n),
      ...tag(2, 0),
      ...varint(123123123123n),
      ...tag(3, 5),
      ...f32(0.123),
      ...tag(4, 1),
      ...f64(0.123),
      // c_bool = false: proto3's default, not written
      ...text(6, 'test data'),
      ...len(7, [1, 2, 3]),
      ...len(8, [...text(1, 'street_value'), ...text(2, 'city_value'), ...text(3, 'state_value')]),
      ...len(9, [...text(1, 'k1'), ...tag(2, 5), ...f32(0.1)]),
      ...len(9, [...text(1, 'k2'), ...tag(2, 5), ...f32(2.3)]),
      ...text(10, '1'),
      ...text(10, '2'),
      ...len(11, [...varint(1n), ...varint(-1n)]), // packed, as proto3 repeats numbers
    ];
    const encode = compileProtobufEncoder(message, COLUMNS);
    expect([...encode(row)]).toEqual(expected);
    const back = compileProtobufDecoder(message, COLUMNS)(encode(row));
    expect(back).toEqual([
      123,
      123123123123n,
      Math.fround(0.123),
      0.123,
      false,
      'test data',
      Uint8Array.of(1, 2, 3),
      ['city_value', 'state_value', 'street_value'],
      new Map([
        ['k1', Math.fround(0.1)],
        ['k2', Math.fround(2.3)],
      ]),
      ['1', '2'],
      [1, -1],
    ]);
  });

  it('reads absent fields as their defaults and columns the message lacks as null', () => {
    const columns = [...COLUMNS.slice(0, 2), { name: 'not_there', type: s('string') }];
    expect(protobufColumnsProblem(message, columns, false)).toBeUndefined();
    expect(compileProtobufDecoder(message, columns)(Buffer.alloc(0))).toEqual([0, 0n, null]);
  });

  it('says which columns do not fit the message', () => {
    expect(protobufColumnsProblem(message, COLUMNS, true)).toBeUndefined();
    expect(protobufColumnsProblem(message, [{ name: 'not_there', type: s('string') }], true)).toMatch(
      /column 'not_there' has no field not_there in message Person/,
    );
    expect(protobufColumnsProblem(message, [{ name: 'c_int32', type: s('string') }], true)).toMatch(
      /column 'c_int32' of type string does not fit field c_int32 \(int32\)/,
    );
    expect(protobufColumnsProblem(message, [{ name: 'c_int64', type: s('timestamp') }], true)).toMatch(/does not fit field c_int64/);
    expect(
      protobufColumnsProblem(message, [{ name: 'attributes', type: { kind: 'map', key: s('string'), value: s('double') } }], true),
    ).toMatch(/does not fit field attributes \(map<string, float>\)/);
    expect(protobufType({ messageName: 'Nobody', schema: SCHEMA })).toBe('protobuf_schema declares no message Nobody');
    expect(protobufType({ messageName: 'Person', schema: 'message {' })).toMatch(/^protobuf_schema cannot be parsed/);
  });
});
