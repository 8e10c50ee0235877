import { randomUUID } from 'node:crypto';
import type { IcebergSchema } from './schema.js';

/**
 * Iceberg table metadata (format version 2, the JSON of a metadata file): what Tideway reads and
 * writes of it. Fields it does not know are kept as they are when it writes the next version.
 * Snapshot ids are bigints: they use all 63 bits, past what a JSON number keeps in JavaScript.
 */

export interface PartitionFieldSpec {
  readonly 'source-id': number;
  readonly 'field-id': number;
  readonly name: string;
  readonly transform: string;
}

export interface PartitionSpec {
  readonly 'spec-id': number;
  readonly fields: readonly PartitionFieldSpec[];
}

export interface Snapshot {
  readonly 'snapshot-id': bigint;
  readonly 'parent-snapshot-id'?: bigint;
  readonly 'sequence-number': number;
  readonly 'timestamp-ms': number;
  readonly 'manifest-list': string;
  readonly summary: Readonly<Record<string, string>>;
  readonly 'schema-id'?: number;
}

export interface TableMetadata {
  readonly 'format-version': number;
  readonly 'table-uuid': string;
  readonly location: string;
  readonly 'last-sequence-number': number;
  readonly 'last-updated-ms': number;
  readonly 'last-column-id': number;
  readonly 'current-schema-id': number;
  readonly schemas: readonly IcebergSchema[];
  readonly 'default-spec-id': number;
  readonly 'partition-specs': readonly PartitionSpec[];
  readonly 'last-partition-id': number;
  readonly properties?: Readonly<Record<string, string>>;
  readonly 'current-snapshot-id'?: bigint | null;
  readonly snapshots?: readonly Snapshot[];
  readonly 'snapshot-log'?: readonly { 'timestamp-ms': number; 'snapshot-id': bigint }[];
  readonly 'metadata-log'?: readonly { 'timestamp-ms': number; 'metadata-file': string }[];
  readonly refs?: Readonly<Record<string, { 'snapshot-id': bigint; type: string }>>;
  readonly [other: string]: unknown;
}

const BIG = '\u0000big:';

/**
 * Parses metadata JSON keeping integers past 2^53 exact (as bigints): the text is scanned once and
 * such numbers, outside strings, are read as marked strings first.
 */
export function parseMetadataJson(text: string): TableMetadata {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const num = text.slice(i, j);
      if (/^-?\d{16,}$/.test(num) && !Number.isSafeInteger(Number(num))) {
        out += `${text.slice(last, i)}"\\u0000big:${num}"`; // escaped: a raw control character is not JSON
        last = j;
      }
      i = j - 1;
    }
  }
  out += text.slice(last);
  const parsed = JSON.parse(out, (_k, v: unknown) =>
    typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v,
  ) as Record<string, unknown>;
  return withBigIds(parsed) as TableMetadata;
}

/** Snapshot ids as bigints wherever they are (small ones came back as numbers). */
function withBigIds(m: Record<string, unknown>): Record<string, unknown> {
  const big = (v: unknown): unknown => (typeof v === 'number' ? BigInt(v) : v);
  const snapshots = (m.snapshots as Record<string, unknown>[] | undefined)?.map((s) => ({
    ...s,
    'snapshot-id': big(s['snapshot-id']),
    ...(s['parent-snapshot-id'] !== undefined && s['parent-snapshot-id'] !== null
      ? { 'parent-snapshot-id': big(s['parent-snapshot-id']) }
      : {}),
  }));
  const log = (m['snapshot-log'] as Record<string, unknown>[] | undefined)?.map((e) => ({ ...e, 'snapshot-id': big(e['snapshot-id']) }));
  const refs = m.refs
    ? Object.fromEntries(
        Object.entries(m.refs as Record<string, Record<string, unknown>>).map(([k, r]) => [
          k,
          { ...r, 'snapshot-id': big(r['snapshot-id']) },
        ]),
      )
    : undefined;
  return {
    ...m,
    ...(snapshots ? { snapshots } : {}),
    ...(log ? { 'snapshot-log': log } : {}),
    ...(refs ? { refs } : {}),
    ...(m['current-snapshot-id'] !== undefined && m['current-snapshot-id'] !== null
      ? { 'current-snapshot-id': big(m['current-snapshot-id']) }
      : {}),
  };
}

