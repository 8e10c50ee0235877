import { describe, expect, it } from 'vitest';
import { SeededRandom } from './random.js';
import { median, percentile } from './stats.js';

describe('SeededRandom', () => {
  it('repeats its choices for the same seed and differs for another', () => {
    const draw = (seed: number) => {
      const r = new SeededRandom(seed);
      return Array.from({ length: 20 }, () =>
        r.weighted([
          ['a', 1],
          ['b', 3],
          ['c', 0],
        ]),
      );
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    // A zero weight is never chosen.
    expect(draw(42)).not.toContain('c');
  });

  it('keeps between() inside its bounds', () => {
    const r = new SeededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const v = r.between(1.2, 2);
      expect(v).toBeGreaterThanOrEqual(1.2);
      expect(v).toBeLessThan(2);
    }
  });
});

describe('median and p90', () => {
  it('take the nearest rank', () => {
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(median(ten)).toBe(5);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile([3], 90)).toBe(3);
    expect(median([])).toBeUndefined();
  });
});
