import { ConfigError, ErrorCode } from '@tideway/common';
import { CompressionKind } from '@tideway/connector-file-common';

/**
 * The file formats of an Iceberg table's data and delete files, from its write properties
 * (Iceberg's TableProperties): write.format.default (parquet, orc, avro), write.delete.format.default
 * (the data format when unset, as Iceberg's Java writers do), and each format's codec
 * (write.<format>.compression-codec, write.delete.<format>.compression-codec for delete files;
 * Iceberg's defaults: parquet zstd, orc zlib, avro gzip).
 */

export type DataFormat = 'PARQUET' | 'ORC' | 'AVRO';

export type ParquetCodec = 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP' | 'ZSTD' | 'BROTLI' | 'LZ4_RAW';

/** Parquet codecs of write.parquet.compression-codec (Iceberg's names) and the writer's codec. */
export const PARQUET_CODECS: Record<string, ParquetCodec> = {
  uncompressed: 'UNCOMPRESSED',
  snappy: 'SNAPPY',
  gzip: 'GZIP',
  zstd: 'ZSTD',
  brotli: 'BROTLI',
  lz4: 'LZ4_RAW',
};

/** ORC codecs of write.orc.compression-codec (Iceberg's names; lzo is refused: no LZO compressor for Node). */
export const ORC_CODECS: Record<string, CompressionKind> = {
  none: CompressionKind.NONE,
  zlib: CompressionKind.ZLIB,
  snappy: CompressionKind.SNAPPY,
  lz4: CompressionKind.LZ4,
  zstd: CompressionKind.ZSTD,
};

/** Avro codecs of write.avro.compression-codec (Iceberg's names) and the codec named in the container file (avro.codec). */
export const AVRO_CODECS: Record<string, AvroCodec> = {
  uncompressed: 'null',
  gzip: 'deflate',
  snappy: 'snappy',
  zstd: 'zstandard',
};

export type AvroCodec = 'null' | 'deflate' | 'snappy' | 'zstandard';

/** How files of one content (data or deletes) are written. */
export interface FileFormat {
  readonly format: DataFormat;
  readonly parquetCodec: ParquetCodec;
  readonly orcCodec: CompressionKind;
  readonly avroCodec: AvroCodec;
}

export interface TableFileFormats {
  readonly data: FileFormat;
  readonly deletes: FileFormat;
}

const FORMATS: Record<string, DataFormat> = { parquet: 'PARQUET', orc: 'ORC', avro: 'AVRO' };

/** The write properties this module reads. */
export const FORMAT_PROPS = [
  'write.format.default',
  'write.delete.format.default',
  'write.parquet.compression-codec',
  'write.orc.compression-codec',
  'write.avro.compression-codec',
  'write.delete.parquet.compression-codec',
  'write.delete.orc.compression-codec',
  'write.delete.avro.compression-codec',
];

/** What is wrong with a format or codec property's value (a sentence without the place), or undefined. */
export function formatPropProblem(key: string, value: string): string | undefined {
  const v = value.toLowerCase();
  if (key === 'write.format.default' || key === 'write.delete.format.default') {
    return FORMATS[v] ? undefined : `${key} = ${value} is not one of ${Object.keys(FORMATS).join(', ')}`;
  }
  const codecs = key.includes('.parquet.')
    ? PARQUET_CODECS
    : key.includes('.orc.')
      ? ORC_CODECS
      : key.includes('.avro.')
        ? AVRO_CODECS
        : undefined;
  if (!codecs) return undefined;
  if (codecs[v] !== undefined) return undefined;
  const why = v === 'lzo' && codecs === ORC_CODECS ? ' (no maintained LZO compressor exists for Node)' : '';
  return `${key} = ${value} is not supported${why}: Tideway writes ${Object.keys(codecs).join(', ')}`;
}

/**
 * The formats of a table's files from `props` (the table's properties with the job's
 * iceberg.table.write-props over them); a bad value is refused naming `where` and the property.
 */
export function tableFileFormats(props: Readonly<Record<string, string>>, where: string): TableFileFormats {
  for (const key of FORMAT_PROPS) {
    const value = props[key];
    if (value === undefined) continue;
    const problem = formatPropProblem(key, value);
    if (problem) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: property ${problem}.`);
  }
  const dataFormat = FORMATS[(props['write.format.default'] ?? 'parquet').toLowerCase()];
  const deleteFormat = FORMATS[(props['write.delete.format.default'] ?? props['write.format.default'] ?? 'parquet').toLowerCase()];
  const codecs = (prefix: string, format: DataFormat): FileFormat => {
    const codec = (name: string, fallback: string): string =>
      (props[`${prefix}${name}.compression-codec`] ?? props[`write.${name}.compression-codec`] ?? fallback).toLowerCase();
    return {
      format,
      parquetCodec: PARQUET_CODECS[codec('parquet', 'zstd')],
      orcCodec: ORC_CODECS[codec('orc', 'zlib')],
      avroCodec: AVRO_CODECS[codec('avro', 'gzip')],
    };
  };
  return { data: codecs('write.', dataFormat), deletes: codecs('write.delete.', deleteFormat) };
}

/** The file name suffix of a format. */
export function formatSuffix(format: DataFormat): string {
  return format === 'PARQUET' ? '.parquet' : format === 'ORC' ? '.orc' : '.avro';
}

/** A manifest entry's file_format as a format Tideway reads; another is refused naming the file. */
export function fileFormatOf(value: unknown, path: string): DataFormat {
  const format = (typeof value === 'string' ? value : 'PARQUET').toUpperCase();
  if (format === 'PARQUET' || format === 'ORC' || format === 'AVRO') return format;
  throw new ConfigError(
    ErrorCode.UNSUPPORTED_TYPE,
    `Iceberg file ${path} is ${format}; Tideway reads Parquet, ORC and Avro data and delete files.`,
  );
}
