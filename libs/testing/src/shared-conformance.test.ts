import { afterEach, expect, it, vi } from 'vitest';
import { sharedConformanceDir, sharedConformancePath } from './shared-conformance.js';

afterEach(() => vi.unstubAllEnvs());

it('finds shared/ beside the checkout, not at an absolute path', () => {
  vi.stubEnv('TIDEWAY_SHARED_DIR', undefined);
  expect(sharedConformancePath()).toMatch(/\/shared\/conformance\/seatunnel$/);
  vi.stubEnv('TIDEWAY_SHARED_DIR', '/elsewhere/shared');
  expect(sharedConformancePath()).toBe('/elsewhere/shared/conformance/seatunnel');
});

it('an absent folder skips outside CI, with one line saying how to get it, and fails in CI', () => {
  vi.stubEnv('TIDEWAY_SHARED_DIR', '/nonexistent-tideway-shared');
  vi.stubEnv('CI', '');
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  expect(sharedConformanceDir()).toBeUndefined();
  expect(log.mock.calls).toEqual([
    [expect.stringMatching(/^conformance: skipped: .*not at \/nonexistent-tideway-shared\/conformance\/seatunnel: .*TIDEWAY_SHARED_DIR/)],
  ]);
  log.mockRestore();
  vi.stubEnv('CI', 'true');
  expect(() => sharedConformanceDir()).toThrow(/CI=true/);
});