/** Metadata JSON with bigints written as JSON integers. */
export function stringifyMetadata(m: TableMetadata): string {
  const text = JSON.stringify(m, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v}` : v), 2);
  return text.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

/** A new random snapshot id: positive, 63 bits. */
export function newSnapshotId(): bigint {
  const hex = randomUUID().replace(/-/g, '').slice(0, 16);
  const id = BigInt(`0x${hex}`) & 0x7fffffffffffffffn;
  return id === 0n ? 1n : id;
}

export function newTableMetadata(
  location: string,
  schema: IcebergSchema,
  lastColumnId: number,
  spec: PartitionSpec,
  properties: Record<string, string>,
): TableMetadata {
  return {
    'format-version': 2,
    'table-uuid': randomUUID(),
    location,
    'last-sequence-number': 0,
    'last-updated-ms': Date.now(),
    'last-column-id': lastColumnId,
    'current-schema-id': schema['schema-id'],
    schemas: [schema],
    'default-spec-id': spec['spec-id'],
    'partition-specs': [spec],
    'last-partition-id': Math.max(999, ...spec.fields.map((f) => f['field-id'])),
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties,
    'current-snapshot-id': null,
    refs: {},
    snapshots: [],
    statistics: [],
    'partition-statistics': [],
    'snapshot-log': [],
    'metadata-log': [],
  };
}

export function currentSchema(m: TableMetadata): IcebergSchema {
  const s = m.schemas.find((x) => x['schema-id'] === m['current-schema-id']);
  if (!s) throw new Error(`The table at ${m.location} has no schema ${m['current-schema-id']} (its current-schema-id).`);
  return s;
}

export function defaultSpec(m: TableMetadata): PartitionSpec {
  const s = m['partition-specs'].find((x) => x['spec-id'] === m['default-spec-id']);
  if (!s) throw new Error(`The table at ${m.location} has no partition spec ${m['default-spec-id']} (its default-spec-id).`);
  return s;
}

export function currentSnapshot(m: TableMetadata): Snapshot | undefined {
  const id = m['current-snapshot-id'];
  if (id === undefined || id === null || id === -1n) return undefined;
  return m.snapshots?.find((s) => s['snapshot-id'] === id);
}

/** The current snapshot and its ancestors, newest first. */
export function* ancestry(m: TableMetadata): Generator<Snapshot> {
  const byId = new Map((m.snapshots ?? []).map((s) => [s['snapshot-id'], s]));
  let s = currentSnapshot(m);
  while (s) {
    yield s;
    const parent = s['parent-snapshot-id'];
    s = parent === undefined ? undefined : byId.get(parent);
  }
}

/** The next metadata: `snapshot` added and made current on main; `previousFile` goes to the metadata log. */
export function withSnapshot(base: TableMetadata, snapshot: Snapshot, previousFile: string | undefined): TableMetadata {
  const now = snapshot['timestamp-ms'];
  return {
    ...base,
    'last-sequence-number': snapshot['sequence-number'],
    'last-updated-ms': now,
    'current-snapshot-id': snapshot['snapshot-id'],
    snapshots: [...(base.snapshots ?? []), snapshot],
    'snapshot-log': [...(base['snapshot-log'] ?? []), { 'timestamp-ms': now, 'snapshot-id': snapshot['snapshot-id'] }],
    'metadata-log': withLog(base, previousFile),
    refs: { ...(base.refs ?? {}), main: { 'snapshot-id': snapshot['snapshot-id'], type: 'branch' } },
  };
}

function withLog(base: TableMetadata, previousFile: string | undefined): TableMetadata['metadata-log'] {
  const log = base['metadata-log'] ?? [];
  return previousFile ? [...log, { 'timestamp-ms': base['last-updated-ms'], 'metadata-file': previousFile }] : log;
}
