/**
 * proto/ stays a clean buf module whose compiled descriptors are what the servers serve:
 * `buf lint` passes, `buf breaking` finds nothing against the committed baseline image (the
 * contract clients were generated from), and the descriptor set reflection serves is the one a
 * fresh build of the .proto files gives (a proto change without `pnpm gen` fails here).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDescriptorSet } from '../../../scripts/gen-descriptors.js';
import { DESCRIPTOR_SET_PATH } from './index.js';

const repo = join(import.meta.dirname, '..', '..', '..');
const buf = (args: string[]) =>
  execFileSync(join(repo, 'node_modules/.bin/buf'), args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function failure(fn: () => unknown): string {
  try {
    fn();
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
}

describe('proto/ as a buf module', () => {
  it('passes buf lint', () => {
    expect(failure(() => buf(['lint']))).toBe('');
  });

  it('has no breaking change against the baseline image (libs/contracts/baseline; pnpm proto:baseline moves it)', () => {
    expect(failure(() => buf(['breaking', 'proto', '--against', 'libs/contracts/baseline/tideway-v1.binpb']))).toBe('');
  });

  it('buf breaking fails on a removed field (the check can fail)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'tideway-proto-'));
    try {
      cpSync(join(repo, 'proto'), copy, { recursive: true });
      const file = join(copy, 'tideway/v1/job_service.proto');
      const text = readFileSync(file, 'utf8');
      const edited = text.replace(/^\s*map<string, string> variables = 4;\n/m, '');
      expect(edited).not.toBe(text);
      writeFileSync(file, edited);
      expect(failure(() => buf(['breaking', copy, '--against', 'libs/contracts/baseline/tideway-v1.binpb']))).toMatch(/variables/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('serves the descriptors a fresh build gives (run pnpm gen after changing a .proto)', () => {
    expect(Buffer.compare(readFileSync(DESCRIPTOR_SET_PATH), buildDescriptorSet()), `${DESCRIPTOR_SET_PATH} is stale: run pnpm gen`).toBe(
      0,
    );
  });
});
