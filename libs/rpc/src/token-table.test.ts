import { describe, expect, it } from 'vitest';
import { hashToken, type TokenEntry } from './auth.js';
import { TokenTable } from './token-table.js';

const entry = (name: string): TokenEntry => ({ hash: hashToken(name), role: 'viewer', namespace: 'team-a', name });

/** A state store whose tokens the test changes, counting its reads. */
function source() {
  const s = {
    tokens: [] as TokenEntry[],
    reads: 0,
    read: () => {
      s.reads++;
      return Promise.resolve([...s.tokens]);
    },
  };
  return s;
}

describe('TokenTable', () => {
  it('is off without engine-config tokens, whatever the state store holds', async () => {
    const store = source();
    store.tokens = [entry('stored')];
    const table = new TokenTable([]);
    table.useSource(store.read);
    await table.refresh(false);
    expect(table.enabled).toBe(false);
    expect(store.reads).toBe(0);
  });

  it('reads the state store for an unknown token, not again for a known one while fresh; invalidate reads at the next call', async () => {
    const store = source();
    const table = new TokenTable([entry('config')]);
    table.useSource(store.read);
    await table.refresh(false);
    expect(store.reads).toBe(1);
    expect(table.entries().map((t) => t.name)).toEqual(['config']);
    store.tokens = [entry('new')];
    await table.refresh(true);
    expect(store.reads).toBe(1);
    table.invalidate();
    await table.refresh(true);
    expect(store.reads).toBe(2);
    expect(table.entries().map((t) => t.name)).toEqual(['config', 'new']);
  });

  it('keeps the last tokens when the state store cannot be read', async () => {
    let fail = false;
    const table = new TokenTable([entry('config')]);
    table.useSource(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve([entry('stored')])));
    await table.refresh(false);
    fail = true;
    table.invalidate();
    await table.refresh(false);
    expect(table.entries().map((t) => t.name)).toEqual(['config', 'stored']);
  });
});
