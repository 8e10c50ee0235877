import type { DecodedArray } from 'hyparquet';
import { convertWithDictionary } from 'hyparquet/src/convert.js';
import { readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { getMaxDefinitionLevel, getMaxRepetitionLevel } from 'hyparquet/src/schema.js';
import { ChunkPages } from './parquet-chunk-pages.js';
import type { ColumnDecoder } from './parquet-flat-reader.js';

/**
 * One leaf column chunk of a nested column (a list, map or struct member) read entry by entry:
 * each entry is a (repetition level, definition level) pair and, when the definition level is the
 * leaf's maximum, a value. The nested reader (parquet-nested-reader.ts) assembles rows from the
 * entries of a column's leaves a batch of rows at a time; only the current page's levels and
 * values are alive (hyparquet's reader assembles a whole row group before handing any row over,
 * decision 0034). Pages are decoded and their values converted by hyparquet's modules.
 */
export class LeveledColumnPages {
  readonly maxDef: number;
  readonly maxRep: number;
  private readonly pages: ChunkPages;
  /** The current page's levels (empty: every entry at the maximum, or 0 for repetition), values, entries. */
  private defs: ArrayLike<number> = [];
  private reps: ArrayLike<number> = [];
  private values: DecodedArray = [];
  private entries = 0;
  /** The current entry of the page and its next present value. */
  private at = 0;
  private next = 0;
  /** Entries of the chunk in pages not read yet. */
  private unread: number;

  constructor(
    bytes: Uint8Array,
    private readonly decoder: ColumnDecoder,
    /** The chunk's entry count (its metadata's num_values). */
    entries: number,
    private readonly where: string,
  ) {
    this.pages = new ChunkPages(bytes, decoder, where);
    this.maxDef = getMaxDefinitionLevel(decoder.schemaPath);
    this.maxRep = getMaxRepetitionLevel(decoder.schemaPath);
    this.unread = entries;
  }

  /** Whether an entry is left in the chunk (reads the next page when the current one is done). */
  more(): boolean {
    while (this.at === this.entries) {
      if (this.unread === 0) return false;
      this.page();
    }
    return true;
  }

  /** The current entry's definition level. */
  def(): number {
    while (this.at === this.entries) this.page();
    return this.defs.length === 0 ? this.maxDef : this.defs[this.at];
  }

  /** The current entry's repetition level. */
  rep(): number {
    while (this.at === this.entries) this.page();
    return this.reps.length === 0 ? 0 : this.reps[this.at];
  }

  /** The current entry's value (null when its definition level is below the maximum), and moves on. */
  take(): unknown {
    const present = this.def() === this.maxDef;
    this.at++;
    return present ? this.values[this.next++] : null;
  }

  /** Moves past the current entry. */
  skip(): void {
    if (this.def() === this.maxDef) this.next++;
    this.at++;
  }

  /** Decodes the next data page. */
  private page(): void {
    const d = this.decoder;
    const { header, encoding, compressed } = this.pages.nextData();
    const v1 = header.data_page_header;
    const entries = v1 ? v1.num_values : header.data_page_header_v2!.num_values;
    this.pages.decoding(() => {
      const { definitionLevels, repetitionLevels, dataPage } = v1
        ? readDataPage(this.pages.decompress(compressed, header), v1, d)
        : readDataPageV2(compressed, header, d);
      this.defs = definitionLevels ?? [];
      this.reps = repetitionLevels ?? [];
      this.values = convertWithDictionary(dataPage, this.pages.dictionary, encoding, d);
    });
    if ((this.defs.length > 0 && this.defs.length !== entries) || (this.reps.length > 0 && this.reps.length !== entries)) {
      throw new Error(`${this.where}: a data page's levels do not match its ${entries} values (a corrupt file)`);
    }
    this.entries = entries;
    this.unread -= entries;
    this.at = 0;
    this.next = 0;
  }
}
