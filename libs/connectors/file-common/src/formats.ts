/**
 * SeaTunnel's text and json row formats alone, for connectors that put rows into values rather
 * than files (Redis, Kafka): importing them does not load the file readers and writers.
 */
export { compileTextLineWriter, compileTextFieldParsers, NESTED_SEPARATORS, type TextFormatOptions } from './text-format.js';
export {
  compileJsonLineWriter,
  compileJsonLineParser,
  compileJsonValueParser,
  compileJsonValueWriter,
  compileJsonObjectReader,
  parseJsonObject,
  quoteInexactNumbers,
} from './json-format.js';
export { substituteTablePlaceholders } from './file-name.js';
export { javaDoubleText, javaFloatText, isoTemporalText } from './java-text.js';
export { BIGINT_AVRO_LONG } from './avro-long.js';
export {
  bytesUnscaled,
  dateDays,
  dateText,
  decimalText,
  timestampMicros,
  timestampText,
  unscaledBytes,
  unscaledDecimal,
} from './parquet-values.js';
