// How to start the Tideway CLI from this checkout: the compiled build when it is current (it
// starts in a fraction of the time tsx needs to compile the sources), the TypeScript sources
// through tsx otherwise. `pnpm build` writes the stamp; any source newer than it means stale.
// Used by ./tideway, the tests that spawn the CLI and the benchmarks.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const buildStamp = join(repoRoot, 'node_modules', '.tideway-build-stamp');

const SOURCE_DIRS = ['libs', 'services', 'proto'];
const SOURCE_FILE = /\.(ts|mts|mjs|json|proto)$/;

/** Whether some source file changed after `since` (ms since the epoch). */
function changedSince(dir, since) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (changedSince(path, since)) return true;
    } else if (SOURCE_FILE.test(entry.name) && statSync(path).mtimeMs > since) return true;
  }
  return false;
}

/** Whether services/cli/dist is built from the sources as they are now. */
export function buildIsCurrent() {
  let stamp;
  try {
    stamp = statSync(buildStamp).mtimeMs;
    statSync(join(repoRoot, 'services', 'cli', 'dist', 'main.js'));
  } catch {
    return false;
  }
  return !SOURCE_DIRS.some((d) => changedSince(join(repoRoot, d), stamp));
}

/** Node arguments that start the CLI (append the CLI's own arguments). */
export function cliNodeArgs() {
  return buildIsCurrent()
    ? [join(repoRoot, 'services', 'cli', 'dist', 'main.js')]
    : ['--import', 'tsx', '--conditions=source', join(repoRoot, 'services', 'cli', 'src', 'main.ts')];
}

// `node scripts/cli-entry.mjs` prints the arguments, one per line (for ./tideway).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.stdout.write(cliNodeArgs().join('\n') + '\n');
