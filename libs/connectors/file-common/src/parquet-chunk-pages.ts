import type { DecodedArray, Encoding, PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { convert } from 'hyparquet/src/convert.js';
import { decompressPage } from 'hyparquet/src/datapage.js';
import { readPlain } from 'hyparquet/src/plain.js';
import type { ColumnDecoder } from './parquet-flat-reader.js';

/** A data page of a column chunk: its header, encoding and bytes as stored (compressed). */
export interface StoredDataPage {
  readonly header: PageHeader;
  readonly encoding: Encoding;
  readonly compressed: Uint8Array;
}

/**
 * The pages of one column chunk in order, for the page readers (parquet-flat-reader.ts,
 * parquet-leveled-pages.ts): dictionary pages are decoded on the way (`dictionary`), index pages
 * passed over, and data pages handed over undecoded, with hyparquet's header parser.
 */
export class ChunkPages {
  /** The chunk's dictionary, once its dictionary page is read. */
  dictionary: DecodedArray | undefined;
  private readonly view: DataView;
  private offset = 0;

  constructor(
    bytes: Uint8Array,
    private readonly decoder: ColumnDecoder,
    private readonly where: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The next data page; fails, naming the column, when the chunk has none left or a dictionary page is missing. */
  nextData(): StoredDataPage {
    const d = this.decoder;
    const reader = { view: this.view, offset: this.offset };
    for (;;) {
      if (reader.offset >= this.view.byteLength) {
        throw new Error(`${this.where}: the column chunk ended before its row group's rows did (a truncated or corrupt file)`);
      }
      const header = parquetHeader(reader);
      const compressed = new Uint8Array(this.view.buffer, this.view.byteOffset + reader.offset, header.compressed_page_size);
      reader.offset += header.compressed_page_size;
      this.offset = reader.offset;
      if (header.type === 'DICTIONARY_PAGE') {
        const page = this.decompress(compressed, header);
        const plain = readPlain(
          { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 },
          d.type,
          header.dictionary_page_header!.num_values,
          d.element.type_length,
        );
        this.dictionary = convert(plain, d);
      } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
        const encoding = (header.data_page_header ?? header.data_page_header_v2!).encoding;
        if (encoding.endsWith('_DICTIONARY') && this.dictionary === undefined) {
          throw new Error(`${this.where}: a dictionary-encoded page with no dictionary page before it (a corrupt file)`);
        }
        return { header, encoding, compressed };
      }
      // index pages and others hold no values
    }
  }

  /**
   * `decode()`'s result; its failure named by the column's place and called a corrupt file
   * (hyparquet's decoders fail without saying where: an offset outside a DataView, say).
   */
  decoding<T>(decode: () => T): T {
    try {
      return decode();
    } catch (e) {
      const message = (e as Error).message;
      if (message.startsWith(this.where)) throw e;
      throw new Error(`${this.where}: a data page could not be decoded (a corrupt file): ${message}`, { cause: e });
    }
  }

  /** A page's bytes decompressed (a v1 page's whole body, or a v2 page's values). */
  decompress(compressed: Uint8Array, header: PageHeader, size = Number(header.uncompressed_page_size)): Uint8Array {
    return decompressPage(compressed, size, this.decoder.codec, this.decoder.compressors);
  }
}
