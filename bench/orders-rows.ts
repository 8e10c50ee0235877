/**
 * The orders rows of shared/bench/orders-postgres.sql's formulas, as Tideway holds them
 * (bench/parquet.ts): as Tideway's PostgreSQL source hands them (`copyRows`), and as this bench
 * made them itself until 2026-12-04 (`orderRow`).
 */
import { createHash } from 'node:crypto';
import { CopyTextRowParser, pgColumnReading, type PgTypeInfo } from '@tideway/connector-jdbc';

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

/** Row g's amount, numeric(12,2) text. */
const amountOf = (g: number): string => {
  const cents = (g * 37) % 100_000;
  return `${Math.floor(cents / 100)}.${pad(cents % 100)}`;
};
/** Row g's note: its md5, three times. */
const noteOf = (g: number): string => {
  const md5 = createHash('md5').update(String(g)).digest('hex');
  return md5 + md5 + md5;
};
/** Row g's ship date, 'YYYY-MM-DD', or null for every tenth row. */
const shipDateOf = (g: number): string | null => (g % 10 === 0 ? null : new Date(BASE + (g % 365) * 86_400_000).toISOString().slice(0, 10));

/**
 * Row g of orders as Tideway holds it (bigint, decimal text, timestamp text, ...), each string
 * made on its own and flat. This was the bench's model of a source's rows until 2026-12-04;
 * `copyRows` is what the source for this data, PostgreSQL's, really hands over.
 */
export function orderRow(g: number): unknown[] {
  const micros = g % 1_000_000;
  const d = new Date(BASE + (g % 31_536_000) * 1000 + Math.floor(micros / 1000));
  const ts = `${d.toISOString().slice(0, 19)}.${pad(d.getUTCMilliseconds() * 1000 + (micros % 1000), 6)}`;
  return [
    BigInt(g),
    (g * 7919) % 100_000,
    STATUS[g % 5],
    flat(`product-${g % 5000}`),
    REGION[Math.floor(g / 7) % 5],
    flat(amountOf(g)),
    ((g * 13) % 10_000) / 7,
    g % 3 !== 0,
    flat(ts),
    shipDateOf(g),
    flat(noteOf(g)),
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

/** The orders table's columns as PostgreSQL describes them (orders-postgres.sql): pg_type's row and the typmod. */
export const ORDERS_PG_COLUMNS: readonly { readonly name: string; readonly type: PgTypeInfo; readonly typmod: number }[] = (
  [
    ['id', 20, 'int8', 'N', -1],
    ['customer_id', 23, 'int4', 'N', -1],
    ['status', 1043, 'varchar', 'S', 68],
    ['product', 1043, 'varchar', 'S', 68],
    ['region', 1043, 'varchar', 'S', 68],
    ['amount', 1700, 'numeric', 'N', ((12 << 16) | 2) + 4],
    ['weight', 701, 'float8', 'N', -1],
    ['is_paid', 16, 'bool', 'B', -1],
    ['created_at', 1114, 'timestamp', 'D', -1],
    ['ship_date', 1082, 'date', 'D', -1],
    ['note', 25, 'text', 'S', -1],
    ['attrs', 3802, 'jsonb', 'U', -1],
  ] as const
).map(([name, oid, typname, category, typmod]) => ({
  name,
  type: { oid, name: typname, typtype: 'b', category, elem: 0, baseType: 0 },
  typmod,
}));

/**
 * Row g of orders as PostgreSQL 15's `COPY orders TO STDOUT` prints it (text format, a tab
 * between fields, \N for NULL), newline included: timestamps with a space for the T and the
 * fraction's trailing zeros cut, jsonb with a space after each colon and comma.
 * test/jdbc/bench-orders-rows.test.ts holds it to a real server's output.
 */
export function orderCopyLine(g: number): string {
  const micros = g % 1_000_000;
  const at = new Date(BASE + (g % 31_536_000) * 1000).toISOString();
  const ts = `${at.slice(0, 10)} ${at.slice(11, 19)}${micros === 0 ? '' : `.${pad(micros, 6).replace(/0+$/, '')}`}`;
  return `${g}\t${(g * 7919) % 100_000}\t${STATUS[g % 5]}\tproduct-${g % 5000}\t${REGION[Math.floor(g / 7) % 5]}\t${amountOf(g)}\t${((g * 13) % 10_000) / 7}\t${g % 3 !== 0 ? 't' : 'f'}\t${ts}\t${shipDateOf(g) ?? '\\N'}\t${noteOf(g)}\t{"sku": ${g % 1000}, "tags": ["a", ${g % 7}]}\n`;
}

/** The bytes of a socket read: what the PostgreSQL source decodes to one string and parses at a time (pg-copy-reader.ts). */
const SOCKET_READ = 65536;

let copyParser: CopyTextRowParser | undefined;
const copyText = Buffer.allocUnsafe(2 * SOCKET_READ);

/**
 * Rows g .. g + n - 1 of orders exactly as Tideway's PostgreSQL source hands them: PostgreSQL's
 * COPY text (`orderCopyLine`), a socket read's worth at a time decoded to one string and split by
 * the source's own parser (CopyTextRowParser) with the decoders it picks for these column types
 * (pgColumnReading). So the strings are what that source makes (slices of one decoded string,
 * timestamps joined with a T), not strings each made on its own; only the socket is left out.
 */
export function copyRows(g: number, n: number): unknown[][] {
  copyParser ??= new CopyTextRowParser(
    ORDERS_PG_COLUMNS.map((c) => pgColumnReading(c.type.oid, c.typmod, new Map([[c.type.oid, c.type]])).decode),
  );
  const rows: unknown[][] = [];
  let len = 0;
  for (let i = g; i < g + n; i++) {
    len += copyText.write(orderCopyLine(i), len, 'latin1');
    if (len >= SOCKET_READ) {
      copyParser.parseText(copyText.toString('utf8', 0, len), rows);
      len = 0;
    }
  }
  if (len > 0) copyParser.parseText(copyText.toString('utf8', 0, len), rows);
  return rows;
}
