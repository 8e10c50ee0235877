/**
 * decoderbufs (decoding.plugin.name = "decoderbufs"): its Protocol Buffers messages
 * (proto/decoderbufs.proto, decoded by the generated code in gen/) turned into what the
 * pgoutput path works with, so that one replication stream serves both. Values go back to
 * PostgreSQL's text output form, the form the Jdbc connector's decoders read (as pgoutput sends
 * them): the snapshot and the stream then give the same values.
 */
import { ErrorCode, TidewayError, type Place } from '@tideway/common';
import { ChangeKind, ChangeMessage, type ColumnValue } from './gen/decoderbufs.js';
import { UNCHANGED_TOAST, type PgOutputMessage, type RelationColumn, type TupleValue } from './pgoutput.js';
import type { TrackedPgColumn } from './pg-schema.js';

export { ChangeKind, ChangeMessage, type ColumnValue };

const OID = { bytea: 17, date: 1082, time: 1083, timestamp: 1114, timestamptz: 1184, timetz: 1266, money: 790 } as const;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;
const MICROS_PER_DAY = 86_400_000_000n;

/** Decodes one XLogData payload of a decoderbufs slot. */
export function decodeDecoderbufs(payload: Buffer): ChangeMessage {
  return ChangeMessage.decode(payload);
}

/**
 * The stand-in for a relation message: the columns of a message's new row (the table as it was
 * written), with the type modifiers the catalog has for them now (decoderbufs sends none); a
 * delete, which has only the old row, takes the catalog's columns.
 */
export function standInRelation(newRow: readonly ColumnValue[] | undefined, catalog: readonly TrackedPgColumn[]): RelationColumn[] {
  if (!newRow) return catalog.map((c) => ({ ...c, isKey: false }));
  return newRow.map((c) => ({
    name: c.name ?? '',
    typeOid: Number(c.typeOid ?? 0),
    typmod: catalog.find((x) => x.name === c.name && x.typeOid === Number(c.typeOid))?.typmod ?? -1,
    isKey: false,
  }));
}

/**
 * A row change as the pgoutput message it stands for: values by column name in the relation's
 * order (`names`), as text (`text`). Old rows are the key alone unless `fullIdentity`.
 */
export function rowChange(
  msg: ChangeMessage,
  oid: number,
  names: readonly string[],
  fullIdentity: boolean,
  text: (v: ColumnValue) => TupleValue,
): PgOutputMessage | undefined {
  const tuple = (values: readonly ColumnValue[]): TupleValue[] => {
    const out: TupleValue[] = new Array(names.length).fill(null);
    for (const v of values) {
      const i = names.indexOf(v.name ?? '');
      if (i >= 0) out[i] = text(v);
    }
    return out;
  };
  const before = msg.oldRow.length > 0 ? tuple(msg.oldRow) : null;
  switch (msg.kind) {
    case ChangeKind.CHANGE_KIND_INSERT:
      return { tag: 'insert', oid, after: tuple(msg.newRow) };
    case ChangeKind.CHANGE_KIND_UPDATE:
      return { tag: 'update', oid, before, keyOnly: before !== null && !fullIdentity, after: tuple(msg.newRow) };
    case ChangeKind.CHANGE_KIND_DELETE:
      return before ? { tag: 'delete', oid, before, keyOnly: !fullIdentity } : undefined;
    default:
      return undefined;
  }
}

