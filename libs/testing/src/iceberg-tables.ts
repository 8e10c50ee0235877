import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ICEBERG_PEERS_DIR } from './iceberg-peers.js';

const run = promisify(execFile);
const PYTHON = join(ICEBERG_PEERS_DIR, 'venv', 'bin', 'python');
// beside this file in src/ (also when this module runs from dist/)
const SCRIPT = join(import.meta.dirname, '..', 'src', 'iceberg_tables.py');

/** The shape of a Tideway DataType this module needs (@tideway/api's, without depending on it). */
export interface CanonType {
  readonly kind: string;
  readonly element?: CanonType;
  readonly key?: CanonType;
  readonly value?: CanonType;
  readonly fields?: readonly { readonly name: string; readonly type: CanonType }[];
}

/** A table PyIceberg builds (iceberg_tables.py make): columns as [name, Iceberg type, required], rows in canonical JSON. */
export interface IcebergRecipe {
  readonly warehouse: string;
  readonly namespace: string;
  readonly table: string;
  /** The steps go on with the table there (its hadoop layout's latest version); schema, partition and properties are not used. */
  readonly existing?: boolean;
  /** The table is made in this SqlCatalog (a SQLAlchemy URI and the catalog's name) instead of a hadoop folder. */
  readonly sql?: { readonly uri: string; readonly catalog: string };
  readonly schema: readonly (readonly [string, string, boolean])[];
  readonly partition?: readonly (readonly [string, string])[];
  readonly properties?: Readonly<Record<string, string>>;
  readonly steps: readonly (
    | { readonly append: readonly (readonly unknown[])[] }
    | { readonly delete: string }
    | { readonly evolve: readonly (readonly string[])[] }
    | { readonly spec: readonly (readonly [string, string])[] }
    | { readonly properties: Readonly<Record<string, string>> }
    | { readonly position_delete: readonly (readonly [number, number])[] }
  )[];
}

export interface MadeIcebergTable {
  /** The current snapshot's id after each step. */
  readonly snapshots: (string | null)[];
  /** The table's last metadata file (the hadoop layout's vN.metadata.json). */
  readonly metadata: string;
  /** The data files of the current snapshot, sorted. */
  readonly files: string[];
}

/** Builds a table with PyIceberg in `recipe.warehouse`, in the hadoop catalog's layout (replacing one there). */
export async function makeIcebergTable(recipe: IcebergRecipe): Promise<MadeIcebergTable> {
  const child = run(PYTHON, [SCRIPT, 'make'], { maxBuffer: 1 << 26 });
  child.child.stdin!.end(JSON.stringify(recipe));
  const { stdout } = await child;
  return JSON.parse(stdout) as MadeIcebergTable;
}

/** PyIceberg's scan of the table of a metadata file (at a snapshot, with a row filter): canonical rows (iceberg_peer.py's canon), in sortCanonical's order. */
export async function pyicebergScan(
  metadata: string,
  snapshotId?: string,
  filter?: string,
): Promise<{ columns: string[]; rows: unknown[][] }> {
  const args = [SCRIPT, 'scan', metadata, snapshotId ?? '-', ...(filter ? [filter] : [])];
  const { stdout } = await run(PYTHON, args, { maxBuffer: 1 << 28 });
  const out = JSON.parse(stdout) as { columns: string[]; rows: unknown[][] };
  return { columns: out.columns, rows: sortCanonical(out.rows) };
}

/** A temporal text with its fraction as Python's isoformat writes it (six digits, none when zero). */
function pythonTemporal(v: string): string {
  const m = /^((?:\d{4}-\d{2}-\d{2}T)?\d{2}:\d{2}:\d{2})(?:\.(\d+))?(\+00:00)?$/.exec(v);
  if (!m) return v;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return `${m[1]}${/^0*$/.test(frac) ? '' : `.${frac}`}${m[3] ?? ''}`;
}

/** A Tideway value of `type` in iceberg_peer.py's canonical form, to compare rows with PyIceberg's. */
export function canonicalValue(type: CanonType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return typeof v === 'bigint' ? v.toString() : String(Number(v));
    case 'bytes':
      return Buffer.from(v as Uint8Array).toString('hex');
    case 'time':
    case 'timestamp':
    case 'timestamp_tz':
      return pythonTemporal(v as string);
    case 'array':
      return (v as unknown[]).map((e) => canonicalValue(type.element!, e));
    case 'map':
      return [...(v as Map<unknown, unknown>)].map(([k, x]) => [canonicalValue(type.key!, k), canonicalValue(type.value!, x)]);
    case 'row':
      return type.fields!.map((f, i) => [f.name, canonicalValue(f.type, (v as unknown[])[i])]);
    default:
      return v;
  }
}

/** Rows of `types` in canonical form, sorted by sortCanonical. */
export function canonicalRows(types: readonly CanonType[], rows: readonly (readonly unknown[])[]): unknown[][] {
  return sortCanonical(rows.map((r) => types.map((t, i) => canonicalValue(t, r[i]))));
}

/** Canonical rows sorted by their JSON text (PyIceberg's rows are sorted again by it: Python's JSON has other separators). */
export function sortCanonical(rows: readonly unknown[][]): unknown[][] {
  return [...rows].sort((a, b) => {
    const x = JSON.stringify(a);
    const y = JSON.stringify(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
