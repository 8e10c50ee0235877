import type { DataType } from '@tideway/api';

/** Turns a value as zongji decodes it from a row event into the SeaTunnel value of a column type. */
export type BinlogValueConverter = (v: unknown) => unknown;

const same: BinlogValueConverter = (v) => v;
const toBool: BinlogValueConverter = (v) =>
  Buffer.isBuffer(v) ? v.length > 0 && v[v.length - 1] !== 0 : typeof v === 'boolean' ? v : Number(v) !== 0;
const toBigInt: BinlogValueConverter = (v) => (typeof v === 'bigint' ? v : BigInt(String(v)));
const toText: BinlogValueConverter = (v) =>
  Array.isArray(v) ? v.join(',') : Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : String(v);
const toTimestamp: BinlogValueConverter = (v) => {
  const s = String(v);
  return s.charCodeAt(10) === 32 ? `${s.slice(0, 10)}T${s.slice(11)}` : s;
};
const toBytes: BinlogValueConverter = (v) => (Buffer.isBuffer(v) ? v : typeof v === 'string' ? Buffer.from(v, 'binary') : v);
const toNumber: BinlogValueConverter = (v) => (typeof v === 'number' ? v : Number(v));

/** The converter for a column of SeaTunnel type `t` (as the Jdbc connector maps MySQL types). */
export function binlogConverter(t: DataType): BinlogValueConverter {
  switch (t.kind) {
    case 'boolean':
      return toBool;
    case 'bigint':
      return toBigInt;
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'float':
    case 'double':
      return toNumber;
    case 'decimal':
    case 'string':
    case 'date':
    case 'time':
      return toText;
    case 'timestamp':
      return toTimestamp;
    case 'bytes':
      return toBytes;
    default:
      return same;
  }
}
