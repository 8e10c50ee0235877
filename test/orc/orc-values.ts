import { type Column, type DataType, Types } from '@tideway/api';

/**
 * Random ORC tables for the interop tests (seeded, so a failure repeats) and the canonical form
 * of their values that test/orc/orc_peer.py makes of pyarrow's (integers and decimals as strings,
 * bytes as hex, timestamps as nanoseconds since 1970, maps as [key, value] pairs).
 */

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nanoseconds since 1970 of a Tideway timestamp text (with an offset for timestamp_tz). */
function timestampNanos(text: string): string {
  const m = /^(.{10})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?(.*)$/.exec(text);
  if (!m) throw new Error(`not a timestamp: ${text}`);
  const secs = BigInt(Date.parse(`${m[1]}T${m[2]}${m[4] || 'Z'}`) / 1000);
  return String(secs * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0')));
}

/** The canonical form of a Tideway value of `type`. */
export function canon(v: unknown, type: DataType): unknown {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return (v as number | bigint).toString();
    case 'float':
    case 'double':
      return Number.isFinite(v) ? v : (v as number).toString();
    case 'bytes':
      return Buffer.from(v as Uint8Array).toString('hex');
    case 'timestamp':
    case 'timestamp_tz':
      return timestampNanos(v as string);
    case 'array':
      return (v as unknown[]).map((x) => canon(x, type.element));
    case 'map':
      return [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [canon(k, type.key), canon(x, type.value)]);
    case 'row':
      return type.fields.map((f, i) => canon((v as unknown[])[i], f.type));
    default:
      return v;
  }
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** A random value of `type` (nulls at `nullRate`, now and then a very long string). */
export function randomValue(type: DataType, r: () => number, nullRate: number, depth = 0): unknown {
  if (r() < nullRate) return null;
  const int = (bits: number): number => Math.floor(r() * 2 ** bits) - 2 ** (bits - 1);
  switch (type.kind) {
    case 'boolean':
      return r() < 0.5;
    case 'tinyint':
      return int(8);
    case 'smallint':
      return int(16);
    case 'int':
      return r() < 0.3 ? Math.floor(r() * 100) : int(32);
    case 'bigint': {
      const k = r();
      if (k < 0.3) return BigInt(Math.floor(r() * 1000));
      if (k < 0.6) return BigInt(int(40));
      return BigInt.asIntN(64, (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32)));
    }
    case 'float':
      return Math.fround((r() - 0.5) * 10 ** Math.floor(r() * 10));
    case 'double':
      return r() < 0.05 ? Number.NaN : (r() - 0.5) * 10 ** Math.floor(r() * 20 - 5);
    case 'string': {
      const k = r();
      if (k < 0.02) return 'x'.repeat(100_000 + Math.floor(r() * 50_000));
      if (k < 0.5) return `v${Math.floor(r() * 20)}`;
      const n = Math.floor(r() * 30);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCodePoint(r() < 0.9 ? 32 + Math.floor(r() * 95) : 0x4e00 + Math.floor(r() * 500));
      return s;
    }
    case 'bytes':
      return Buffer.from(Array.from({ length: Math.floor(r() * 20) }, () => Math.floor(r() * 256)));
    case 'decimal': {
      const digits = Math.max(1, Math.floor(r() * type.precision));
      let s = '';
      for (let i = 0; i < digits; i++) s += String(Math.floor(r() * 10));
      const unscaled = BigInt(s) * (r() < 0.5 ? -1n : 1n);
      const neg = unscaled < 0n;
      const body = (neg ? -unscaled : unscaled).toString().padStart(type.scale + 1, '0');
      const text = type.scale === 0 ? body : `${body.slice(0, -type.scale)}.${body.slice(-type.scale)}`;
      return neg && unscaled !== 0n ? `-${text}` : text;
    }
    case 'date': {
      const days = Math.floor(r() * 2_900_000) - 700_000; // 0053 to 9766
      return new Date(days * 86_400_000).toISOString().slice(0, 10);
    }
    case 'timestamp': {
      // 1700 to 2250 (pyarrow reads timestamps in int64 nanoseconds)
      const secs = Math.floor(r() * 17_000_000_000) - 8_500_000_000;
      const d = new Date(secs * 1000);
      const ns = r() < 0.3 ? 0 : r() < 0.5 ? Math.floor(r() * 1000) * 1_000_000 : Math.floor(r() * 1e9);
      const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
      return ns === 0 ? base : `${base}.${pad(ns, 9).replace(/0+$/, '')}`;
    }
    case 'array':
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(type.element, r, nullRate, depth + 1));
    case 'map': {
      const m = new Map<unknown, unknown>();
      const n = Math.floor(r() * 4);
      for (let i = 0; i < n; i++) m.set(`k${i}`, randomValue(type.value, r, nullRate, depth + 1));
      return m;
    }
    case 'row':
      return type.fields.map((f) => randomValue(f.type, r, nullRate, depth + 1));
    default:
      throw new Error(`no random ${type.kind}`);
  }
}

const FLAT: DataType[] = [
  Types.BOOLEAN,
  Types.TINYINT,
  Types.SMALLINT,
  Types.INT,
  Types.BIGINT,
  Types.FLOAT,
  Types.DOUBLE,
  Types.STRING,
  Types.BYTES,
  Types.DATE,
  Types.TIMESTAMP,
  Types.decimal(10, 2),
  Types.decimal(38, 18),
  Types.decimal(18, 0),
];

/** A random type: flat mostly, nested (map keys are strings) some of the time. */
export function randomType(r: () => number, depth = 0): DataType {
  const k = r();
  if (depth < 2 && k < 0.1) return Types.array(randomType(r, depth + 1));
  if (depth < 2 && k < 0.18) return Types.map(Types.STRING, randomType(r, depth + 1));
  if (depth < 2 && k < 0.26)
    return Types.row(Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => ({ name: `f${i}`, type: randomType(r, depth + 1) })));
  return FLAT[Math.floor(r() * FLAT.length)];
}

export function randomColumns(r: () => number, n: number): Column[] {
  return Array.from({ length: n }, (_, i) => ({ name: `c${i}`, type: randomType(r), nullable: true }));
}
