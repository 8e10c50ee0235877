import { CompressionKind } from '@tideway/connector-file-common';
import { describe, expect, it } from 'vitest';
import { avroName, avroSchemaOf } from './data-encoders.js';
import { fileFormatOf, tableFileFormats } from './data-format.js';

describe('Iceberg file formats of write properties', () => {
  it("takes Iceberg's defaults: parquet data and delete files, zstd/zlib/gzip codecs", () => {
    const f = tableFileFormats({}, 'Iceberg table db.t');
    expect(f.data).toEqual({ format: 'PARQUET', parquetCodec: 'ZSTD', orcCodec: CompressionKind.ZLIB, avroCodec: 'deflate' });
    expect(f.deletes).toEqual(f.data);
  });

  it('writes delete files in the data format unless write.delete.format.default says otherwise, with the delete codec over the data codec', () => {
    const orc = tableFileFormats({ 'write.format.default': 'ORC', 'write.orc.compression-codec': 'snappy' }, 'x');
    expect(orc.data.format).toBe('ORC');
    expect(orc.deletes.format).toBe('ORC');
    expect(orc.deletes.orcCodec).toBe(CompressionKind.SNAPPY);
    const mixed = tableFileFormats(
      {
        'write.format.default': 'avro',
        'write.delete.format.default': 'orc',
        'write.avro.compression-codec': 'zstd',
        'write.delete.orc.compression-codec': 'none',
      },
      'x',
    );
    expect(mixed.data).toMatchObject({ format: 'AVRO', avroCodec: 'zstandard' });
    expect(mixed.deletes).toMatchObject({ format: 'ORC', orcCodec: CompressionKind.NONE });
  });

  it('refuses a table property Tideway cannot write, naming the table and the property', () => {
    expect(() => tableFileFormats({ 'write.format.default': 'lance' }, 'Iceberg table db.t')).toThrow(
      'Iceberg table db.t: property write.format.default = lance is not one of parquet, orc, avro.',
    );
    expect(() => tableFileFormats({ 'write.format.default': 'orc', 'write.orc.compression-codec': 'lzo' }, 'Iceberg table db.t')).toThrow(
      'write.orc.compression-codec = lzo is not supported (no maintained LZO compressor exists for Node)',
    );
  });

  it("reads a manifest entry's file_format, refusing one it does not know", () => {
    expect(fileFormatOf('orc', 'f')).toBe('ORC');
    expect(fileFormatOf(undefined, 'f')).toBe('PARQUET');
    expect(() => fileFormatOf('PUFFIN', 's3://b/f.puffin')).toThrow('Iceberg file s3://b/f.puffin is PUFFIN');
  });
});

describe("Iceberg's Avro schema of a table", () => {
  it("makes Avro names by Iceberg's rule", () => {
    expect(avroName('plain_name1')).toBe('plain_name1');
    expect(avroName('c-1')).toBe('c_x2D1');
    expect(avroName('1st')).toBe('_1st');
    expect(avroName('a.b')).toBe('a_x2Eb');
  });

  it('puts field ids on fields, element, key and value ids, unions with null for optional fields, decimals as fixed defined once', () => {
    const schema = avroSchemaOf([
      { id: 1, name: 'id', required: true, type: 'long' },
      { id: 2, name: 'price', required: false, type: 'decimal(9, 2)' },
      { id: 3, name: 'old-price', required: false, type: 'decimal(9, 2)' },
      { id: 4, name: 'tags', required: false, type: { type: 'list', 'element-id': 6, element: 'string', 'element-required': true } },
      {
        id: 5,
        name: 'counts',
        required: false,
        type: { type: 'map', 'key-id': 7, key: 'int', 'value-id': 8, value: 'long', 'value-required': false },
      },
    ]);
    expect(schema).toEqual({
      type: 'record',
      name: 'table',
      fields: [
        { name: 'id', type: 'long', 'field-id': 1 },
        {
          name: 'price',
          type: ['null', { type: 'fixed', size: 4, logicalType: 'decimal', precision: 9, scale: 2, name: 'decimal_9_2' }],
          default: null,
          'field-id': 2,
        },
        { name: 'old_x2Dprice', type: ['null', 'decimal_9_2'], default: null, 'field-id': 3, 'iceberg-field-name': 'old-price' },
        { name: 'tags', type: ['null', { type: 'array', items: 'string', 'element-id': 6 }], default: null, 'field-id': 4 },
        {
          name: 'counts',
          type: [
            'null',
            {
              type: 'array',
              logicalType: 'map',
              items: {
                type: 'record',
                name: 'k7_v8',
                fields: [
                  { name: 'key', type: 'int', 'field-id': 7 },
                  { name: 'value', type: ['null', 'long'], default: null, 'field-id': 8 },
                ],
              },
            },
          ],
          default: null,
          'field-id': 5,
        },
      ],
    });
  });
});
