import type { OptionDef } from '@tideway/api';

/** The outcome of reading one option value: the typed value, or why it does not fit. */
export type Coerced = { ok: true; value: unknown } | { ok: false; reason: string };

const INT32 = [-2147483648, 2147483647] as const;
const JAVA_INT = /^[+-]?\d+$/;
const JAVA_DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/;

/** A value as a person wrote it, for messages. */
export function showValue(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Converts a config value to the option's type the way SeaTunnel's ReadonlyConfig does
 * (ConfigUtil.convertValue): numeric strings become numbers, "true"/"false" (any case) become
 * booleans, numbers and booleans become strings for string options, enum values match case-
 * insensitively. Unlike SeaTunnel, a fraction for an integer option and an object or list for a
 * string option are errors rather than silently truncated or turned into JSON text.
 */
export function coerceOption(def: OptionDef, value: unknown): Coerced {
  const fail = (expected: string): Coerced => ({ ok: false, reason: `${showValue(value)} is not ${expected}` });
  switch (def.type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
      return fail('a string');
    case 'int':
    case 'long': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && JAVA_INT.test(value) ? Number(value) : NaN;
      const expected = def.type === 'int' ? 'an integer (int)' : 'an integer (long)';
      if (!Number.isInteger(n)) return fail(expected);
      if (def.type === 'int' && (n < INT32[0] || n > INT32[1])) return fail('an integer within the int range');
      if (def.type === 'long' && !Number.isSafeInteger(n)) return fail('an integer within ±2^53');
      return { ok: true, value: n };
    }
    case 'double': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && JAVA_DOUBLE.test(value.trim()) ? Number.parseFloat(value) : NaN;
      return Number.isFinite(n) ? { ok: true, value: n } : fail('a number');
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return { ok: true, value: value.toLowerCase() === 'true' };
      return fail('a boolean (true or false)');
    case 'enum': {
      const values = def.values ?? [];
      if (typeof value === 'string' || typeof value === 'number') {
        const match = values.find((v) => v.toUpperCase() === String(value).toUpperCase());
        if (match !== undefined) return { ok: true, value: match };
      }
      return fail(`one of ${values.join(', ')}`);
    }
    case 'list':
      return coerceList(def, value);
    case 'object':
      return isPlainObject(value) ? { ok: true, value } : fail('an object ({ ... })');
    case 'object-list':
      return Array.isArray(value) && value.every(isPlainObject) ? { ok: true, value } : fail('a list of objects ([{ ... }, ...])');
    case 'map': {
      if (!isPlainObject(value)) return fail('a map ({ key = value, ... })');
      const out: Record<string, string> = {};
      const bad = flattenMap(value, '', out);
      return bad === undefined
        ? { ok: true, value: out }
        : { ok: false, reason: `the entry '${bad}' of ${showValue(value)} is not a single value` };
    }
    case 'any':
      return { ok: true, value };
  }
}

/**
 * A map option is Map<String, String> in SeaTunnel: values become strings, and a dotted key
 * written unquoted (`a.b = c`, which HOCON nests) is read back as the key `a.b`.
 */
function flattenMap(obj: Record<string, unknown>, prefix: string, out: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isPlainObject(v)) {
      const bad = flattenMap(v, key, out);
      if (bad !== undefined) return bad;
    } else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[key] = String(v);
    else if (v === null) out[key] = 'null';
    else return key;
  }
  return undefined;
}

/**
 * A list option takes a list, a JSON list in a string, or a comma-separated string (SeaTunnel
 * splits on ',' and trims, warning that a list is preferred); a bracketed "[a,b]" string loses
 * its brackets. A single scalar is a list of one. Elements convert to `elementType`.
 */
function coerceList(def: OptionDef, value: unknown): Coerced {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') items = splitListText(value);
  else if (typeof value === 'number' || typeof value === 'boolean') items = [value];
  else return { ok: false, reason: `${showValue(value)} is not a list` };
  const element: OptionDef = { name: def.name, description: '', type: def.elementType ?? 'string' };
  const out: unknown[] = [];
  for (let i = 0; i < items.length; i++) {
    const r = coerceOption(element, items[i]);
    if (!r.ok) return { ok: false, reason: `item ${i + 1} of ${showValue(value)}: ${r.reason}` };
    out.push(r.value);
  }
  return { ok: true, value: out };
}

function splitListText(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: fall through to splitting
    }
  }
  const inner = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  if (inner.trim() === '') return [];
  return inner.split(',').map((s) => s.trim());
}
