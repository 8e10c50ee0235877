import { describe, expect, it } from 'vitest';
import { ReadLimiter } from './read-limiter.js';

describe('ReadLimiter', () => {
  it('holds rows per second', () => {
    const l = new ReadLimiter(1000, 0, 0);
    expect(l.delayMs(500, 0, 0)).toBe(500);
    expect(l.delayMs(500, 0, 500)).toBe(500);
    expect(l.delayMs(100, 0, 2000)).toBe(0);
  });

  it('holds bytes per second, whichever limit is tighter', () => {
    const l = new ReadLimiter(1_000_000, 100, 0);
    expect(l.delayMs(10, 200, 0)).toBe(2000);
  });

  it('is inactive without limits', () => {
    expect(new ReadLimiter(0, 0).active).toBe(false);
  });
});
