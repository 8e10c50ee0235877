import { type Column, type DataType, formatType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';
import { javaDoubleText, javaFloatText } from './java-text.js';
import { type OrcStripeData, type OrcTail, orcColumns, orcStripeRows, readOrcStripe, readOrcTail } from './orc-reader.js';

/**
 * What an ORC source reads from each file: the file's columns (all, or read_columns), or, when
 * the source's schema has fields, the file's columns of those names (matched case-insensitively)
 * turned into the types the schema gives, as SeaTunnel's ORC reader casts them.
 */

type Cast = (v: unknown) => unknown;

const INTS = new Set(['tinyint', 'smallint', 'int', 'bigint']);
const NUMBERS = new Set([...INTS, 'float', 'double', 'decimal']);

/** The cast of a file value of type `from` to `to`, or undefined when none is defined. */
function castOf(from: DataType, to: DataType): Cast | undefined {
  if (formatType(from) === formatType(to)) return (v) => v;
  const notNull =
    (f: Cast): Cast =>
    (v) =>
      v === null || v === undefined ? null : f(v);
  if (to.kind === 'string') {
    if (from.kind === 'float') return notNull((v) => javaFloatText(v as number));
    if (from.kind === 'double') return notNull((v) => javaDoubleText(v as number));
    if (from.kind === 'bytes') return notNull((v) => Buffer.from(v as Uint8Array).toString('utf8'));
    if (from.kind === 'array' || from.kind === 'map' || from.kind === 'row') return undefined;
    return notNull((v) => String(v));
  }
  if (to.kind === 'bytes' && from.kind === 'string') return notNull((v) => Buffer.from(v as string, 'utf8'));
  if (INTS.has(to.kind) && INTS.has(from.kind)) return notNull(to.kind === 'bigint' ? (v) => BigInt(v as number) : (v) => Number(v));
  if ((to.kind === 'float' || to.kind === 'double') && NUMBERS.has(from.kind)) return notNull((v) => Number(v));
  if (to.kind === 'decimal' && (INTS.has(from.kind) || from.kind === 'decimal')) return notNull((v) => String(v));
  if (to.kind === 'time' && from.kind === 'timestamp') return notNull((v) => (v as string).slice(11));
  if (to.kind === 'date' && from.kind === 'timestamp') return notNull((v) => (v as string).slice(0, 10));
  if (to.kind === 'timestamp' && from.kind === 'date') return notNull((v) => `${v as string}T00:00:00`);
  if (to.kind === 'array' && from.kind === 'array') {
    const element = castOf(from.element, to.element);
    return element && notNull((v) => (v as unknown[]).map(element));
  }
  if (to.kind === 'map' && from.kind === 'map') {
    const key = castOf(from.key, to.key);
    const value = castOf(from.value, to.value);
    return key && value && notNull((v) => new Map([...(v as Map<unknown, unknown>)].map(([k, x]) => [key(k), value(x)])));
  }
  if (to.kind === 'row' && from.kind === 'row') {
    const picks = to.fields.map((f) => {
      const i = from.fields.findIndex((g) => g.name.toLowerCase() === f.name.toLowerCase());
      return i < 0 ? undefined : ([i, castOf(from.fields[i].type, f.type)] as const);
    });
    if (picks.some((p) => p === undefined || p[1] === undefined)) return undefined;
    const ps = picks as (readonly [number, Cast])[];
    return notNull((v) => ps.map(([i, c]) => c((v as unknown[])[i])));
  }
  return undefined;
}

/** A file's tail, the file columns read and the casts to the columns emitted. */
interface FilePlan {
  readonly path: string;
  readonly tail: OrcTail;
  readonly read: Column[];
  readonly casts: Cast[];
}

/**
 * Stripes read ahead of the one whose values are being made: two, so that the row-group thread
 * decoding them (orc-reader.ts) never waits for the next stripe's read.
 */
const READ_AHEAD = 2;

/** The rows of one stripe of an ORC file as the source emits them (before partition values). */
export type OrcStripeReader = (
  fs: FileSystemAdapter,
  path: string,
  stripe: number,
  offset: number,
  batchRows: number,
) => AsyncGenerator<unknown[][]>;

/**
 * A reader of stripes: of the schema's columns (`declared`), cast from the file's columns of the
 * same names, or of the file's own columns that `pick` picks (read_columns), found in each file
 * as it is read (readers run where the source did not read the first file's schema).
 */
export function orcStripeReader(
  declared: readonly Column[] | undefined,
  pick: (fileColumns: readonly Column[], path: string) => Column[],
): OrcStripeReader {
  const planOf = async (fs: FileSystemAdapter, path: string): Promise<FilePlan> => {
    const tail = await readOrcTail(fs, path);
    const fileColumns = orcColumns(tail);
    const emitted = declared ?? pick(fileColumns, path);
    const read: Column[] = [];
    const casts: Cast[] = [];
    for (const c of emitted) {
      const found = fileColumns.find((f) => f.name === c.name) ?? fileColumns.find((f) => f.name.toLowerCase() === c.name.toLowerCase());
      if (!found) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${path} has no column ${c.name} (its columns: ${fileColumns.map((f) => f.name).join(', ')}).`,
        );
      }
      const cast = declared ? castOf(found.type, c.type) : (v: unknown) => v;
      if (!cast) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `Column ${c.name} is ${formatType(found.type)} in ${path}, which cannot be read as the schema's ${formatType(c.type)}.`,
        );
      }
      read.push(found);
      casts.push(cast);
    }
    return { path, tail, read, casts };
  };
  /** The last file's tail and what is read of it: a file's stripes are mostly read one after the other by the same reader. */
  let last: FilePlan | undefined;
  /** The stripes after the last one asked for (up to READ_AHEAD), being read and decoded while that one's values are made. */
  let ahead: { path: string; stripe: number; read: Promise<OrcStripeData> }[] = [];
  return async function* (fs, path, stripe, offset, batchRows) {
    if (last?.path !== path) last = await planOf(fs, path);
    const { tail, read, casts } = last;
    const mine = ahead.find((a) => a.path === path && a.stripe === stripe);
    for (const a of ahead) {
      // stripes read ahead of another file, or passed over: their arenas go back (orc-arena.ts)
      if (a !== mine && (a.path !== path || a.stripe <= stripe))
        a.read.then(
          (d) => d.release?.(),
          () => undefined,
        );
    }
    ahead = ahead.filter((a) => a.path === path && a.stripe > stripe);
    const stripeRead = mine?.read ?? readOrcStripe(fs, tail, stripe, read);
    stripeRead.catch(() => undefined); // thrown where the rows are read
    for (let s = stripe + 1; s <= stripe + READ_AHEAD && s < tail.footer.stripes.length; s++) {
      if (ahead.some((a) => a.stripe === s)) continue;
      const next = { path, stripe: s, read: readOrcStripe(fs, tail, s, read) };
      next.read.catch(() => undefined); // its error, if any, is thrown when that stripe is asked for
      ahead.push(next);
    }
    const identity = declared === undefined;
    for await (const batch of orcStripeRows(fs, path, stripe, offset, read, batchRows, tail, stripeRead)) {
      if (!identity) for (const row of batch) for (let i = 0; i < casts.length; i++) row[i] = casts[i](row[i]);
      yield batch;
    }
  };
}
