/**
 * The temporal texts a Parquet read gives (parquet-values.ts formats them digit by digit for
 * years 0 to 9999), checked against Date's own ISO text for the same instants, across the range
 * and at its edges.
 */
import { describe, expect, it } from 'vitest';
import { timestampText, TIDEWAY_PARSERS } from './parquet-values.js';

/** What Date says: 'YYYY-MM-DDTHH:mm:ss' and the microseconds, trailing zeros dropped. */
function byDate(micros: bigint): string {
  const floorMs = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const sub = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const iso = new Date(Number(floorMs)).toISOString().slice(0, 19);
  return sub === 0n ? iso : `${iso}.${sub.toString().padStart(6, '0').replace(/0+$/, '')}`;
}

/**
 * The inputs whose two texts differ (at most ten, each with both texts). One assertion over the
 * whole range: an `expect` per value made these two tests take 20 of the suite's CPU seconds.
 */
function mismatches<T>(inputs: T[], texts: (input: T) => [unknown, string]): string[] {
  const out: string[] = [];
  for (const input of inputs) {
    const [got, want] = texts(input);
    if (got !== want && out.push(`${String(input)}: ${String(got)} instead of ${want}`) >= 10) break;
  }
  return out;
}

describe('timestampText', () => {
  it('gives the text Date gives, for instants across the years and at the edges of the fast path', () => {
    let x = 0x2545f491;
    const random = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    const values: bigint[] = [0n, 1n, -1n, 999_999n, 1_000_000n, -1_000_000n, -1_000_001n, 86_400_000_000n - 1n];
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    values.push(safe, safe + 1n, -safe, -safe - 1n, 253402300799999999n, -62135596800000000n); // 9999-12-31T23:59:59.999999, 0001-01-01
    for (let i = 0; i < 20_000; i++) {
      const v = (BigInt(random()) << 21n) ^ BigInt(random() >>> 11); // up to 2^53
      values.push(v, -v, v - (v % 1_000_000n), (v / 1000n) * 1000n);
    }
    expect(mismatches(values, (v) => [timestampText(v), byDate(v)])).toEqual([]);
    expect(timestampText(1_706_000_000_123_400n)).toBe('2024-01-23T08:53:20.1234');
    expect(timestampText(-1n)).toBe('1969-12-31T23:59:59.999999');
  });
});

describe('dateFromDays', () => {
  it('gives the date Date gives, from year 1 to 9999 and past both ends', () => {
    const date = TIDEWAY_PARSERS.dateFromDays!;
    const days: number[] = [];
    for (let d = -719_162 - 400; d <= 2_932_896 + 400; d += 7) days.push(d);
    expect(mismatches(days, (d) => [date(d), new Date(d * 86_400_000).toISOString().slice(0, 10)])).toEqual([]);
    expect(date(0)).toBe('1970-01-01');
    expect(date(19_782)).toBe('2024-02-29');
    expect(date(-719_528)).toBe('0000-01-01');
    expect(date(-719_529)).toBe(new Date(-719_529 * 86_400_000).toISOString().slice(0, 10)); // -000001-12-31
  });
});
