/**
 * Decoding the Jdbc PostgreSQL source's rows from COPY's text format (what the source does:
 * CopyTextRowParser and the column decoders) against a sketch of decoding the same rows from
 * COPY's binary format into the same values (bigint, numbers, booleans, strings, decimal text,
 * ISO timestamp and date text), on shared/bench's `orders` (issue 32, item 5; bench/RESULTS.md).
 * The binary side is a sketch for this table's columns only, written to measure, not a decoder:
 * it checks that both give equal values, then times each, rows dropped in batches as a job does,
 * and twice with parts left out (the string fields, the timestamps) to show where its time goes.
 *
 * usage: TIDEWAY_SHARED_DIR=<shared> node --import tsx --conditions=source bench/pg-copy-decode.ts [rows]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '@tideway/testing';
import { CopyTextRowParser } from '../libs/connectors/jdbc/src/pg-copy-text.js';
import { bigintOfText, integerOfText, isoTimestamp, keepValue } from '../libs/connectors/jdbc/src/value-codec.js';
import { loadOrders, pgRun, psqlEnv } from './orders-servers.js';

const ROWS = Number(process.argv[2] ?? 200_000);
const work = mkdtempSync(join(tmpdir(), 'tideway-pg-copy-decode-'));
const server = await startPostgres({});
let text: Buffer;
let bin: Buffer;
try {
  await pgRun(server, server.database, 'CREATE DATABASE src');
  await loadOrders(work, server, undefined, ROWS);
  const env = { ...process.env, ...psqlEnv(server), PGOPTIONS: '-c DateStyle=ISO,YMD -c TimeZone=UTC' };
  const copy = (format: string) =>
    execFileSync('psql', ['-q', '-d', 'src', '-c', `COPY (SELECT * FROM orders ORDER BY id) TO STDOUT${format}`], {
      env,
      maxBuffer: 1 << 30,
    });
  text = copy('');
  bin = copy(' (FORMAT binary)');
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
const toNumber = (s: unknown) => Number(s);
const toBool = (s: unknown) => s === 't';
const decoders = [
  bigintOfText,
  (s: unknown) => integerOfText(s as string),
  keepValue,
  keepValue,
  keepValue,
  keepValue,
  toNumber,
  toBool,
  isoTimestamp,
  keepValue,
  keepValue,
  keepValue,
];
// Text blocks as the reader makes them: about 64 KiB, whole lines.
const blocks: Array<[number, number]> = [];
for (let s = 0; s < text.length; ) {
  let e = Math.min(text.length, s + 65536);
  if (e < text.length) e = text.lastIndexOf(10, e - 1) + 1;
  blocks.push([s, e]);
  s = e;
}
function textPath(keep = true): unknown[][] {
  const p = new CopyTextRowParser(decoders);
  let out: unknown[][] = [];
  for (const [s, e] of blocks) {
    if (!keep) out = [];
    p.parseText(text.toString('utf8', s, e), out);
  }
  return out;
}
type U8 = Buffer & { utf8Slice(s: number, e: number): string };
const b = bin as U8;
const TWO32 = 4294967296;
const PG_EPOCH_DAYS = 10957;
function civil(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}
const p2 = (n: number) => (n < 10 ? '0' + n : String(n));
let lastDay = NaN,
  lastDate = '';
function dateText(days: number): string {
  if (days === lastDay) return lastDate;
  const [y, m, d] = civil(days + PG_EPOCH_DAYS);
  lastDay = days;
  lastDate = [String(y).padStart(4, '0'), p2(m), p2(d)].join('-');
  return lastDate;
}
let lastTsDay = NaN,
  lastTsDate = '';
function tsText(micros: number): string {
  const days = Math.floor(micros / 86400e6);
  if (days !== lastTsDay) {
    const [y, m, d] = civil(days + PG_EPOCH_DAYS);
    lastTsDay = days;
    lastTsDate = [String(y).padStart(4, '0'), p2(m), p2(d)].join('-');
  }
  let t = micros - days * 86400e6;
  const us = t % 1e6;
  t = (t - us) / 1e6;
  const se = t % 60;
  t = (t - se) / 60;
  const mi = t % 60;
  const h = (t - mi) / 60;
  let frac = '';
  if (us !== 0) {
    frac = String(us + 1e6).slice(1);
    let k = frac.length;
    while (frac.charCodeAt(k - 1) === 48) k--;
    frac = '.' + frac.slice(0, k);
  }
  return [lastTsDate, 'T', p2(h), ':', p2(mi), ':', p2(se), frac].join('');
}
function numericText(p: number): string {
  const nd = b.readInt16BE(p),
    weight = b.readInt16BE(p + 2),
    sign = b.readUInt16BE(p + 4),
    dscale = b.readInt16BE(p + 6);
  let s = sign === 0x4000 ? '-' : '';
  let i = 0;
  if (weight < 0) s += '0';
  else
    for (; i <= weight; i++) {
      const g = i < nd ? b.readInt16BE(p + 8 + 2 * i) : 0;
      s += i === 0 ? String(g) : String(g + 10000).slice(1);
    }
  if (dscale > 0) {
    let f = '';
    for (let w = -1; f.length < dscale; w--) {
      const idx = weight - w;
      const g = idx >= 0 && idx < nd ? b.readInt16BE(p + 8 + 2 * (i + (-1 - w) + (weight < 0 ? weight + 1 : 0))) : 0;
      f += String(g + 10000).slice(1);
    }
    s += '.' + f.slice(0, dscale);
  }
  return s;
}
function binPath(keep = true, mode = 0): unknown[][] {
  let out: unknown[][] = [];
  let p = 19;
  for (;;) {
    const n = b.readInt16BE(p);
    p += 2;
    if (n === -1) break;
    const row = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const len = b.readInt32BE(p);
      p += 4;
      if (len === -1) {
        row[i] = null;
        continue;
      }
      switch (i) {
        case 0: {
          const hi = b.readInt32BE(p),
            lo = b.readUInt32BE(p + 4);
          row[i] = BigInt(hi * TWO32 + lo);
          break;
        }
        case 1:
          row[i] = b.readInt32BE(p);
          break;
        case 5:
          row[i] = numericText(p);
          break;
        case 6:
          row[i] = b.readDoubleBE(p);
          break;
        case 7:
          row[i] = b[p] === 1;
          break;
        case 8:
          if (mode === 2) {
            row[i] = null;
            break;
          }
          {
            const hi = b.readInt32BE(p),
              lo = b.readUInt32BE(p + 4);
            row[i] = tsText(hi * TWO32 + lo);
            break;
          }
        case 9:
          row[i] = dateText(b.readInt32BE(p));
          break;
        case 11:
          row[i] = mode === 1 ? null : b.utf8Slice(p + 1, p + len);
          break;
        default:
          row[i] = mode === 1 ? null : b.utf8Slice(p, p + len);
      }
      p += len;
    }
    if (!keep && out.length === 256) out = [];
    out.push(row);
  }
  return out;
}
const t = textPath(),
  bb = binPath();
let diff = 0;
for (let r = 0; r < t.length; r++)
  for (let i = 0; i < 12; i++) if (t[r][i] !== bb[r][i] && diff++ < 5) console.log('diff', r, i, t[r][i], bb[r][i]);
console.log('rows', t.length, bb.length, 'diffs', diff);
for (let k = 0; k < 6; k++) {
  for (const [name, f] of [
    ['text', () => textPath(false)],
    ['binary', () => binPath(false)],
    ['binary, no strings', () => binPath(false, 1)],
    ['binary, no timestamps', () => binPath(false, 2)],
  ] as const) {
    const t0 = performance.now();
    f();
    console.log(name, (((performance.now() - t0) / ROWS) * 1e6).toFixed(0), 'ns/row');
  }
}
