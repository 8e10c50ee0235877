import { textOf } from '@tideway/common';
import type { CatalogTable, Row, SinkWriter } from '@tideway/api';
import { rowKindName } from '@tideway/api';
import { fieldFormatter } from './field-format.js';

/** Where the lines go: process.stdout, or a test's recorder. */
export interface TextOutput {
  write(text: string): unknown;
}

type RowFormatter = (fields: readonly unknown[]) => string;

function rowFormatter(table: CatalogTable): RowFormatter {
  const fs = table.columns.map((c) => fieldFormatter(c.type));
  const n = fs.length;
  // SeaTunnel joins with commons-lang StringUtils.join, which shows a null field as nothing.
  return (fields) => {
    let s = '';
    for (let i = 0; i < n; i++) s += (i > 0 ? ', ' : '') + (fs[i](fields[i]) ?? '');
    return s;
  };
}

/** A row whose table the sink was not told about: plain String() of each field. */
/**
 * A UTF-16 half of a character without its other half (a string cut between them, as SUBSTRING
 * can): Java's UTF-8 encoder, and so SeaTunnel's log, writes it as '?', where Node's writes U+FFFD.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, 'g');

const untyped: RowFormatter = (fields) => fields.map((v) => (v === null || v === undefined ? '' : textOf(v))).join(', ');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Prints each row as SeaTunnel's ConsoleSinkWriter logs it:
 * `subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=t SeaTunnelRow#kind=INSERT : 1, A`.
 * rowIndex counts printed rows per writer. One write per batch; with `log.print.delay.ms`
 * each row is written and followed by the delay, as SeaTunnel sleeps after every row.
 */
export class ConsoleSinkWriter implements SinkWriter<void, never> {
  private readonly formatters = new Map<string, RowFormatter>();
  private readonly single?: RowFormatter;
  private rowIndex = 0;

  constructor(
    private readonly subtaskIndex: number,
    tables: readonly CatalogTable[],
    private readonly printData: boolean,
    private readonly delayMs: number,
    private readonly out: TextOutput = process.stdout,
  ) {
    for (const t of tables) this.formatters.set(t.tableId, rowFormatter(t));
    if (tables.length === 1) this.single = this.formatters.get(tables[0].tableId);
  }

  private line(row: Row): string {
    const format = this.formatters.get(row.tableId) ?? this.single ?? untyped;
    const fields = format(row.fields);
    return `subtaskIndex=${this.subtaskIndex}  rowIndex=${++this.rowIndex}:  SeaTunnelRow#tableId=${row.tableId} SeaTunnelRow#kind=${rowKindName(row.kind)} : ${LONE_SURROGATE.test(fields) ? fields.replace(LONE_SURROGATE_ALL, '?') : fields}\n`;
  }

  write(rows: readonly Row[]): Promise<void> | void {
    if (this.delayMs > 0) return this.writeSlowly(rows);
    if (!this.printData || rows.length === 0) return;
    let text = '';
    for (const row of rows) text += this.line(row);
    this.out.write(text);
  }

  private async writeSlowly(rows: readonly Row[]): Promise<void> {
    for (const row of rows) {
      if (this.printData) this.out.write(this.line(row));
      await sleep(this.delayMs);
    }
  }

  close(): void {}
}
