import { describe, expect, it } from 'vitest';
import { javaLineSplitter } from './java-line-split.js';

describe('javaLineSplitter (Java String.split(delimiter, -1))', () => {
  it('treats the delimiter as a Java regex: "\\\\|" splits on the pipe', () => {
    expect(javaLineSplitter('\\|')('a|b||c|')).toEqual(['a', 'b', '', 'c', '']);
  });
  it('splits on a plain character literally, keeping trailing empty fields', () => {
    expect(javaLineSplitter('#')('x#y##')).toEqual(['x', 'y', '', '']);
    expect(javaLineSplitter('\u0001')('1\u00012')).toEqual(['1', '2']);
  });
  it('splits on a regex of several characters', () => {
    expect(javaLineSplitter('\\s*,\\s*')('a , b,c')).toEqual(['a', 'b', 'c']);
    expect(javaLineSplitter('::')('a::b')).toEqual(['a', 'b']);
  });
});
