import type { DataType } from '@tideway/api';
import { parseLenientJson } from './lenient-json.js';

/** Reads a source field's value as a JSON document; the reader throws on unreadable JSON text. */
export type JsonSource = (value: unknown) => unknown;

const utf8 = new TextDecoder();

/** Tideway values inside containers, as the JSON SeaTunnel serializes them to (Maps as objects, bytes base64). */
function plainJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = plainJson(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(plainJson);
  return value;
}

/**
 * How a source field of this type becomes a JSON document, after SeaTunnel: string and bytes
 * (UTF-8) hold JSON text; array, map and row values are the document themselves (a row as the
 * array of its field values). Undefined for other types.
 */
export function jsonSource(type: DataType): JsonSource | undefined {
  switch (type.kind) {
    case 'string':
      return (v) => parseLenientJson(v as string);
    case 'bytes':
      return (v) => parseLenientJson(utf8.decode(v as Uint8Array));
    case 'array':
    case 'map':
    case 'row':
      return plainJson;
    default:
      return undefined;
  }
}
