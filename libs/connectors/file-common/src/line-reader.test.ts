import { describe, expect, it } from 'vitest';
import { readLines } from './line-reader.js';

async function linesOf(parts: string[], delimiter?: string, encoding = 'utf-8'): Promise<string[]> {
  async function* chunks() {
    for (const p of parts) yield Buffer.from(p, encoding === 'utf-8' ? 'utf8' : 'latin1');
  }
  const out: string[] = [];
  for await (const line of readLines(chunks(), encoding, delimiter)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('ends lines at \\n, \\r\\n and \\r by default, a \\r\\n cut between chunks once', async () => {
    expect(await linesOf(['a\nb\r', '\nc\rd'])).toEqual(['a', 'b', 'c', 'd']);
    expect(await linesOf(['a\n\nb\n'])).toEqual(['a', '', 'b']);
    expect(await linesOf([])).toEqual([]);
  });

  it('cuts rows exactly at another delimiter, also one split between chunks', async () => {
    expect(await linesOf(['a||b|', '|c||', '||d'], '||')).toEqual(['a', 'b', 'c', '', 'd']);
    expect(await linesOf(['x\ny;', 'z;'], ';')).toEqual(['x\ny', 'z']);
    expect(await linesOf(['one#@', '!two#', '@!'], '#@!')).toEqual(['one', 'two']);
    expect(await linesOf(['a\r\nb'], '\r\n')).toEqual(['a', 'b']);
  });

  it('finds a delimiter of characters outside ASCII across a chunk cut inside one character', async () => {
    const bytes = Buffer.from('α¦β¦γ', 'utf8');
    const parts = [bytes.subarray(0, 3), bytes.subarray(3)];
    async function* chunks() {
      yield* parts;
    }
    const out: string[] = [];
    for await (const line of readLines(chunks(), 'utf-8', '¦')) out.push(line);
    expect(out).toEqual(['α', 'β', 'γ']);
  });
});
