import type { Column, ColumnExtras, DataType } from '@tideway/api';
import { convertConfigValue, ConfigValueError, formatType } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { FakeTableConfig, NumericFake } from './fake-config.js';
import { currentDate, currentTime, currentTimestamp } from './current-time.js';

/**
 * Random value generators, compiled once per column so the per-row loop only calls closures
 * (no type switch, no option lookup per value). Semantics follow SeaTunnel's FakeSource: a
 * template list wins over the range; ranges are [min, max) like commons-lang RandomUtils;
 * strings/bytes are random letters; decimals are random digits (precision - scale integer
 * digits, scale fraction digits); dates use the current year unless `date.year.template`.
 */
export type ValueGenerator = () => unknown;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LETTER_CODES = Array.from(LETTERS, (c) => c.charCodeAt(0));

function pick<T>(list: readonly T[]): () => T {
  const n = list.length;
  return () => list[(Math.random() * n) | 0];
}

/** Random integer in [min, max) (min when they are equal), as RandomUtils.nextInt. */
function intRange(min: number, max: number): () => number {
  const span = max - min;
  return () => min + Math.floor(Math.random() * span);
}

/**
 * Past this many letters a string is made from a byte buffer: fromCharCode.apply passes every
 * code as an argument, and V8's stack holds only so many (`string.length = 2000000` overflowed it).
 */
const APPLY_MAX = 8192;

/** Random letters; one reusable code buffer per generator, one string per value. */
export function randomLetters(length: number): () => string {
  if (length > APPLY_MAX) {
    const bytes = randomLetterBytes(length);
    return () => {
      const b = bytes();
      return Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
    };
  }
  const codes = new Array<number>(length);
  return () => {
    for (let i = 0; i < length; i++) codes[i] = LETTER_CODES[(Math.random() * 52) | 0]!;
    return String.fromCharCode.apply(null, codes);
  };
}

function randomLetterBytes(length: number): () => Uint8Array {
  return () => {
    const b = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) b[i] = LETTER_CODES[(Math.random() * 52) | 0]!;
    return b;
  };
}

/** Random bigint in [min, max): 53-bit arithmetic when the span allows, 64-bit otherwise. */
function bigintRange(min: bigint, max: bigint): () => bigint {
  const span = max - min;
  if (span <= 0n) return () => min;
  if (span <= BigInt(Number.MAX_SAFE_INTEGER)) {
    const s = Number(span);
    return () => min + BigInt(Math.floor(Math.random() * s));
  }
  return () => {
    const hi = BigInt((Math.random() * 0x100000000) >>> 0);
    const lo = BigInt((Math.random() * 0x100000000) >>> 0);
    return min + (((hi << 32n) | lo) % span);
  };
}

/** Wraps to a signed byte/short, as Java's byteValue()/shortValue() do for template items. */
const toByte = (v: number): number => (v << 24) >> 24;
const toShort = (v: number): number => (v << 16) >> 16;

function roundHalfUp(v: number, scale: number): number {
  const f = 10 ** scale;
  return (Math.sign(v) * Math.round(Math.abs(v) * f)) / f;
}

function floating(fake: NumericFake<number>, scale: number | undefined): () => number {
  if (fake.template) return pick(fake.template);
  const { min } = fake;
  const span = fake.max - fake.min;
  if (scale === undefined) return () => min + span * Math.random();
  return () => roundHalfUp(min + span * Math.random(), scale);
}

function randomDigits(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(48 + ((Math.random() * 10) | 0));
  return s;
}

function decimal(precision: number, scale: number): () => string {
  const intDigits = precision - scale;
  return () => {
    const i = randomDigits(intDigits).replace(/^0+(?=\d)/, '') || '0';
    return scale > 0 ? `${i}.${randomDigits(scale)}` : i;
  };
}

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

function datePart(cfg: FakeTableConfig): () => string {
  const year = cfg.dateYear
    ? pick(cfg.dateYear)
    : (
        (y: number) => () =>
          y
      )(new Date().getFullYear());
  const month = cfg.dateMonth ? pick(cfg.dateMonth) : intRange(1, 13);
  const day = cfg.dateDay ? pick(cfg.dateDay) : intRange(1, 29);
  return () => `${String(year()).padStart(4, '0')}-${two(month())}-${two(day())}`;
}

