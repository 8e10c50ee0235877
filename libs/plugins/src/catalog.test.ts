import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLUGIN_CATALOG, loadPluginsFor } from './catalog.js';

const libs = fileURLToPath(new URL('../../', import.meta.url));

describe('plugin catalog', () => {
  it('names each entry as its factory does', async () => {
    for (const e of PLUGIN_CATALOG) {
      const f = await e.load();
      expect([f.type, f.name], `${e.package} ${e.factory}`).toEqual([e.type, e.name]);
    }
  });

  it('is what the connector and transform packages declare in their package.json', () => {
    const declared = ['connectors', 'transforms'].flatMap((group) =>
      readdirSync(join(libs, group)).flatMap((dir) => {
        const p = JSON.parse(readFileSync(join(libs, group, dir, 'package.json'), 'utf8')) as {
          name: string;
          tideway?: { plugins: Array<{ name: string; kind: string }> };
        };
        return (p.tideway?.plugins ?? []).map((d) => `${p.name} ${d.kind} ${d.name}`);
      }),
    );
    expect(PLUGIN_CATALOG.map((e) => `${e.package} ${e.type} ${e.name}`).sort()).toEqual(declared.sort());
    expect(PLUGIN_CATALOG.every((e) => e.builtin)).toBe(true);
    // The packages Tideway has always shipped are all there.
    expect(PLUGIN_CATALOG.length).toBeGreaterThanOrEqual(22);
  });

  it('loads just the plugins asked for, matched case-insensitively', async () => {
    const r = await loadPluginsFor([
      { type: 'source', name: 'fakesource' },
      { type: 'sink', name: 'Console' },
    ]);
    expect(r.list().map((f) => f.name)).toEqual(['Console', 'FakeSource']);
  });
});
