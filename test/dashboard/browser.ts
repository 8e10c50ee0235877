import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (scripts/ensure-client-tools.sh installs it); playwright cannot download one here. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium as stack.md says it runs on this machine. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/ensure-client-tools.sh`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where the browser tests keep their screenshots (test/artefacts/<suite>, git-ignored), made if missing. */
export function artefactDir(suite: string): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'artefacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}
