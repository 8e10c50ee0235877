/**
 * @tideway/testing is for tests only (issue 31): no package depends on it outside its
 * devDependencies, and no source file that ships (not a test, not a test helper under src/test/)
 * imports it. What shipped code needs of it lives in @tideway/launchers. Tests (test/) and the
 * benches (bench/) may use it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './shared-conformance.js';

/** Every folder under libs/ and services/ that holds a package.json (not in node_modules or dist). */
function packageDirs(dir: string, found: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const sub = join(dir, e.name);
    if (readdirSync(sub).includes('package.json')) found.push(sub);
    else packageDirs(sub, found);
  }
  return found;
}

/** The .ts files of a folder that ship: not tests, not test helpers under a test/ folder. */
function shippedSources(dir: string, found: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'test' && e.name !== 'node_modules' && e.name !== 'ui-dist') shippedSources(path, found);
    } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) found.push(path);
  }
  return found;
}

const packages = [...packageDirs(join(repoRoot, 'libs')), ...packageDirs(join(repoRoot, 'services'))].filter(
  (d) => !d.endsWith(join('libs', 'testing')),
);

describe('@tideway/testing stays test-only', () => {
  it('finds the packages it checks', () => {
    expect(packages.map((d) => relative(repoRoot, d))).toEqual(expect.arrayContaining(['services/cli', 'libs/launchers', 'libs/client']));
  });

  it('is never a dependency of a package, only a devDependency', () => {
    const wrong = packages.filter((d) => {
      const manifest = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      return [manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies].some((deps) => deps?.['@tideway/testing']);
    });
    expect(wrong.map((d) => relative(repoRoot, d))).toEqual([]);
  });

  it('is imported by no source file that ships', () => {
    const importer = /from\s+['"]@tideway\/testing(\/[^'"]*)?['"]|import\(\s*['"]@tideway\/testing/;
    const wrong = packages
      .flatMap((d) => {
        try {
          return shippedSources(join(d, 'src'));
        } catch {
          return [];
        }
      })
      .filter((f) => importer.test(readFileSync(f, 'utf8')));
    expect(wrong.map((f) => relative(repoRoot, f))).toEqual([]);
  });
});
