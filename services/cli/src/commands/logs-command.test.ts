import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tideway/common';
import { formatLogLine, parseSince } from './logs-command.js';

describe('tideway logs', () => {
  const now = Date.parse('2026-01-31T12:00:00Z');

  it('reads --since as an age, an ISO time or epoch milliseconds, and refuses anything else by name', () => {
    expect(parseSince('90s', now)).toBe(now - 90_000);
    expect(parseSince('10m', now)).toBe(now - 600_000);
    expect(parseSince('1.5h', now)).toBe(now - 5_400_000);
    expect(parseSince('2026-01-31T11:00:00Z', now)).toBe(now - 3_600_000);
    expect(parseSince('1769857200000', now)).toBe(1769857200000);
    expect(() => parseSince('last tuesday', now)).toThrow(ConfigError);
    expect(() => parseSince('last tuesday', now)).toThrow(/--since last tuesday: expected an age/);
  });

  it('shows a line with its time, level, process, component, message and other fields', () => {
    const line = JSON.stringify({ level: 40, time: now, pid: 1, component: 'worker', jobId: '1', taskGroup: 2, err: { a: 1 }, msg: 'x' });
    expect(formatLogLine({ node: '127.0.0.1:5801', role: 'worker', timeMs: now, level: 'warn', msg: 'x', line })).toBe(
      '2026-01-31 12:00:00.000 WARN  worker 127.0.0.1:5801  worker: x  taskGroup=2 err={"a":1}',
    );
  });
});
