import { describe, expect, it } from 'vitest';
import {
  DATE_FORMATS,
  DATETIME_FORMATS,
  TIME_FORMATS,
  formatDate,
  formatDateTime,
  formatTime,
  parseDateFormat,
  parseDateText,
  parseDateTimeFormat,
  parseDateTimeText,
  parseTimeFormat,
  parseTimeText,
} from './temporal-formats.js';

const HELD_TS = '2024-01-02T03:04:05.123456789';

/**
 * What SeaTunnel (Java DateTimeFormatter.ofPattern) writes for HELD_TS per datetime_format, and
 * the held value that text reads back as (the fraction it kept).
 */
const WRITTEN: Record<(typeof DATETIME_FORMATS)[number], [string, string]> = {
  'yyyy-MM-dd HH:mm:ss': ['2024-01-02 03:04:05', '2024-01-02T03:04:05'],
  'yyyy-MM-dd HH:mm:ss.SSSSSS': ['2024-01-02 03:04:05.123456', '2024-01-02T03:04:05.123456'],
  'yyyy.MM.dd HH:mm:ss': ['2024.01.02 03:04:05', '2024-01-02T03:04:05'],
  'yyyy/MM/dd HH:mm:ss': ['2024/01/02 03:04:05', '2024-01-02T03:04:05'],
  yyyyMMddHHmmss: ['20240102030405', '2024-01-02T03:04:05'],
  "yyyy-MM-dd'T'HH:mm:ss": ['2024-01-02T03:04:05', '2024-01-02T03:04:05'],
  "yyyy-MM-dd'T'HH:mm:ss.SSS": ['2024-01-02T03:04:05.123', '2024-01-02T03:04:05.123'],
  "yyyy-MM-dd'T'HH:mm:ss.SSSSSS": ['2024-01-02T03:04:05.123456', '2024-01-02T03:04:05.123456'],
  "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS": ['2024-01-02T03:04:05.123456789', HELD_TS],
};

describe('datetime_format', () => {
  it('accepts every spelling SeaTunnel documents or parses, ISO-8601 with quoted T included', () => {
    for (const f of DATETIME_FORMATS) expect(parseDateTimeFormat(f)).toBe(f);
    expect(Object.keys(WRITTEN).sort()).toEqual([...DATETIME_FORMATS].sort());
  });

  it('rejects a pattern SeaTunnel does not know, naming the option and the value', () => {
    expect(() => parseDateTimeFormat('yyyy-MM-ddTHH:mm:ss')).toThrow(/'datetime_format'.*'yyyy-MM-ddTHH:mm:ss'/);
    expect(() => parseDateTimeFormat("dd/MM/yyyy'T'HH:mm")).toThrow(/datetime_format/);
  });

  for (const [format, [text, readBack]] of Object.entries(WRITTEN)) {
    it(`writes ${format} as ${text} and reads it back`, () => {
      expect(formatDateTime(HELD_TS, parseDateTimeFormat(format))).toBe(text);
      expect(parseDateTimeText(text, 'ts')).toBe(readBack);
    });
  }

  it('pads missing fraction digits with zeros and keeps whole seconds', () => {
    expect(formatDateTime('2024-01-02T03:04:05', "yyyy-MM-dd'T'HH:mm:ss.SSS")).toBe('2024-01-02T03:04:05.000');
    expect(formatDateTime('2024-01-02T03:04:05.5', "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS")).toBe('2024-01-02T03:04:05.500000000');
    expect(formatDateTime('2024-01-02T03:04', "yyyy-MM-dd'T'HH:mm:ss")).toBe('2024-01-02T03:04:00');
  });

  it('reads ISO text whatever datetime_format says, as SeaTunnel matches the spelling per field', () => {
    expect(parseDateTimeText('2023-01-11T06:25:29', 'c_timestamp')).toBe('2023-01-11T06:25:29');
    expect(parseDateTimeText('2023-01-11T06:25', 'c_timestamp')).toBe('2023-01-11T06:25:00');
    expect(() => parseDateTimeText('2023-01-11X06:25:29', 'c_timestamp')).toThrow(/c_timestamp.*2023-01-11X06:25:29/);
  });
});

describe('date_format and time_format', () => {
  it('writes and reads back every documented date spelling', () => {
    const written = { 'yyyy-MM-dd': '2024-02-29', 'yyyy.MM.dd': '2024.02.29', 'yyyy/MM/dd': '2024/02/29' };
    for (const f of DATE_FORMATS) {
      expect(formatDate('2024-02-29', parseDateFormat(f))).toBe(written[f]);
      expect(parseDateText(written[f], 'd')).toBe('2024-02-29');
    }
    expect(() => parseDateFormat('dd-MM-yyyy')).toThrow(/'date_format'/);
  });

  it('writes and reads back every documented time spelling', () => {
    const written = { 'HH:mm:ss': '10:11:12', 'HH:mm:ss.SSS': '10:11:12.123' };
    for (const f of TIME_FORMATS) {
      expect(formatTime('10:11:12.123456', parseTimeFormat(f))).toBe(written[f]);
      expect(parseTimeText(written[f], 't')).toBe(written[f]);
    }
    expect(() => parseTimeFormat('HH:mm')).toThrow(/'time_format'/);
  });
});
