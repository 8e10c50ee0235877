/**
 * Java's `String.split(regex, limit)` for a positive limit: at most `limit` pieces, the last one
 * holding the rest; empty pieces (also trailing ones) are kept; a zero-width match at the very
 * start yields no leading empty piece (one at the end does yield a trailing one). `regex` must have the g flag.
 */
export function javaSplit(text: string, regex: RegExp, limit: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  regex.lastIndex = 0;
  while (pieces.length < limit - 1) {
    const m = regex.exec(text);
    if (m === null) break;
    const end = m.index + m[0].length;
    if (m[0].length === 0) {
      // Step past an empty match so exec moves on; like Java, none splits off an empty first piece.
      regex.lastIndex++;
      if (m.index === 0) continue;
    }
    pieces.push(text.slice(start, m.index));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Java's Double.toString (SeaTunnel splits the text of non-string fields). */
export { javaDouble as javaDoubleText } from '@tideway/api';
