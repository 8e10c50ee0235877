import { describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@tideway/common';
import { loadHocon, toPlain, type ConfigLimits } from './index.js';

const SECTIONS = ['source', 'transform', 'sink'];

function refusal(text: string, limits?: ConfigLimits, variables?: Record<string, string>): ConfigError {
  try {
    loadHocon(text, { file: 'job.conf', pluginSections: SECTIONS, limits, variables });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe(ErrorCode.CONFIG_TOO_LARGE);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

/** `a${n} = <value of a${n-1}>` lines, a0 first. */
function doubling(first: string, next: (prev: string) => string, count = 40): string {
  let text = `a0 = ${first}\n`;
  for (let i = 1; i < count; i++) text += `a${i} = ${next(`\${a${i - 1}}`)}\n`;
  return text;
}

describe('job config limits', () => {
  it('refuses nesting past the depth limit without recursing into it, in every form', () => {
    // Deep enough to overflow the stack if the parser recursed into it.
    const deep = 20_000;
    const forms = [
      `x = ${'{a: '.repeat(deep)}1${'}'.repeat(deep)}`,
      `x = ${'['.repeat(deep)}${']'.repeat(deep)}`,
      `x${'.a'.repeat(deep)} = 1`,
      `source { S { x = ${'[{a: '.repeat(deep)}1${'}]'.repeat(deep)} } }`,
    ];
    for (const text of forms) {
      expect(refusal(text).message).toBe(
        'job.conf:1: the config nests objects and lists deeper than 64 levels (tideway.limits.max-config-depth)',
      );
    }
    expect(refusal(`x = ${'{a: '.repeat(11)}1${'}'.repeat(11)}`, { maxBytes: 1e6, maxDepth: 10 }).message).toMatch(/deeper than 10 levels/);
  });

  it('accepts nesting up to the limit', () => {
    const text = `x = ${'{a: '.repeat(63)}1${'}'.repeat(63)}`;
    expect(() => loadHocon(text, { file: 'job.conf' })).not.toThrow();
  });

  it('refuses substitutions that nest a value past the limit, or chain past it', () => {
    let nested = 'a0 = 1\n';
    for (let i = 1; i < 100; i++) nested += `a${i} = {x: \${a${i - 1}}}\n`;
    expect(refusal(nested).message).toMatch(/^job\.conf:\d+: the config nests objects and lists deeper than 64 levels/);
    let chain = '';
    for (let i = 5_000; i > 0; i--) chain += `a${i} = \${a${i - 1}}\n`;
    expect(refusal(`${chain}a0 = 1\n`).message).toMatch(
      /^job\.conf:\d+: the config chains \$\{\.\.\.\} substitutions deeper than 64 levels/,
    );
  });

  it('refuses substitutions that double a value into gigabytes (strings, lists, shared objects, merges)', () => {
    const texts = [
      doubling('"xxxxxxxxxx"', (p) => `${p}${p}`),
      doubling('[1, 2]', (p) => `${p}${p}`),
      doubling('[1, 2]', (p) => `[${p}, ${p}]`),
      doubling('{k: 1}', (p) => `{p: ${p}, q: ${p}}`),
    ];
    const limits = { maxBytes: 100_000, maxDepth: 64 };
    for (const text of texts) {
      expect(refusal(text, limits).message).toMatch(
        /^job\.conf:\d+: resolving the config's \$\{\.\.\.\} substitutions makes it larger than 100000 \(tideway\.limits\.max-config-bytes/,
      );
    }
    const placeholders = `s = "${'${v}'.repeat(1000)}"`;
    expect(refusal(placeholders, limits, { v: 'y'.repeat(1000) }).message).toMatch(/makes it larger than 100000/);
  });

  it('keeps an ordinary config with substitutions within budget', () => {
    const text = doubling('"ab"', (p) => `${p}${p}`, 10);
    expect((toPlain(loadHocon(text, { file: 'job.conf' })).value as Record<string, string>).a9).toHaveLength(1024);
  });

  it('refuses text (with its variables) past the size limit before parsing it', () => {
    const limits = { maxBytes: 1000, maxDepth: 64 };
    expect(refusal(`x = "${'y'.repeat(1000)}"`, limits).message).toBe(
      'job.conf: the config and its variables are 1006 bytes, more than the 1000 of tideway.limits.max-config-bytes',
    );
    expect(refusal('x = 1', limits, { v: 'y'.repeat(1000) }).message).toMatch(/1006 bytes, more than the 1000/);
  });
});
