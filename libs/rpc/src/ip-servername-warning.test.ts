import { describe, expect, it } from 'vitest';
import { dropIpServerNameWarning, withoutIpServerName } from './ip-servername-warning.js';

describe('the DEP0123 filter', () => {
  it("drops Node's DEP0123 in both of emitWarning's forms and passes every other warning on", () => {
    const passed: unknown[][] = [];
    const emit = withoutIpServerName((...args) => passed.push(args));
    emit('Setting the TLS ServerName to an IP address is not permitted by RFC 6066.', 'DeprecationWarning', 'DEP0123');
    emit('the same, as options', { type: 'DeprecationWarning', code: 'DEP0123' });
    emit('another deprecation', 'DeprecationWarning', 'DEP0005');
    emit('another, as options', { type: 'DeprecationWarning', code: 'DEP0106' });
    emit('a plain warning');
    expect(passed).toEqual([
      ['another deprecation', 'DeprecationWarning', 'DEP0005'],
      ['another, as options', { type: 'DeprecationWarning', code: 'DEP0106' }],
      ['a plain warning'],
    ]);
  });

  it('is installed on process.emitWarning once: DEP0123 no longer reaches the warning listeners', async () => {
    dropIpServerNameWarning();
    const installed: unknown = Reflect.get(process, 'emitWarning');
    dropIpServerNameWarning();
    expect(Reflect.get(process, 'emitWarning')).toBe(installed);
    const seen: string[] = [];
    const listener = (w: Error & { code?: string }) => seen.push(w.code ?? w.message);
    process.on('warning', listener);
    try {
      process.emitWarning('Setting the TLS ServerName to an IP address is not permitted by RFC 6066.', 'DeprecationWarning', 'DEP0123');
      await new Promise((resolve) => setImmediate(resolve)); // warnings reach listeners on a later tick
    } finally {
      process.off('warning', listener);
    }
    expect(seen).toEqual([]);
  });
});
