import { describe, expect, it } from 'vitest';
import { RateTracker } from './rate-tracker.js';

describe('RateTracker', () => {
  it('gives per-second rates over its window, per counter', () => {
    const r = new RateTracker(5000);
    expect(r.rate('rows')).toBe(0);
    r.sample(
      new Map([
        ['rows', 0],
        ['bytes', 0],
      ]),
      0,
    );
    r.sample(
      new Map([
        ['rows', 1000],
        ['bytes', 8000],
      ]),
      1000,
    );
    r.sample(
      new Map([
        ['rows', 3000],
        ['bytes', 8000],
      ]),
      2000,
    );
    expect(r.rate('rows')).toBe(1500);
    expect(r.rate('bytes')).toBe(4000);
    r.sample(new Map([['rows', 3000]]), 9000); // the old samples leave the window
    expect(r.rate('rows')).toBe(0);
  });
});
