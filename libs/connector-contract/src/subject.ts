import { newCatalogTable, Types, type CatalogTable, type Row, type SinkFactory } from '@tideway/api';

/** The checks of the sink contract, in the order they run and appear in docs/plugins.md. */
export const SINK_CHECKS = [
  'exactly-once-restore',
  'commit-idempotence',
  'abort-after-prepare',
  'failure-in-every-method',
  'cancellation',
  'multi-table',
  'schema-change',
  'bad-options',
] as const;
export type SinkCheck = (typeof SINK_CHECKS)[number];

/** What each check promises, as docs/plugins.md's table heads explain it. */
export const SINK_CHECK_TITLES: Record<SinkCheck, string> = {
  'exactly-once-restore': 'exactly once through a restore at every checkpoint',
  'commit-idempotence': 'a commit replayed (by the same or a restored committer) changes nothing',
  'abort-after-prepare': 'abort after prepare leaves nothing',
  'failure-in-every-method': 'a failure before or after every call of every method, then a restore: still exactly once',
  cancellation: 'a cancelled job leaves only what its completed checkpoints committed',
  'multi-table': 'rows of two tables each reach their own target',
  'schema-change': 'an added column, across a restore',
  'bad-options': 'a bad option is refused in one sentence naming it',
};

/**
 * How a sink delivers across a restore:
 * - `exactly-once`: two-phase commit; rows appear when their checkpoint commits, each once.
 * - `idempotent`: rows appear when written; a restore writes some again, but a row overwrites
 *   itself (an upsert by key), so the target ends with each row once.
 * - `at-least-once`: a restore writes some rows again as new records: no row is lost, some may
 *   be there twice.
 */
export type Delivery = 'exactly-once' | 'idempotent' | 'at-least-once';

/** A row as read back: column name to value. */
export type ReadRow = Record<string, unknown>;

/** One way to reach a sink's target, built per scenario: each scenario gets a fresh, empty one. */
export interface SinkTarget {
  /** The sink's options writing into this target (the tables it receives are `tables`). */
  readonly options: Record<string, unknown>;
  /**
   * What the target holds now for `table`, committed rows only (a reader that another process
   * would use: SQL, a file reader, a consumer). Values may come back as text: the contract
   * compares them as text.
   */
  readBack(table: CatalogTable): Promise<ReadRow[]>;
  /** Optional: ends a scenario (drops the target). */
  drop?(): Promise<void>;
}

/** A bad option and the name its refusal must carry. */
export interface BadOption {
  /** Options laid over a valid target's options (a key set to undefined is removed). */
  readonly options: Record<string, unknown>;
  /** The option the one-sentence refusal names. */
  readonly option: string;
}

/** The sink under test: its factory, how to make a target and read it back, and what does not apply. */
export interface SinkSubject {
  /** As in docs/plugins.md's table, e.g. `Jdbc (PostgreSQL, XA)`. */
  readonly name: string;
  readonly factory: SinkFactory;
  readonly delivery: Delivery;
  /**
   * A fresh, empty target named after `id` (unique per scenario: a table, a folder, a key
   * prefix, a topic) for the given input tables; may use `${table_name}` to route by table.
   */
  target(id: string, tables: readonly CatalogTable[]): Promise<SinkTarget> | SinkTarget;
  /** Checks that do not apply to this sink, each with the reason (it is shown in docs/plugins.md). */
  readonly notApplicable?: Partial<Record<SinkCheck, string>>;
  /** Options the sink must refuse, each naming its option (an unknown option is always tried too). */
  readonly badOptions?: readonly BadOption[];
  /** Writer parallelism of every scenario (default 2: subtasks must not collide). */
  readonly parallelism?: number;
  /**
   * `every-call` (default) fails each call of each method in turn; `first-call` only the first
   * of each (for sinks whose targets are slow to make, e.g. a topic per scenario).
   */
  readonly failureCalls?: 'every-call' | 'first-call';
}

/** The contract's tables: `items` for single-table checks, `items` and `parts` for multi-table rows. */
export const ITEMS: CatalogTable = newCatalogTable(
  { database: 'contract', table: 'items' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true },
  ],
  { primaryKey: { name: 'pk_items', columns: ['id'] } },
);

export const PARTS: CatalogTable = newCatalogTable(
  { database: 'contract', table: 'parts' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'label', type: Types.STRING, nullable: true },
    { name: 'qty', type: Types.INT, nullable: true },
  ],
  { primaryKey: { name: 'pk_parts', columns: ['id'] } },
);

/** `count` rows of `items`, ids from `first`, as batches of `batch`. */
export function itemBatches(first: number, count: number, batch: number): Row[][] {
  const out: Row[][] = [];
  for (let i = 0; i < count; i += batch) {
    const b: Row[] = [];
    for (let id = first + i; id < first + Math.min(count, i + batch); id++) b.push(itemRow(id));
    out.push(b);
  }
  return out;
}

export function itemRow(id: number): Row {
  return { kind: '+I', tableId: ITEMS.tableId, fields: [id, `item-${id}`] };
}

export function partRow(id: number): Row {
  return { kind: '+I', tableId: PARTS.tableId, fields: [id, `part-${id}`, id * 10] };
}
