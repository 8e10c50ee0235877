import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { CHROMIUM, launchChromium } from '@tideway/testing';

/** Where the browser tests keep their screenshots (test/artefacts/<suite>, git-ignored), made if missing. */
export function artefactDir(suite: string): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'artefacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}
