import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's chromium (scripts/ensure-client-tools.sh installs it); playwright cannot download one here. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium as stack.md says it runs on this machine. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/ensure-client-tools.sh`);
  // Loaded here, not at the top: every test file imports @tideway/testing, and only the browser
  // tests need playwright (its import cost each suite file about half a second).
  const { chromium } = await import('playwright-core');
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
