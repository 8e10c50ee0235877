import { isEncodedRow, rowBytes, typedValueBytes, type CatalogTable, type DataType, type Row } from '@tideway/api';

export { rowBytes };
import type { TaskGroupMetrics } from './descriptor.js';

/**
 * Bytes of a row as SeaTunnel's SeaTunnelRow#getBytesSize(rowType) counts them, by declared
 * type: 1 for boolean/tinyint, 2 smallint, 4 int/float, 8 bigint/double, 36 decimal, 24 date,
 * 12 time, 48 timestamp, the length of strings and bytes, the sum over arrays, maps and rows.
 */
export function rowBytesOf(types: readonly DataType[], fields: readonly unknown[]): number {
  return new RowSizer(types).bytes(fields);
}

/** Column sizes for RowSizer: a byte count, or how to measure the value. */
const MEASURE_STRING = -1;
const MEASURE_BYTES = -2;
const MEASURE_NESTED = -3;

/**
 * rowBytesOf for one schema, prepared once: fixed-size columns add their size from a table, so
 * only strings, bytes and containers are looked at (counting runs for every row twice, at the
 * source and at each sink).
 */
export class RowSizer {
  private readonly sizes: Int32Array;

  constructor(private readonly types: readonly DataType[]) {
    this.sizes = Int32Array.from(types, (t) => {
      switch (t.kind) {
        case 'string':
          return MEASURE_STRING;
        case 'bytes':
          return MEASURE_BYTES;
        case 'array':
        case 'map':
        case 'row':
          return MEASURE_NESTED;
        default:
          // A fixed-size type: any non-null value gives its size.
          return typedValueBytes(t, 0);
      }
    });
  }

  bytes(fields: readonly unknown[]): number {
    const sizes = this.sizes;
    const count = Math.min(sizes.length, fields.length);
    let n = 0;
    for (let i = 0; i < count; i++) {
      const v = fields[i];
      if (v === null || v === undefined) continue;
      const size = sizes[i];
      if (size >= 0) n += size;
      else if (size === MEASURE_STRING) n += typeof v === 'string' ? v.length : 0;
      else if (size === MEASURE_BYTES) n += v instanceof Uint8Array ? v.byteLength : 0;
      else n += typedValueBytes(this.types[i], v);
    }
    return n;
  }
}

interface TableCounters {
  sourceReceivedCount: number;
  sinkWriteCount: number;
  sourceReceivedBytes: number;
  sinkWriteBytes: number;
}

/** Per-table row and byte counters of one task group. */
export class TaskGroupCounters {
  private readonly tables = new Map<string, TableCounters>();
  /** Row sizers by table id, of the rows sources emit and of the rows sinks receive. */
  private readonly sourceTypes = new Map<string, RowSizer>();
  private readonly sinkTypes = new Map<string, RowSizer>();

  /** The schemas of the tables the source emits: their bytes are counted by declared type. */
  registerSourceTables(tables: readonly CatalogTable[]): void {
    for (const t of tables) this.sourceTypes.set(t.tableId, new RowSizer(t.columns.map((c) => c.type)));
  }

  /** The schemas of the tables a sink receives (after transforms, which may change them). */
  registerSinkTables(tables: readonly CatalogTable[]): void {
    for (const t of tables) this.sinkTypes.set(t.tableId, new RowSizer(t.columns.map((c) => c.type)));
  }

  private table(id: string): TableCounters {
    let t = this.tables.get(id);
    if (!t) {
      t = { sourceReceivedCount: 0, sinkWriteCount: 0, sourceReceivedBytes: 0, sinkWriteBytes: 0 };
      this.tables.set(id, t);
    }
    return t;
  }

  /** Counts rows a source emitted; returns their bytes. Consecutive rows of one table are counted together. */
  countSource(rows: readonly Row[]): number {
    return this.count(rows, true);
  }

  countSink(rows: readonly Row[]): number {
    return this.count(rows, false);
  }

  /** A row a sink counted and then refused (env.sink_error_handler): it was not written. */
  uncountSink(row: Row): void {
    const t = this.table(row.tableId);
    const sizer = this.sinkTypes.get(row.tableId);
    t.sinkWriteCount--;
    t.sinkWriteBytes -= isEncodedRow(row) ? row.byteSize : sizer ? sizer.bytes(row.fields) : rowBytes(row.fields);
  }

  private count(rows: readonly Row[], source: boolean): number {
    let total = 0;
    let current: TableCounters | undefined;
    let currentId: string | undefined;
    let sizer: RowSizer | undefined;
    const schemas = source ? this.sourceTypes : this.sinkTypes;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (r.tableId !== currentId) {
        currentId = r.tableId;
        current = this.table(currentId);
        sizer = schemas.get(currentId);
      }
      // An encoded row knows its size: reading its fields would decode it (RowEncodingOffer).
      const bytes = isEncodedRow(r) ? r.byteSize : sizer ? sizer.bytes(r.fields) : rowBytes(r.fields);
      total += bytes;
      if (source) {
        current!.sourceReceivedCount++;
        current!.sourceReceivedBytes += bytes;
      } else {
        current!.sinkWriteCount++;
        current!.sinkWriteBytes += bytes;
      }
    }
    return total;
  }

  snapshot(): TaskGroupMetrics {
    return { tables: [...this.tables].map(([table, c]) => ({ table, ...c })) };
  }
}
