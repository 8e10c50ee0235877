import { ajv, Admin, UserError } from '@platformatic/kafka';
import { describe, expect, it, vi } from 'vitest';

// patches/@platformatic__kafka@1.35.0.patch (docs/decisions/0101): the client's option validators
// are compiled on their first use, not when the package is imported.
describe('@platformatic/kafka as patched: validators compiled on first use', () => {
  it('compiles no validator at import, and a strict client still rejects bad options', async () => {
    const compile = vi.spyOn(ajv, 'compile');
    try {
      const plain = new Admin({ clientId: 'patch-test', bootstrapBrokers: ['127.0.0.1:1'] });
      await plain.close();
      // Without `strict` the client validates nothing, so nothing was compiled, here or at import.
      expect(compile).not.toHaveBeenCalled();
      expect(
        () => new Admin({ clientId: 'patch-test', bootstrapBrokers: ['127.0.0.1:1'], strict: true, timeout: 'soon' as never }),
      ).toThrow(UserError);
      expect(
        () => new Admin({ clientId: 'patch-test', bootstrapBrokers: ['127.0.0.1:1'], strict: true, timeout: 'soon' as never }),
      ).toThrow(/timeout/);
      // Compiled at the first strict client, once: the second one reused it.
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });
});
