/** The orders rows of shared/bench/orders-postgres.sql's formulas, as Tideway holds them: bench/parquet.ts. */
import { createHash } from 'node:crypto';

const STATUS = ['new', 'paid', 'shipped', 'delivered', 'cancelled'];
const REGION = ['north', 'south', 'east', 'west', 'central'];
const BASE = Date.UTC(2024, 0, 1);
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * `s` as a sequential (flat) string, as a source that decodes bytes hands its strings over (the
 * pg driver, the file readers and the Parquet reader all make them with Buffer#toString or
 * TextDecoder). A string built by concatenation here is a rope, which every reader of it would
 * first flatten: a copy and an allocation no real source's rows make the sink pay.
 */
const flat = (s: string): string => Buffer.from(s, 'latin1').toString('latin1');

/** Row g of orders as Tideway holds it (bigint, decimal text, timestamp text, ...), its strings flat as a source's. */
export function orderRow(g: number): unknown[] {
  const micros = g % 1_000_000;
  const d = new Date(BASE + (g % 31_536_000) * 1000 + Math.floor(micros / 1000));
  const ts = `${d.toISOString().slice(0, 19)}.${pad(d.getUTCMilliseconds() * 1000 + (micros % 1000), 6)}`;
  const amount = (g * 37) % 100_000;
  const md5 = createHash('md5').update(String(g)).digest('hex');
  return [
    BigInt(g),
    (g * 7919) % 100_000,
    STATUS[g % 5],
    flat(`product-${g % 5000}`),
    REGION[Math.floor(g / 7) % 5],
    flat(`${Math.floor(amount / 100)}.${pad(amount % 100)}`),
    ((g * 13) % 10_000) / 7,
    g % 3 !== 0,
    flat(ts),
    g % 10 === 0 ? null : new Date(BASE + (g % 365) * 86_400_000).toISOString().slice(0, 10),
    flat(md5 + md5 + md5),
    JSON.stringify({ sku: g % 1000, tags: ['a', g % 7] }),
  ];
}

export const COLUMNS: [string, string][] = [
  ['id', 'bigint'],
  ['customer_id', 'int'],
  ['status', 'string'],
  ['product', 'string'],
  ['region', 'string'],
  ['amount', 'decimal(12, 2)'],
  ['weight', 'double'],
  ['is_paid', 'boolean'],
  ['created_at', 'timestamp'],
  ['ship_date', 'date'],
  ['note', 'string'],
  ['attrs', 'string'],
];
