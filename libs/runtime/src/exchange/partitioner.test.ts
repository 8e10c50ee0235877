import { describe, expect, it } from 'vitest';
import type { Row } from '@tideway/api';
import { Partitioner, hashKey } from './partitioner.js';
import { decodeRows, encodeRows } from './row-codec.js';

const row = (tableId: string, ...fields: unknown[]): Row => ({ kind: '+I', tableId, fields });

describe('Partitioner', () => {
  it('sends every row of one key to the same target, in order', () => {
    const p = new Partitioner(3, { t: [0] });
    const rows = [row('t', 1, 'a'), row('t', 2, 'b'), row('t', 1, 'c'), row('t', 1, 'd')];
    const buckets = p.split(rows);
    const withKey1 = buckets.filter((b) => b.some((r) => r.fields[0] === 1));
    expect(withKey1).toHaveLength(1);
    expect(withKey1[0].filter((r) => r.fields[0] === 1).map((r) => r.fields[1])).toEqual(['a', 'c', 'd']);
    expect(buckets.flat()).toHaveLength(4);
  });

  it('spreads rows without a key round-robin', () => {
    const p = new Partitioner(2, {});
    expect(p.split([row('x', 1), row('x', 2), row('x', 3), row('x', 4)]).map((b) => b.length)).toEqual([2, 2]);
  });

  it('hashes stably (bigint and number of the same value agree only by text)', () => {
    expect(hashKey([5n], [0])).toBe(hashKey([5n], [0]));
    expect(hashKey(['a', 'b'], [0, 1])).not.toBe(hashKey(['ab', ''], [0, 1]));
  });
});

describe('row codec', () => {
  it('round-trips every value kind', () => {
    const rows = [row('t', 1n, 2, 3.5, 'x', new Map([['k', [1, 2]]]), new Uint8Array([1, 2]), null, '12.50', [[1, 'a']])];
    expect(decodeRows(encodeRows(rows))).toEqual(rows);
  });
});
