import { mkdtempSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIO } from './file-io.js';
import { cutoffOf, durationMs, locationKey } from './maintenance.js';

describe('Iceberg maintenance: cutoffs, locations, listing', () => {
  it('reads --older-than as a duration before now, an ISO timestamp or epoch milliseconds', () => {
    const now = Date.UTC(2026, 11, 6);
    expect(durationMs('3d')).toBe(3 * 86_400_000);
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('1w')).toBe(7 * 86_400_000);
    expect(durationMs('soon')).toBeUndefined();
    expect(durationMs('5000')).toBeUndefined(); // a unit is needed: a bare number is epoch milliseconds or nothing
    expect(cutoffOf('12h', now)).toBe(now - 12 * 3_600_000);
    expect(cutoffOf('2026-12-01T00:00:00Z', now)).toBe(Date.UTC(2026, 11, 1));
    expect(cutoffOf('1764547200000', now)).toBe(1764547200000);
    expect(cutoffOf('2026-13-45', now)).toBeUndefined();
    expect(cutoffOf('yesterday', now)).toBeUndefined();
  });

  it('compares locations whatever their form (file: URIs, paths, s3a://)', () => {
    expect(locationKey('file:///wh/db/t/data/a.parquet')).toBe('/wh/db/t/data/a.parquet');
    expect(locationKey('file:/wh/db/t/data/a.parquet')).toBe('/wh/db/t/data/a.parquet');
    expect(locationKey('s3a://lake/wh/a.parquet')).toBe(locationKey('s3://lake/wh/a.parquet'));
  });

  it('lists a local folder recursively in the form of the folder given, with times written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tideway-fileio-list-'));
    try {
      mkdirSync(join(dir, 't', 'data', 'region=eu'), { recursive: true });
      writeFileSync(join(dir, 't', 'data', 'region=eu', 'a.parquet'), 'abc');
      writeFileSync(join(dir, 't', 'v1.metadata.json'), '{}');
      const old = new Date(Date.UTC(2020, 0, 1));
      utimesSync(join(dir, 't', 'v1.metadata.json'), old, old);
      const io = new FileIO();
      const listed = (await io.list(`file://${dir}/t/`)).sort((a, b) => a.location.localeCompare(b.location));
      expect(listed.map((f) => [f.location, f.size])).toEqual([
        [`file://${dir}/t/data/region=eu/a.parquet`, 3],
        [`file://${dir}/t/v1.metadata.json`, 2],
      ]);
      expect(listed[1].modifiedMs).toBe(old.getTime());
      expect(await io.list(join(dir, 'missing'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
