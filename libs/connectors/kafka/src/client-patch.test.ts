import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ajv, Admin, UserError } from '@platformatic/kafka';
import { describe, expect, it, vi } from 'vitest';

// patches/@platformatic__kafka@1.35.0.patch (docs/decisions/0101, 0102): the client's option
// validators are compiled on their first use, not when the package is imported, and ajv (the
// validators' library) and avsc (the schema registry's Avro) are loaded on first use too.
describe('@platformatic/kafka as patched: validators compiled on first use', () => {
  it('loads neither ajv nor avsc when imported and used without validation', () => {
    // A process of its own: this one may have loaded either already.
    const script = [
      "import { createRequire } from 'node:module';",
      "const { Admin } = await import('@platformatic/kafka');",
      "const admin = new Admin({ clientId: 'patch-test', bootstrapBrokers: ['127.0.0.1:1'] });",
      'await admin.close();',
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "console.log(JSON.stringify(['ajv', 'avsc'].filter((p) => loaded.some((f) => f.includes(`/node_modules/${p}/`)))));",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim())).toEqual([]);
    // The check sees a loaded package: touching the validators' library loads ajv.
    const touched = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        script.replace(
          'await admin.close();',
          "await admin.close();\nconst { ajv } = await import('@platformatic/kafka'); ajv.compile({ type: 'string' });",
        ),
      ],
      { cwd: dirname(fileURLToPath(import.meta.url)), encoding: 'utf8' },
    );
    expect(JSON.parse(touched.trim())).toEqual(['ajv']);
  });

  it('compiles no validator at import, and a strict client still rejects bad options', async () => {
    // The patched `ajv` is a stand-in that makes the real one on first use; what is set on the
    // stand-in itself comes first, so a counting compile goes there.
    const real = ajv.compile.bind(ajv);
    const compile = vi.fn((schema: object) => real(schema));
    Object.defineProperty(ajv, 'compile', { value: compile, configurable: true });
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
      delete (ajv as { compile?: unknown }).compile;
    }
  });
});