function timePart(cfg: FakeTableConfig): () => string {
  const hour = cfg.timeHour ? pick(cfg.timeHour) : intRange(0, 24);
  const minute = cfg.timeMinute ? pick(cfg.timeMinute) : intRange(0, 60);
  const second = cfg.timeSecond ? pick(cfg.timeSecond) : intRange(0, 60);
  return () => `${two(hour())}:${two(minute())}:${two(second())}`;
}

/** A generator for values of `type` (nested types recurse). */
export function generatorFor(type: DataType, cfg: FakeTableConfig, extras: ColumnExtras = {}): ValueGenerator {
  switch (type.kind) {
    case 'null':
      return () => null;
    case 'string':
      if (cfg.stringTemplate) return pick(cfg.stringTemplate);
      return randomLetters(extras.length !== undefined && extras.length > 0 ? extras.length : cfg.stringLength);
    case 'boolean':
      return () => Math.random() < 0.5;
    case 'tinyint':
      return cfg.tinyint.template ? pick(cfg.tinyint.template.map(toByte)) : intRange(cfg.tinyint.min, cfg.tinyint.max);
    case 'smallint':
      return cfg.smallint.template ? pick(cfg.smallint.template.map(toShort)) : intRange(cfg.smallint.min, cfg.smallint.max);
    case 'int':
      return cfg.int.template ? pick(cfg.int.template) : intRange(cfg.int.min, cfg.int.max);
    case 'bigint':
      return cfg.bigint.template ? pick(cfg.bigint.template) : bigintRange(cfg.bigint.min, cfg.bigint.max);
    case 'float':
      return floating(cfg.float, extras.scale);
    case 'double':
      return floating(cfg.double, extras.scale);
    case 'decimal':
      return decimal(type.precision, type.scale);
    case 'bytes':
      return randomLetterBytes(cfg.bytesLength);
    case 'date':
      return datePart(cfg);
    case 'time':
      return timePart(cfg);
    case 'timestamp': {
      const d = datePart(cfg);
      const t = timePart(cfg);
      return () => `${d()}T${t()}`;
    }
    case 'timestamp_tz': {
      const d = datePart(cfg);
      const t = timePart(cfg);
      return () => `${d()}T${t()}Z`;
    }
    case 'array': {
      const el = generatorFor(type.element, cfg);
      const n = cfg.arraySize;
      return () => {
        const a = new Array<unknown>(n);
        for (let i = 0; i < n; i++) a[i] = el();
        return a;
      };
    }
    case 'map': {
      const k = generatorFor(type.key, cfg);
      const v = generatorFor(type.value, cfg);
      const n = cfg.mapSize;
      return () => {
        const m = new Map<unknown, unknown>();
        for (let i = 0; i < n; i++) m.set(k(), v());
        return m;
      };
    }
    case 'row': {
      const gens = type.fields.map((f) => generatorFor(f.type, cfg));
      const n = gens.length;
      return () => {
        const a = new Array<unknown>(n);
        for (let i = 0; i < n; i++) a[i] = gens[i]();
        return a;
      };
    }
  }
}

const NOW: Partial<Record<DataType['kind'], { word: string; now: () => string }>> = {
  date: { word: 'CURRENT_DATE', now: currentDate },
  time: { word: 'CURRENT_TIME', now: currentTime },
  timestamp: { word: 'CURRENT_TIMESTAMP', now: currentTimestamp },
};

/**
 * A column with `defaultValue` always yields it (SeaTunnel: CURRENT_DATE / CURRENT_TIME /
 * CURRENT_TIMESTAMP mean the time of generation; bytes are the text's bytes); other
 * columns get random values.
 */
export function columnGenerator(column: Column, extras: ColumnExtras, cfg: FakeTableConfig): ValueGenerator {
  const dv = column.defaultValue;
  if (dv === undefined || dv === null) return generatorFor(column.type, cfg, extras);
  const text = textOf(dv);
  const now = NOW[column.type.kind];
  if (now && text.toUpperCase() === now.word) return now.now;
  if (column.type.kind === 'bytes') return () => Buffer.from(text, 'utf8');
  try {
    const value = convertConfigValue(typeof dv === 'object' ? dv : text, column.type, `schema.columns.${column.name}.defaultValue`);
    if (typeof value === 'object' && value !== null) return () => structuredClone(value);
    return () => value;
  } catch (err) {
    if (err instanceof ConfigValueError) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `FakeSource column '${column.name}' has defaultValue ${JSON.stringify(text)}, which is not a ${formatType(column.type)}`,
        { place: { option: 'schema' } },
      );
    }
    throw err;
  }
}
