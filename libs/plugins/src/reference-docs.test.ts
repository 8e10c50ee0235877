import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuiltinPlugins } from './index.js';
import { pluginReference, referenceFileName, referenceIndex } from './reference-docs.js';

const docs = fileURLToPath(new URL('../../../docs/connectors', import.meta.url));

describe('docs/connectors', () => {
  it('is what the plugin specs generate (run `pnpm gen:docs` after changing a spec)', async () => {
    const plugins = (await loadBuiltinPlugins()).list();
    const expected = new Map(plugins.map((p) => [referenceFileName(p), pluginReference(p)]));
    expected.set('README.md', referenceIndex(plugins));
    expect(readdirSync(docs).sort()).toEqual([...expected.keys()].sort());
    for (const [file, text] of expected) expect(readFileSync(join(docs, file), 'utf8'), file).toBe(text);
  });
});
