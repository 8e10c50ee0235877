/**
 * SeaTunnel's text and json row formats alone, for connectors that put rows into values rather
 * than files (Redis): importing them does not load the file readers and writers.
 */
export { compileTextLineWriter, compileTextFieldParsers, NESTED_SEPARATORS, type TextFormatOptions } from './text-format.js';
export {
  compileJsonLineWriter,
  compileJsonLineParser,
  compileJsonValueParser,
  compileJsonValueWriter,
  quoteInexactNumbers,
} from './json-format.js';
export { javaDoubleText, javaFloatText, isoTemporalText } from './java-text.js';
