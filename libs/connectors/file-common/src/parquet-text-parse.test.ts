/**
 * The Parquet writer's own parsers of date, time and timestamp texts (parquet-text-parse.ts)
 * against the general conversions through Date (parquet-values.ts): every canonical text is
 * taken by the fast parser with the same result, and a text that is not canonical is either
 * refused (the writer then takes the general path) or given the same result.
 */
import { describe, expect, it } from 'vitest';
import { int64Out, parseDateDays, parseTimeMicros, parseTimestampMicros } from './parquet-text-parse.js';
import { timeMicros, timestampMicros } from './parquet-values.js';

let x = 0x1b873593;
const random = (n: number): number => {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) % n;
};
const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** A text with one character replaced, dropped or added (or left as it is). */
function mutated(s: string): string {
  const odd = '0123456789-:.T Z+/a\u0660';
  const i = random(s.length + 1);
  const c = odd[random(odd.length)];
  switch (random(4)) {
    case 0:
      return s.slice(0, i) + c + s.slice(i + 1);
    case 1:
      return s.slice(0, i) + s.slice(i + 1);
    case 2:
      return s.slice(0, i) + c + s.slice(i);
    default:
      return s;
  }
}

/** What the general conversions give (undefined where they fail), and what the fast parsers give (undefined where they refuse). */
const general = {
  date: (s: string) => {
    const ms = Date.parse(`${s}T00:00:00Z`);
    return Number.isNaN(ms) ? undefined : String(Math.round(ms / 86_400_000));
  },
  timestamp: (s: string) => {
    try {
      return String(timestampMicros(s));
    } catch {
      return undefined;
    }
  },
  time: (s: string) => {
    try {
      return String(timeMicros(s));
    } catch {
      return undefined;
    }
  },
};
const fast = {
  date: (s: string) => {
    const days = parseDateDays(s);
    return Number.isNaN(days) ? undefined : String(days);
  },
  timestamp: (s: string) => (parseTimestampMicros(s) ? String((BigInt(int64Out.hi) << 32n) + BigInt(int64Out.lo)) : undefined),
  time: (s: string) => {
    const micros = parseTimeMicros(s);
    return micros < 0 ? undefined : String(micros);
  },
};

type Kind = keyof typeof fast;

/** Canonical texts of each kind: any year 0-9999, day 1-31 of any month (past a month's end runs on, as in Date), 0-9 fraction digits. */
function canonical(): Record<Kind, string> {
  const frac = random(3) === 0 ? '' : `.${pad(random(1_000_000_000), 9).slice(0, 1 + random(9))}`;
  const clock = `${pad(random(24), 2)}:${pad(random(60), 2)}:${pad(random(60), 2)}${frac}`;
  const date = `${pad(random(10_000), 4)}-${pad(1 + random(12), 2)}-${pad(1 + random(31), 2)}`;
  return { date, timestamp: `${date}${random(2) ? 'T' : ' '}${clock}`, time: clock };
}

/** The texts (at most ten) where `check` fails, with both results. */
function failures(texts: [Kind, string][], check: (f: string | undefined, g: string | undefined) => boolean): string[] {
  const out: string[] = [];
  for (const [kind, s] of texts) {
    const f = fast[kind](s);
    const g = general[kind](s);
    if (!check(f, g) && out.push(`${kind} '${s}': fast ${f}, general ${g}`) >= 10) break;
  }
  return out;
}

describe("the Parquet writer's text parsers", () => {
  it('take every canonical date, time and timestamp text with the result the conversions through Date give', () => {
    const texts: [Kind, string][] = [
      ['date', '0000-01-01'],
      ['date', '9999-12-31'],
      ['date', '1970-01-01'],
      ['date', '2024-02-29'],
      ['date', '2023-02-31'], // runs on to March 3rd, as Date does
      ['time', '23:59:59.999999999'],
      ['time', '00:00:00'],
      ['timestamp', '1969-12-31T23:59:59.999999'],
      ['timestamp', '0001-01-01 00:00:00.1'],
    ];
    for (let i = 0; i < 30_000; i++) {
      const c = canonical();
      texts.push(['date', c.date], ['time', c.time], ['timestamp', c.timestamp]);
    }
    expect(failures(texts, (f, g) => f !== undefined && f === g)).toEqual([]);
  });

  it('refuse what is not canonical, or give what the conversions through Date give', () => {
    const texts: [Kind, string][] = [
      ['date', '2024-1-01'],
      ['date', '2024-13-01'],
      ['date', '2024-00-10'],
      ['date', '2024-01-32'],
      ['date', '+02024-01-01'],
      ['date', '2024-01-01T00:00:00'],
      ['time', '24:00:00'],
      ['time', '12:60:00'],
      ['time', '12:00:60'],
      ['time', '12:00:00.'],
      ['time', '12:00:00.1234567890'],
      ['timestamp', '2024-01-01X00:00:00'],
      ['timestamp', '2024-01-01T00:00:00Z'],
      ['timestamp', '2024-01-01T00:00'],
    ];
    for (let i = 0; i < 30_000; i++) {
      const c = canonical();
      for (const kind of ['date', 'time', 'timestamp'] as const) texts.push([kind, mutated(mutated(c[kind]))]);
    }
    expect(failures(texts, (f, g) => f === undefined || f === g)).toEqual([]);
    expect(texts.filter(([kind, s]) => fast[kind](s) === undefined).length).toBeGreaterThan(20_000);
  });
});