/** `schema.table` as decoderbufs names a table (each part quoted as an identifier when needed). */
export function splitQualifiedName(text: string): { schema: string; table: string } {
  const parts: string[] = [];
  let i = 0;
  while (i <= text.length) {
    let part = '';
    if (text[i] === '"') {
      i++;
      while (i < text.length) {
        if (text[i] === '"' && text[i + 1] === '"') {
          part += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else part += text[i++];
      }
    } else {
      const dot = text.indexOf('.', i);
      const end = dot < 0 ? text.length : dot;
      part = text.slice(i, end);
      i = end;
    }
    parts.push(part);
    if (text[i] !== '.') break;
    i++;
  }
  return parts.length >= 2 ? { schema: parts[0]!, table: parts.slice(1).join('.') } : { schema: 'public', table: parts[0] ?? text };
}

const pad = (n: number | bigint, width: number) => String(n).padStart(width, '0');

/** Days since 1970-01-01 as PostgreSQL's ISO date text (`2024-01-02`, `0044-03-15 BC`). */
function dateText(days: number): string {
  const d = new Date(days * 86_400_000);
  const y = d.getUTCFullYear();
  const date = `${pad(y <= 0 ? 1 - y : y, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
  return y <= 0 ? `${date} BC` : date;
}

/** Microseconds within a day as `HH:MM:SS[.ffffff]` (trailing zeros of the fraction dropped, as PostgreSQL writes it). */
function timeOfDayText(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const text = `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}`;
  return frac === 0n ? text : `${text}.${pad(frac, 6).replace(/0+$/, '')}`;
}

/** Microseconds since 1970-01-01 00:00 as `YYYY-MM-DD HH:MM:SS[.ffffff]` (BC after the time, as PostgreSQL writes it). */
function timestampText(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const date = dateText(Number(days));
  const bc = date.endsWith(' BC');
  return `${bc ? date.slice(0, -3) : date} ${timeOfDayText(rest)}${bc ? ' BC' : ''}`;
}

/** The UTC offset of `zone` at an instant, as PostgreSQL writes it (`+00`, `+05:30`, `-08`). */
function offsetText(epochMs: number, zone: string): { minutes: number; text: string } {
  if (/^(utc|gmt|z|\+00:00|\+00)$/i.test(zone)) return { minutes: 0, text: '+00' };
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(epochMs))
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return { minutes: 0, text: '+00' };
  const minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  return { minutes, text: `${m[1]}${m[2]}${m[3] === '00' ? '' : `:${m[3]}`}` };
}

/** A float4's shortest decimal text that reads back as the same float4 (PostgreSQL's output for it). */
function float4Text(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  for (let p = 1; p <= 9; p++) {
    const t = v.toPrecision(p);
    if (Math.fround(Number(t)) === v) return String(Number(t));
  }
  return String(v);
}

function float8Text(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return String(v);
}

/**
 * One column value of a decoderbufs message as PostgreSQL's text output (or null, or unchanged
 * TOAST). `timeZone`: the session time zone timestamptz values are written in. Types decoderbufs
 * sends in a form their text cannot be rebuilt from (timetz without its offset, money as a
 * number without its currency format) fail in one sentence naming the column.
 */
export function columnText(v: ColumnValue, timeZone: string, tableId: string, place: Place): TupleValue {
  const value = v.value;
  if (value === undefined) return null;
  const oid = Number(v.typeOid ?? 0);
  switch (value.$case) {
    case 'unchangedToast':
      return value.value ? UNCHANGED_TOAST : null;
    case 'boolValue':
      return value.value ? 't' : 'f';
    case 'textValue':
      return value.value;
    case 'bytesValue':
      return oid === OID.bytea ? `\\x${value.value.toString('hex')}` : value.value.toString('utf8');
    case 'floatValue':
      return float4Text(value.value);
    case 'doubleValue':
      if (oid === OID.timetz) break;
      return float8Text(value.value);
    case 'pointValue':
      return `(${float8Text(value.value.x)},${float8Text(value.value.y)})`;
    case 'int32Value':
      if (oid !== OID.date) return String(value.value);
      if (value.value === INT32_MAX) return 'infinity';
      if (value.value === INT32_MIN) return '-infinity';
      return dateText(value.value);
    case 'int64Value': {
      const n = value.value;
      if (oid === OID.money) break;
      if (oid === OID.time) return timeOfDayText(n);
      if (oid !== OID.timestamp && oid !== OID.timestamptz) return n.toString();
      if (n === INT64_MAX) return 'infinity';
      if (n === INT64_MIN) return '-infinity';
      if (oid === OID.timestamp) return timestampText(n);
      const offset = offsetText(Number(n / 1000n), timeZone);
      const local = timestampText(n + BigInt(offset.minutes) * 60_000_000n);
      return local.endsWith(' BC') ? `${local.slice(0, -3)}${offset.text} BC` : `${local}${offset.text}`;
    }
  }
  throw new TidewayError(
    ErrorCode.EXTERNAL_SYSTEM,
    `column '${v.name ?? '?'}' of table ${tableId} has type oid ${oid}, which decoderbufs sends without the offset or format its value needs (timetz, money): capture it with decoding.plugin.name = "pgoutput"`,
    { place },
  );
}
