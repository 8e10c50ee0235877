import { describe, expect, it } from 'vitest';
import { PLUGIN_CATALOG, loadPluginsFor } from './catalog.js';

describe('plugin catalog', () => {
  it('names each entry as its factory does', async () => {
    for (const e of PLUGIN_CATALOG) {
      const f = await e.load();
      expect([f.type, f.name], e.factory).toEqual([e.type, e.name]);
    }
  });

  it('loads just the plugins asked for, matched case-insensitively', async () => {
    const r = await loadPluginsFor([
      { type: 'source', name: 'fakesource' },
      { type: 'sink', name: 'Console' },
    ]);
    expect(r.list().map((f) => f.name)).toEqual(['Console', 'FakeSource']);
  });
});
