import iconv from 'iconv-lite';

/**
 * A new encoder from text to bytes in a charset, for one file (stateful: a byte order mark, if
 * the charset has one, is written once at the start). Java charset names as SeaTunnel's
 * `encoding` takes them (UTF-8, GBK, GB18030, ISO-8859-1, UTF-16, Big5, Shift_JIS, ...), through
 * iconv-lite; undefined when the charset is unknown.
 */
export function charsetEncoder(charset: string): (() => (text: string) => Uint8Array) | undefined {
  const name = charset.toLowerCase();
  if (name === 'utf-8' || name === 'utf8') return () => (text) => Buffer.from(text, 'utf8'); // the common case, without iconv's copy
  if (!iconv.encodingExists(name)) return undefined;
  return () => {
    const encoder = iconv.getEncoder(name);
    return (text) => encoder.write(text);
  };
}
