import { afterEach, describe, expect, it } from 'vitest';
import { dropIpServerNameWarning } from './ip-servername-warning.js';

const seen: string[] = [];
const listener = (w: Error & { code?: string }) => seen.push(w.code ?? w.message);

afterEach(() => {
  process.off('warning', listener);
  seen.length = 0;
});

describe('dropIpServerNameWarning', () => {
  it("drops Node's DEP0123 in both of emitWarning's forms and passes every other warning on", async () => {
    dropIpServerNameWarning();
    dropIpServerNameWarning(); // idempotent: one wrapper, not two
    process.on('warning', listener);
    process.emitWarning('Setting the TLS ServerName to an IP address is not permitted by RFC 6066.', 'DeprecationWarning', 'DEP0123');
    process.emitWarning('the same, as options', { type: 'DeprecationWarning', code: 'DEP0123' });
    process.emitWarning('another deprecation', 'DeprecationWarning', 'DEP0005');
    process.emitWarning('another, as options', { type: 'DeprecationWarning', code: 'DEP0106' });
    process.emitWarning('a plain warning');
    // warnings reach their listeners on the next tick
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['DEP0005', 'DEP0106', 'a plain warning']);
  });
});
