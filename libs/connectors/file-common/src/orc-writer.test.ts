import { parseDataType } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { ORC_WRITE_CODECS } from './orc-compression.js';
import { OrcFileWriter } from './orc-writer.js';
import { rowGroupsSentToThread, rowGroupThreadListening } from './row-group-thread.js';
import { loadZstd } from './zstd-lz4.js';

const COLUMNS = (
  [
    ['id', 'bigint'],
    ['s', 'string'],
    ['u', 'string'],
    ['b', 'boolean'],
    ['ti', 'tinyint'],
    ['i', 'int'],
    ['f', 'float'],
    ['d', 'double'],
    ['dec', 'decimal(12, 2)'],
    ['wide', 'decimal(38, 18)'],
    ['by', 'bytes'],
    ['dt', 'date'],
    ['ts', 'timestamp'],
    ['l', 'array<int>'],
    ['m', 'map<string, bigint>'],
    ['r', 'row<a int, b string>'],
  ] as const
).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));

/** Row g: every column null on some rows, 64-bit and unicode values, a repeating and a unique string column. */
const row = (g: number): unknown[] =>
  [
    g % 3 === 0 ? 9223372036854775807n - BigInt(g) : BigInt(g),
    ['a', 'bb', 'héllo ✓', '🎉'][g % 4],
    `unique ${g} ${'x'.repeat(g % 50)}`,
    g % 2 === 0,
    (g % 256) - 128,
    g * 7919 - 1_000_000,
    g / 3,
    g % 11 === 0 ? Number.NaN : -g * 1.25,
    `${g}.${String(g % 100).padStart(2, '0')}`,
    `-${g}.000000000000000001`,
    Uint8Array.of(g & 255, 0, 255),
    `20${String(g % 100).padStart(2, '0')}-0${1 + (g % 9)}-1${g % 10}`,
    `2024-01-01T00:00:${String(g % 60).padStart(2, '0')}.${String(g * 1000)
      .padStart(9, '0')
      .slice(-9)}`,
    Array.from({ length: g % 4 }, (_, k) => (k === 1 ? null : g * k)),
    new Map(Array.from({ length: g % 3 }, (_, k) => [`k${k}`, BigInt(g - k)])),
    [g, `r${g % 10}`],
  ].map((v, i) => (g % (5 + i) === 1 ? null : v));

describe('ORC writer', () => {
  it.each(Object.keys(ORC_WRITE_CODECS))(
    'writes the same bytes whether its stripes are encoded on the row-group thread or not, rows added one by one or in batches (%s)',
    async (codec) => {
      await loadZstd();
      expect(await rowGroupThreadListening()).toBe(true);
      const sentBefore = rowGroupsSentToThread();
      const rows = Array.from({ length: 3000 }, (_, g) => row(g));
      const bytesOf = (thread: boolean, batches: boolean) => {
        const w = new OrcFileWriter(COLUMNS, ORC_WRITE_CODECS[codec], 32 * 1024, thread);
        const parts: Uint8Array[] = [];
        for (let at = 0; at < rows.length; at += 100) {
          if (batches) w.addRows(rows.slice(at, at + 100), Math.min(100, rows.length - at));
          else for (const r of rows.slice(at, at + 100)) w.add(r);
          const b = w.take();
          if (b) parts.push(b);
        }
        parts.push(w.finish()!);
        return Buffer.concat(parts);
      };
      const threaded = bytesOf(true, true);
      expect(rowGroupsSentToThread()).toBeGreaterThan(sentBefore + 1); // stripes of 32 KB: several
      expect(threaded.equals(bytesOf(false, true))).toBe(true);
      expect(bytesOf(true, false).equals(bytesOf(false, false))).toBe(true);
    },
  );
});
