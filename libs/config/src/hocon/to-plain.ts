import { ErrorCode, TidewayError } from '@tideway/common';
import type { HValue } from './values.js';

/** JSON-like values as the rest of Tideway sees them. */
export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

export interface PlainWithLines {
  value: Plain;
  /** Line of every key below the converted value, keyed by dotted path (`row.num`). */
  lines: Record<string, number>;
}

/**
 * Converts a resolved value to plain JS, collecting key lines by dotted path. Plugin sections
 * become arrays of objects with `plugin_name`, the shape SeaTunnel's own parser produces.
 */
export function toPlain(v: HValue, prefix = '', lines: Record<string, number> = {}): PlainWithLines {
  return { value: convert(v, prefix, lines), lines };
}

function convert(v: HValue, prefix: string, lines: Record<string, number>): Plain {
  switch (v.kind) {
    case 'scalar':
      return v.value;
    case 'list':
      return v.items.map((item, i) => convert(item, `${prefix}${prefix ? '.' : ''}${i}`, {}));
    case 'object': {
      const out: { [key: string]: Plain } = {};
      for (const [key, field] of v.fields) {
        const path = prefix ? `${prefix}.${key}` : key;
        if (lines[path] === undefined) lines[path] = field.line;
        out[key] = convert(field.value, path, lines);
      }
      return out;
    }
    case 'plugins':
      return v.entries.map((e) => ({ plugin_name: e.name, ...(convert(e.value, '', {}) as object) }));
    default:
      throw new TidewayError(ErrorCode.INTERNAL, `unresolved ${v.kind} node reached toPlain`);
  }
}
