import { expect } from 'vitest';
import type { CliResult } from './cli-process.js';

/**
 * Checks a finished CLI run against a MANIFEST expectation: `finished` = exit 0;
 * `failed:WORD` and `unsupported:REASON` = a non-zero exit with one clear error line on stderr
 * (WORD in it, case-insensitive, for `failed`), never a crash (a stack trace or a signal).
 */
export function checkOutcome(expectText: string, res: CliResult): void {
  const detail = `exit ${res.code}${res.signal ? ` (signal ${res.signal})` : ''}\n--- stderr ---\n${res.stderr.slice(-4000)}`;
  if (expectText === 'finished') {
    expect(res.code, detail).toBe(0);
    return;
  }
  const [kind, word] = splitExpect(expectText);
  expect(res.signal, detail).toBeNull();
  expect(res.code, detail).not.toBe(0);
  expect(res.stderr, detail).toMatch(/^tideway: /m);
  // A crash shows a JavaScript stack; a clear error is one sentence.
  expect(res.stderr, detail).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
  if (kind === 'failed') expect(res.stderr.toLowerCase(), detail).toContain(word.toLowerCase());
}

/** `failed:cast` -> ['failed', 'cast']. */
export function splitExpect(expectText: string): [string, string] {
  const i = expectText.indexOf(':');
  return i < 0 ? [expectText, ''] : [expectText.slice(0, i), expectText.slice(i + 1)];
}
