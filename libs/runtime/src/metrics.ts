import { rowBytes, type CatalogTable, type DataType, type Row } from '@tideway/api';

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

function typedValueBytes(type: DataType, v: unknown): number {
  if (v === null || v === undefined) return 0;
  switch (type.kind) {
    case 'string':
      return typeof v === 'string' ? v.length : 0;
    case 'boolean':
    case 'tinyint':
      return 1;
    case 'smallint':
      return 2;
    case 'int':
    case 'float':
      return 4;
    case 'bigint':
    case 'double':
      return 8;
    case 'decimal':
      return 36;
    case 'null':
      return 0;
    case 'bytes':
      return v instanceof Uint8Array ? v.byteLength : 0;
    case 'date':
      return 24;
    case 'time':
      return 12;
    case 'timestamp':
    case 'timestamp_tz':
      return 48;
    case 'array': {
      if (!Array.isArray(v)) return 0;
      let n = 0;
      for (const x of v) n += typedValueBytes(type.element, x);
      return n;
    }
    case 'map': {
      if (!(v instanceof Map)) return 0;
      let n = 0;
      for (const [k, x] of v) n += typedValueBytes(type.key, k) + typedValueBytes(type.value, x);
      return n;
    }
    case 'row': {
      if (!Array.isArray(v)) return 0;
      let n = 0;
      for (let i = 0; i < type.fields.length && i < v.length; i++) n += typedValueBytes(type.fields[i].type, v[i]);
      return n;
    }
  }
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
    t.sinkWriteBytes -= sizer ? sizer.bytes(row.fields) : rowBytes(row.fields);
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
      const bytes = sizer ? sizer.bytes(r.fields) : rowBytes(r.fields);
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
