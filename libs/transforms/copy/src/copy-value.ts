import type { DataType } from '@tideway/api';

/**
 * A deep copy of a value of type `type`, so the copy and the original never share a mutable
 * object (bytes, arrays, maps, nested rows). Immutable values are returned as they are.
 */
export function copyValue(value: unknown, type: DataType): unknown {
  if (value === null || value === undefined) return value;
  switch (type.kind) {
    case 'bytes':
      return (value as Uint8Array).slice();
    case 'array': {
      const from = value as unknown[];
      const out = new Array<unknown>(from.length);
      for (let i = 0; i < from.length; i++) out[i] = copyValue(from[i], type.element);
      return out;
    }
    case 'map': {
      const out = new Map<unknown, unknown>();
      for (const [k, v] of value as Map<unknown, unknown>) out.set(copyValue(k, type.key), copyValue(v, type.value));
      return out;
    }
    case 'row': {
      const from = value as unknown[];
      const out = new Array<unknown>(from.length);
      for (let i = 0; i < from.length; i++) out[i] = copyValue(from[i], type.fields[i]?.type ?? { kind: 'string' });
      return out;
    }
    default:
      return value;
  }
}

/** Whether values of this type are mutable objects that a copy must not share. */
export function needsDeepCopy(type: DataType): boolean {
  return type.kind === 'bytes' || type.kind === 'array' || type.kind === 'map' || type.kind === 'row';
}
