import type { Row } from '@tideway/api';
import type { TaskGroupMetrics } from './descriptor.js';

/**
 * Approximate serialized size of a row's fields, as SeaTunnel's SeaTunnelRow#getBytesSize
 * does: fixed widths for numbers, length for strings and bytes, recursion for containers.
 */
export function rowBytes(fields: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < fields.length; i++) n += valueBytes(fields[i]);
  return n;
}

function valueBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length;
    case 'number':
      return 8;
    case 'bigint':
      return 8;
    case 'boolean':
      return 1;
    case 'object':
      if (v === null) return 0;
      if (v instanceof Uint8Array) return v.byteLength;
      if (Array.isArray(v)) return rowBytes(v);
      if (v instanceof Map) {
        let n = 0;
        for (const [k, x] of v) n += valueBytes(k) + valueBytes(x);
        return n;
      }
      return 0;
    default:
      return 0;
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

  private table(id: string): TableCounters {
    let t = this.tables.get(id);
    if (!t) {
      t = { sourceReceivedCount: 0, sinkWriteCount: 0, sourceReceivedBytes: 0, sinkWriteBytes: 0 };
      this.tables.set(id, t);
    }
    return t;
  }

  /** Counts rows a source emitted. Consecutive rows of one table are counted together. */
  countSource(rows: readonly Row[]): void {
    this.count(rows, true);
  }

  countSink(rows: readonly Row[]): void {
    this.count(rows, false);
  }

  private count(rows: readonly Row[], source: boolean): void {
    let current: TableCounters | undefined;
    let currentId: string | undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (r.tableId !== currentId) {
        currentId = r.tableId;
        current = this.table(currentId);
      }
      const bytes = rowBytes(r.fields);
      if (source) {
        current!.sourceReceivedCount++;
        current!.sourceReceivedBytes += bytes;
      } else {
        current!.sinkWriteCount++;
        current!.sinkWriteBytes += bytes;
      }
    }
  }

  snapshot(): TaskGroupMetrics {
    return { tables: [...this.tables].map(([table, c]) => ({ table, ...c })) };
  }
}
