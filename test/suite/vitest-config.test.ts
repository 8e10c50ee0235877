/**
 * vitest.config.ts's LONG_FIRST names files by path: a renamed one would silently lose its place
 * at the front of the queue.
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('puts only files that exist first (LONG_FIRST)', () => {
  const config = readFileSync('vitest.config.ts', 'utf8');
  const block = /const LONG_FIRST = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  const listed = [...block.matchAll(/'([^']+\.test\.ts)'/g)].map((m) => m[1]);
  expect(listed.length).toBeGreaterThan(3);
  for (const f of listed) expect(existsSync(f), `${f} in LONG_FIRST does not exist`).toBe(true);
});
