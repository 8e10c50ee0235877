/**
 * Lines of a byte stream in a charset, ending at \n, \r\n or \r (Java's BufferedReader.lines),
 * or, given a `delimiter` other than \n, exactly at each occurrence of that text; without the
 * terminator. A final line without terminator counts; an empty file has none.
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, encoding: string, delimiter = '\n'): AsyncGenerator<string> {
  if (delimiter !== '\n') {
    yield* splitAt(chunks, encoding, delimiter);
    return;
  }
  const decoder = new TextDecoder(encoding);
  let carry = '';
  let pendingCr = false;
  for await (const chunk of chunks) {
    let text = decoder.decode(chunk, { stream: true });
    if (pendingCr && text.startsWith('\n')) text = text.slice(1);
    pendingCr = false;
    let start = 0;
    const all = carry + text;
    const offset = carry.length;
    for (let i = offset; i < all.length; i++) {
      const c = all.charCodeAt(i);
      if (c === 10 || c === 13) {
        yield all.slice(start, i);
        if (c === 13) {
          if (i + 1 < all.length) {
            if (all.charCodeAt(i + 1) === 10) i++;
          } else pendingCr = true;
        }
        start = i + 1;
      }
    }
    carry = all.slice(start);
  }
  carry += decoder.decode();
  if (carry !== '') yield carry;
}

/** The texts between occurrences of `delimiter` (which may span chunks); a last one without it counts unless empty. */
async function* splitAt(chunks: AsyncIterable<Uint8Array>, encoding: string, delimiter: string): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  let carry = '';
  for await (const chunk of chunks) {
    const all = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    // a delimiter may begin in the carried text: search from where it could start
    for (let at = all.indexOf(delimiter, Math.max(0, carry.length - delimiter.length + 1)); at >= 0; at = all.indexOf(delimiter, start)) {
      yield all.slice(start, at);
      start = at + delimiter.length;
    }
    carry = all.slice(start);
  }
  carry += decoder.decode();
  if (carry !== '') yield carry;
}
