import { describe, expect, it } from 'vitest';
import { applyTransform, bucketHash, resultType, transformRefusal } from './transforms.js';
import { internalOf } from './values.js';

describe("Iceberg's bucket transform", () => {
  it("hashes values as the table spec's test vectors say", () => {
    expect(bucketHash('int', 34)).toBe(2017239379);
    expect(bucketHash('long', 34n)).toBe(2017239379);
    expect(bucketHash('decimal(4, 2)', 1420n)).toBe(-500754589);
    expect(bucketHash('date', internalOf('date', '2017-11-16')!)).toBe(-653330422);
    expect(bucketHash('time', internalOf('time', '22:31:08')!)).toBe(-662762989);
    expect(bucketHash('timestamp', internalOf('timestamp', '2017-11-16T22:31:08')!)).toBe(-2047944441);
    expect(bucketHash('string', 'iceberg')).toBe(1210000089);
    expect(bucketHash('binary', Uint8Array.of(0, 1, 2, 3))).toBe(-188683207);
  });

  it('takes the positive hash modulo N as an int partition value', () => {
    expect(applyTransform('bucket[16]', 'int', 34)).toBe(2017239379 % 16);
    expect(applyTransform('bucket[16]', 'decimal(4, 2)', 1420n)).toBe((-500754589 & 0x7fffffff) % 16);
    expect(applyTransform('bucket[16]', 'string', null)).toBeNull();
    expect(resultType('bucket[16]', 'string')).toBe('int');
  });

  it('refuses what Iceberg does not bucket', () => {
    expect(transformRefusal('bucket[8]', 'double')).toMatch(/bucket applies to int, long, decimal/);
    expect(transformRefusal('bucket[0]', 'int')).toMatch(/at least 1 bucket/);
    expect(transformRefusal('bucket[8]', 'decimal(10, 2)')).toBeUndefined();
  });
});
