import type { DataType, Row, RowKind } from '@tideway/api';
import { ConfigValueError, convertConfigValue, RowKind as Kinds } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { FakeTableConfig } from './fake-config.js';
import { currentDate, currentTime, currentTimestamp } from './current-time.js';
import type { ValueGenerator } from './value-generators.js';
import { columnGenerator } from './value-generators.js';

interface ExplicitRow {
  readonly kind: RowKind;
  readonly fields: readonly unknown[];
  /** Top-level fields written as CURRENT_DATE/CURRENT_TIME/CURRENT_TIMESTAMP: filled at emission. */
  readonly now: readonly { index: number; value: () => string }[];
}

/** SeaTunnel matches CURRENT_TIME case-sensitively and the other two case-insensitively. */
function nowFor(type: DataType, raw: unknown): (() => string) | undefined {
  if (typeof raw !== 'string') return undefined;
  if (type.kind === 'time' && raw === 'CURRENT_TIME') return currentTime;
  if (type.kind === 'date' && raw.toUpperCase() === 'CURRENT_DATE') return currentDate;
  if (type.kind === 'timestamp' && raw.toUpperCase() === 'CURRENT_TIMESTAMP') return currentTimestamp;
  return undefined;
}

function copyValue(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

/**
 * Produces the rows of one FakeSource table: its explicit `rows` (every split emits all of
 * them, as in SeaTunnel) or random rows from per-column generators compiled once.
 */
export class RowProducer {
  readonly tableId: string;
  private readonly generators: readonly ValueGenerator[];
  private readonly explicit?: readonly ExplicitRow[];

  constructor(cfg: FakeTableConfig) {
    this.tableId = cfg.table.tableId;
    const cols = cfg.table.columns;
    this.generators = cols.map((c, i) => columnGenerator(c, cfg.extras[i] ?? {}, cfg));
    if (cfg.rows) {
      const rowType: DataType = { kind: 'row', fields: cols.map((c) => ({ name: c.name, type: c.type })) };
      this.explicit = cfg.rows.map((spec, r) => {
        const raw = spec.fields;
        const rawAt = (i: number): unknown =>
          Array.isArray(raw)
            ? raw[i]
            : typeof raw === 'object' && raw !== null
              ? (raw as Record<string, unknown>)[cols[i].name]
              : undefined;
        const now: { index: number; value: () => string }[] = [];
        cols.forEach((c, i) => {
          const value = nowFor(c.type, rawAt(i));
          if (value) now.push({ index: i, value });
        });
        // Placeholders keep conversion from rejecting the CURRENT_* words.
        const patched: unknown = Array.isArray(raw) ? raw.slice() : raw;
        if (Array.isArray(patched)) for (const n of now) patched[n.index] = null;
        else if (typeof patched === 'object' && patched !== null)
          for (const n of now) (patched as Record<string, unknown>)[cols[n.index].name] = null;
        try {
          const fields = convertConfigValue(patched, rowType, `rows[${r}].fields`) as unknown[];
          return { kind: spec.kind, fields, now };
        } catch (err) {
          if (err instanceof ConfigValueError)
            throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `FakeSource table ${this.tableId}: ${err.message}`, {
              place: { option: 'rows' },
            });
          throw err;
        }
      });
    }
  }

  /** How many rows a split of `splitRowNum` rows emits (all explicit rows when `rows` is set). */
  rowsInSplit(splitRowNum: number): number {
    return this.explicit ? this.explicit.length : splitRowNum;
  }

  /** Rows `from` .. `from + n - 1` of a split, appended to `out`. */
  produce(from: number, n: number, out: Row[]): void {
    const tableId = this.tableId;
    if (this.explicit) {
      for (let r = from; r < from + n; r++) {
        const e = this.explicit[r];
        const fields = e.fields.map(copyValue);
        for (const x of e.now) fields[x.index] = x.value();
        out.push({ kind: e.kind, tableId, fields });
      }
      return;
    }
    const gens = this.generators;
    const width = gens.length;
    for (let r = 0; r < n; r++) {
      const fields = new Array<unknown>(width);
      for (let c = 0; c < width; c++) fields[c] = gens[c]();
      out.push({ kind: Kinds.INSERT, tableId, fields });
    }
  }
}
