/**
 * Lines of a byte stream in a charset, ending at \n, \r\n or \r (Java's BufferedReader.lines),
 * without the terminator. A final line without terminator counts; an empty file has none.
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, encoding: string): AsyncGenerator<string> {
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
