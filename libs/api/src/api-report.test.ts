import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLUGIN_API_VERSION } from './version.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe('@tideway/api, the plugin API', () => {
  it('has the version of its package', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
      private?: boolean;
    };
    expect(PLUGIN_API_VERSION).toBe(manifest.version);
    // Plugins outside the repository depend on it: it is packed, not private.
    expect(manifest.private).toBeUndefined();
  });

  it('exports what libs/api/api-report.api.md records (run `pnpm api:report` after a deliberate change)', async () => {
    const run = await promisify(execFile)(process.execPath, ['scripts/api-report.mjs', '--check'], { cwd: repo, timeout: 240_000 }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    expect(run.out).toContain('is current');
    expect(run.code).toBe(0);
  }, 300_000);
});
