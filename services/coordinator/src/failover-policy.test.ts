import { describe, expect, it } from 'vitest';
import { isDeterministic, shouldRestart } from './failover-policy.js';

const err = (code: string) => ({ code, message: 'x', retryable: false });

describe('failover policy', () => {
  it('does not restart on errors a restart cannot cure', () => {
    expect(isDeterministic(err('TW-DATA-001'))).toBe(true);
    expect(isDeterministic(err('TW-ASSERT-001'))).toBe(true);
    expect(isDeterministic(err('TW-CONFIG-004'))).toBe(true);
    expect(isDeterministic(err('TW-INTERNAL-001'))).toBe(false);
    expect(shouldRestart(err('TW-DATA-001'), 0, { retryTimes: 3, retryIntervalMs: 0 })).toBe(false);
  });

  it('restarts up to job.retry.times since the last checkpoint', () => {
    const s = { retryTimes: 2, retryIntervalMs: 0 };
    expect(shouldRestart(err('TW-TASK-001'), 0, s)).toBe(true);
    expect(shouldRestart(err('TW-TASK-001'), 1, s)).toBe(true);
    expect(shouldRestart(err('TW-TASK-001'), 2, s)).toBe(false);
  });
});
