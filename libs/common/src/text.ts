/**
 * The text of a value for messages, keys and config strings. A string is itself; the other
 * primitives read as String() reads them; an array, or an object with no toString of its own
 * (where String() would give "[object Object]" or drop the brackets), as JSON with bigints as
 * digits and Maps as lists of [key, value] (a cyclic one as "[object Object]"); any other
 * object (Date, Buffer, Error, a class with toString) by its toString, as String() gives it.
 */
export function textOf(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
    case 'boolean':
    case 'symbol':
    case 'undefined':
      return String(v);
    case 'function':
      return `[function ${v.name}]`;
    case 'object': {
      if (v === null) return 'null';
      const toText = ownToString(v);
      return toText ? toText.call(v) : jsonText(v);
    }
  }
}

/** JSON of a plain object or array; a cyclic one (which JSON cannot write) as String() gives it. */
function jsonText(v: object): string {
  try {
    return JSON.stringify(v, jsonValue);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

function jsonValue(_key: string, x: unknown): unknown {
  if (typeof x === 'bigint') return x.toString();
  return x instanceof Map ? [...x] : x;
}

/** The object's toString (on it or its prototypes) when it is its own, not Object's or Array's. */
function ownToString(v: object): ((this: object) => string) | undefined {
  const toText: unknown = Reflect.get(v, 'toString');
  if (typeof toText !== 'function' || toText === Object.prototype.toString || toText === Array.prototype.toString) return undefined;
  return toText as (this: object) => string;
}
