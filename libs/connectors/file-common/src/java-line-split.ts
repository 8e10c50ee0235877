/** Characters that make a one-character Java regex more than a literal (String.split's fastpath test). */
const REGEX_META = '.$|()[{^?*+\\';

/**
 * Java's `line.split(delimiter, -1)`, which SeaTunnel's text reader uses (DefaultTextLineSplitor):
 * the delimiter is a Java regular expression, so `\\|` splits on '|'; trailing empty fields are
 * kept. Like Java's fastpath, a one-character delimiter that is no regex metacharacter, or a
 * backslash before a character that is neither a letter nor a digit, splits on that literal
 * character; anything else is compiled once as a regex (Java's and JavaScript's syntax agree for
 * the delimiters text files use).
 */
export function javaLineSplitter(delimiter: string): (line: string) => string[] {
  const literal =
    delimiter.length === 1 && !REGEX_META.includes(delimiter)
      ? delimiter
      : delimiter.length === 2 && delimiter[0] === '\\' && !/[0-9A-Za-z]/.test(delimiter[1])
        ? delimiter[1]
        : undefined;
  if (literal !== undefined) return (line) => line.split(literal);
  const regex = new RegExp(delimiter, 'u');
  return (line) => {
    const parts = line.split(regex);
    // Java drops the leading empty string a zero-width match at the start of the line gives.
    return parts.length > 1 && parts[0] === '' && line.search(regex) === 0 && line.match(regex)![0] === '' ? parts.slice(1) : parts;
  };
}
