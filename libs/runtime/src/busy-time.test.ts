import { describe, expect, it } from 'vitest';
import { BusyTimeMeter, EventTimeLag } from './busy-time.js';

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('BusyTimeMeter', () => {
  it('splits the time since the last sample into idle, back-pressured and busy shares per second', async () => {
    const m = new BusyTimeMeter();
    m.sample(0);
    await m.waiting('idle', wait(100));
    // Two overlapping back-pressure waits count once; idle inside back pressure counts as back pressure.
    await Promise.all([m.waiting('backPressured', wait(200)), m.waiting('backPressured', wait(150)), m.waiting('idle', wait(50))]);
    const busyUntil = Date.now() + 100;
    while (Date.now() < busyUntil); // busy
    const s = m.sample(0.5);
    const sum = s.busyMsPerSecond + s.idleMsPerSecond + s.backPressuredMsPerSecond;
    expect(sum).toBeCloseTo(1000, 0);
    // Shares of 400 ms: idle 100, back-pressured 200, busy 100 (timers run late, never early).
    expect(s.backPressuredMsPerSecond).toBeGreaterThan(s.idleMsPerSecond);
    expect(s.idleMsPerSecond).toBeGreaterThan(100);
    expect(s.busyMsPerSecond).toBeGreaterThan(100);
    expect(s.outPoolUsage).toBe(0.5);
    // The totals since the meter started: the three add up to its age, back pressure about 200 ms.
    const age = s.accumulatedBusyMs + s.accumulatedIdleMs + s.accumulatedBackPressuredMs;
    // At least the 100 + 200 + 100 ms waited, less the millisecond or so each of the timers and the
    // Date.now() busy loop can come short of the meter's clock (a CI run measured 399.46).
    expect(age).toBeGreaterThanOrEqual(395);
    expect(s.accumulatedBackPressuredMs).toBeGreaterThanOrEqual(195);
    expect(s.accumulatedBackPressuredMs).toBeLessThan(age);
    // No shuffle input: no input queue.
    expect([s.inPoolUsage, s.inQueueBatches, s.inQueueCapacity]).toEqual([0, 0, 0]);
  });

  it('reports the input queue as batches waiting over what the channels hold', () => {
    const m = new BusyTimeMeter();
    const s = m.sample(0, { batches: 12, capacity: 32 });
    expect([s.inPoolUsage, s.inQueueBatches, s.inQueueCapacity]).toEqual([0.375, 12, 32]);
    expect(m.sample(0, { batches: 32, capacity: 32 }).inPoolUsage).toBe(1);
  });

  it('counts a wait still in progress up to the sample', async () => {
    const m = new BusyTimeMeter();
    m.sample(0);
    let release!: () => void;
    const blocked = m.waiting('backPressured', new Promise<void>((r) => (release = r)));
    await wait(100);
    expect(m.sample(1).backPressuredMsPerSecond).toBeGreaterThan(900);
    release();
    await blocked;
  });
});

describe('EventTimeLag', () => {
  it('reports the largest lag measured since the last sample, the last one when nothing went out, 0 once caught up, none for other sources', () => {
    const lag = new EventTimeLag();
    lag.pushed(1000);
    expect(lag.sample()).toBeUndefined();
    lag.report(4000);
    lag.report(4500);
    lag.report(4200);
    lag.pushed(5000);
    // The reader caught up right after: a sample still shows the lag of what went out since the last.
    lag.report(null);
    lag.pushed(5010);
    expect(lag.sample()).toBe(500);
    // Nothing went out since: the last measure, which is 0 now that the reader caught up.
    expect(lag.sample()).toBe(0);
    lag.report(8000);
    lag.pushed(8300);
    lag.report(8400);
    lag.pushed(9400);
    expect(lag.sample()).toBe(1000);
    // A commit time ahead of this clock (another machine's) is no negative lag.
    lag.report(20_000);
    lag.pushed(10_000);
    expect(lag.sample()).toBe(0);
  });
});
