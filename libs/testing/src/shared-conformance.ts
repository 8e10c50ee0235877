import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout root: three folders above this file (libs/testing/src or libs/testing/dist). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Where SeaTunnel's conformance configs are expected: `shared/conformance/seatunnel` in the
 * `shared/` folder beside the checkout (CI lays one there), or under TIDEWAY_SHARED_DIR. They are
 * SeaTunnel's files, not the project's, so the repository never holds a copy.
 */
export function sharedConformancePath(): string {
  const shared = process.env.TIDEWAY_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
  return join(shared, 'conformance', 'seatunnel');
}

/** The sentence that says the shared folder is missing and how to get it. */
export function sharedConformanceMissing(dir = sharedConformancePath()): string {
  return (
    `SeaTunnel's conformance configs are not at ${dir}: lay the project's shared/ folder ` +
    `(conformance/seatunnel: SeaTunnel's e2e job configs with their MANIFEST) beside the checkout ` +
    `at ${resolve(repoRoot, '..', 'shared')}, or set TIDEWAY_SHARED_DIR to the shared/ folder`
  );
}

const announced = new Set<string>();

/**
 * The shared conformance folder for a test file that needs it, or undefined when it is absent
 * outside CI: the caller then skips its cases, and one line (printed once per process and reason)
 * says how to get the folder. In CI (`CI=true`) an absent folder throws, so the file fails: a
 * suite that silently ran nothing would report a green build that checked nothing.
 */
export function sharedConformanceDir(): string | undefined {
  const dir = sharedConformancePath();
  if (existsSync(join(dir, 'MANIFEST.tsv'))) return dir;
  const why = sharedConformanceMissing(dir);
  if (process.env.CI === 'true') throw new Error(`${why} (CI=true: the conformance suites must run in CI)`);
  if (!announced.has(why)) {
    announced.add(why);
    console.log(`conformance: skipped: ${why}`);
  }
  return undefined;
}
