import { describe, expect, it } from 'vitest';
import { canonicalSql, clientEqual, compareMode, isSafeText, normalJson, rowTextSql } from './canonical.js';
import type { ColumnInfo } from './column-info.js';

const col = (cls: ColumnInfo['cls'], fraction = 0): ColumnInfo => ({ name: 'c', cls, fraction, label: cls, shape: cls });
const pg = { dialect: 'postgresql' as const, truncates: false };
const maria = { dialect: 'mysql' as const, truncates: true };

describe('compareMode', () => {
  it('compares integers, decimals and booleans as numbers whatever the dialects', () => {
    expect(compareMode(col('decimal'), col('integer'), pg, maria).kind).toBe('number');
    expect(compareMode(col('boolean'), col('integer'), pg, maria).kind).toBe('number');
  });

  it('prints two decimals of one scale as they are, and trims fraction zeros otherwise', () => {
    const dec = (scale?: number) => ({ ...col('decimal'), scale });
    expect(compareMode(dec(2), dec(2), pg, maria)).toEqual({ kind: 'number', plain: true });
    expect(compareMode(dec(2), dec(1), pg, maria)).toEqual({ kind: 'number' });
    expect(compareMode(dec(undefined), dec(undefined), pg, maria)).toEqual({ kind: 'number' });
    expect(canonicalSql('postgresql', '"a"', 'decimal', { kind: 'number', plain: true }, 0)).toBe('"a"::text');
    expect(canonicalSql('mysql', '`a`', 'decimal', { kind: 'number' }, 0)).toContain("TRIM(TRAILING '0'");
  });

  it("prints temporal values of one precision as each database does, MySQL's trailing fraction zeros trimmed", () => {
    const mode = compareMode(col('timestamp', 6), col('timestamp', 6), maria, pg);
    expect(mode).toEqual({ kind: 'temporal', time: false, fraction: 6, round: false, same: true });
    expect(canonicalSql('postgresql', '"t"', 'timestamp', mode, 6)).toBe('"t"::text');
    expect(canonicalSql('postgresql', '"t"', 'timestamptz', mode, 6)).toBe(`("t" AT TIME ZONE 'UTC')::text`);
    expect(canonicalSql('mysql', '`t`', 'timestamp', mode, 6)).toBe("TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CAST(`t` AS CHAR)))");
    const whole = compareMode(col('timestamp', 0), col('timestamp', 0), maria, pg);
    expect(canonicalSql('mysql', '`t`', 'timestamp', whole, 0)).toBe('CAST(`t` AS CHAR)');
  });

  it('compares temporal values at the lower precision, rounded unless the lower side is MariaDB', () => {
    expect(compareMode(col('timestamp', 6), col('timestamp', 3), maria, pg)).toEqual({
      kind: 'temporal',
      time: false,
      fraction: 3,
      round: true,
    });
    expect(compareMode(col('timestamp', 6), col('timestamptz', 0), pg, maria)).toEqual({
      kind: 'temporal',
      time: false,
      fraction: 0,
      round: false,
    });
  });

  it('leaves JSON and floats across dialects to the client, in the databases otherwise', () => {
    expect(compareMode(col('json'), col('json'), pg, maria).kind).toBe('client-json');
    expect(compareMode(col('json'), col('json'), pg, pg).kind).toBe('json');
    expect(compareMode(col('double'), col('double'), pg, maria)).toEqual({ kind: 'client-float', digits: 15 });
    expect(compareMode(col('float'), col('double'), pg, pg)).toEqual({ kind: 'client-float', digits: 6 });
  });
});

describe('client comparison', () => {
  it('reads JSON with any key order and spacing as one value, and tells different values apart', () => {
    expect(normalJson('{"b": [1, 2], "a": 1.50}')).toBe(normalJson('{"a":1.5,"b":[1,2]}'));
    expect(clientEqual({ kind: 'client-json' }, '{"a": 1}', '{"a": 2}')).toBe(false);
  });

  it('compares floats to the significant digits of the narrower type', () => {
    expect(clientEqual({ kind: 'client-float', digits: 6 }, '0.1', '0.100000001490116')).toBe(true);
    expect(clientEqual({ kind: 'client-float', digits: 15 }, '0.1', '0.100000001490116')).toBe(false);
    expect(clientEqual({ kind: 'client-float', digits: 15 }, null, '0')).toBe(false);
  });
});

describe('checksummed texts of client-compared columns', () => {
  it("prints a float as each database does, with PostgreSQL's exponent spelt as MySQL's", () => {
    const mode = { kind: 'client-float', digits: 15 } as const;
    expect(canonicalSql('postgresql', '"w"', 'double', mode, 0)).toBe(`replace("w"::text, 'e+', 'e')`);
    expect(canonicalSql('mysql', '`w`', 'double', mode, 0)).toBe('CAST(`w` AS CHAR)');
    // A decimal paired with a float prints as a number without trailing fraction zeros.
    expect(canonicalSql('postgresql', '"w"', 'decimal', mode, 0)).toContain(`rtrim(rtrim("w"::text, '0'), '.')`);
  });

  it("prints JSON in PostgreSQL's jsonb layout, and as stored on MySQL", () => {
    expect(canonicalSql('postgresql', '"j"', 'json', { kind: 'client-json' }, 0)).toBe('"j"::jsonb::text');
    expect(canonicalSql('mysql', '`j`', 'json', { kind: 'client-json' }, 0)).toBe('CONVERT(`j` USING utf8mb4)');
  });
});

describe('row texts', () => {
  it('joins texts that cannot hold | as they are, and the others with their length', () => {
    expect(
      rowTextSql('mysql', [
        { raw: '`n`', text: 'CAST(`n` AS CHAR)', safe: true },
        { raw: '`t`', text: 'CONVERT(`t` USING utf8mb4)', length: '`t`' },
      ]),
    ).toBe(
      "CONCAT((CASE WHEN `n` IS NULL THEN 'N' ELSE CAST(`n` AS CHAR) END), '|', (CASE WHEN `t` IS NULL THEN 'N' ELSE CONCAT(CHAR_LENGTH(`t`), ':', CONVERT(`t` USING utf8mb4)) END))",
    );
    expect(isSafeText({ kind: 'number' })).toBe(true);
    expect(isSafeText({ kind: 'temporal', time: false, fraction: 6, round: false })).toBe(true);
    expect(isSafeText({ kind: 'text' })).toBe(false);
    expect(isSafeText({ kind: 'native' })).toBe(false);
  });
});
