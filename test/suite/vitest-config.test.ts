/**
 * vitest.config.ts's two lists. The unit project shares each worker's module cache between files
 * (isolate: false), so a unit file that replaces a module with vi.mock must be in MOCKS_MODULES
 * (run isolated), or the mock leaks into the files after it in the same worker. LONG_FIRST names
 * files by path: a renamed one would silently lose its place at the front of the queue.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('lists every unit file that mocks a module in the isolated project (MOCKS_MODULES)', () => {
  const config = readFileSync('vitest.config.ts', 'utf8');
  const listed = /const MOCKS_MODULES = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist') walk(join(dir, e.name));
      else if (e.isFile() && e.name.endsWith('.test.ts')) files.push(join(dir, e.name));
    }
  };
  walk('libs');
  walk('services');
  const mocking = files.filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(f, 'utf8'))).sort();
  expect(mocking.length).toBeGreaterThan(0);
  for (const f of mocking) expect(listed, `${f} calls vi.mock: add it to MOCKS_MODULES in vitest.config.ts`).toContain(`'${f}'`);
});

it('puts only files that exist first (LONG_FIRST)', () => {
  const config = readFileSync('vitest.config.ts', 'utf8');
  const block = /const LONG_FIRST = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
  const listed = [...block.matchAll(/'([^']+\.test\.ts)'/g)].map((m) => m[1]);
  expect(listed.length).toBeGreaterThan(3);
  for (const f of listed) expect(existsSync(f), `${f} in LONG_FIRST does not exist`).toBe(true);
});
