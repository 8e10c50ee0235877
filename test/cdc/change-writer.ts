/**
 * The stream of changes CDC tests capture: inserts, updates (some of the key itself) and
 * deletes on several keys of `accounts` and `items`, and an insert-only `audit` table, in transactions of one to three
 * statements. Every written row carries `version`, a counter that grows with every change, so a
 * target that applies a change twice, or an old change after a newer one, shows it (see
 * write-log.ts). The writer is the only one writing, so it knows which keys exist.
 */

/** Runs statements in one transaction. */
export type RunTransaction = (statements: readonly string[]) => Promise<void>;

/** The source tables, as DDL that both PostgreSQL and MariaDB accept. */
export const SOURCE_TABLES = {
  accounts: 'CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL, note varchar(40), version bigint NOT NULL)',
  items: 'CREATE TABLE items (sku varchar(20) PRIMARY KEY, qty int, version bigint NOT NULL)',
  audit: 'CREATE TABLE audit (id bigint PRIMARY KEY, account int NOT NULL, delta bigint NOT NULL, version bigint NOT NULL)',
} as const;

/** Each table's key column and the column order used to compare contents. */
export const TABLE_KEYS: Readonly<Record<keyof typeof SOURCE_TABLES, string>> = { accounts: 'id', items: 'sku', audit: 'id' };

const ACCOUNT_IDS = 40;
const SKUS = 20;

/** A small deterministic PRNG (mulberry32): the same seed makes the same stream. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ChangeWriter {
  private version = 0;
  private auditId = 0;
  private readonly accounts = new Set<number>();
  private readonly items = new Set<string>();
  private readonly rnd: () => number;
  private running?: Promise<void>;
  private stopping = false;
  /** Transactions committed so far. */
  transactions = 0;
  /** Changes (rows inserted, updated or deleted) committed so far. */
  changes = 0;
  /** Every committed transaction's statements, in order (for failure messages). */
  readonly history: string[][] = [];

  constructor(
    private readonly run: RunTransaction,
    seed = 7,
  ) {
    this.rnd = random(seed);
  }

  /** Fills the tables with a first state (before the job starts: the snapshot reads it). */
  async seed(): Promise<void> {
    const statements: string[] = [];
    for (let id = 1; id <= ACCOUNT_IDS / 2; id++) statements.push(this.insertAccount(id));
    for (let i = 1; i <= SKUS / 2; i++) statements.push(this.insertItem(`sku-${i}`));
    for (let i = 0; i < 5; i++) statements.push(this.insertAudit(1 + i, 10 * i));
    await this.run(statements);
    this.history.push(statements);
  }

  /** Starts writing one transaction every `pauseMs` until stop(). */
  start(pauseMs: number): void {
    this.running = (async () => {
      while (!this.stopping) {
        const t = this.nextTransaction();
        await this.run(t);
        this.history.push(t);
        this.transactions++;
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    })();
  }

  /** Writes `n` transactions now. */
  async burst(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const t = this.nextTransaction();
      await this.run(t);
      this.history.push(t);
      this.transactions++;
    }
  }

  /** Stops the loop after the transaction in flight; rethrows its failure. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** The committed statements that name `key` (e.g. `sku-20` or `id = 7`), with their transaction's index. */
  statementsAbout(key: string): string[] {
    const out: string[] = [];
    this.history.forEach((t, i) => {
      for (const st of t)
        if (st.includes(`'${key}'`) || st.includes(`(${key},`) || st.includes(`id = ${key} `) || st.endsWith(`id = ${key}`))
          out.push(`#${i}: ${st}`);
    });
    return out;
  }

  private pick<T>(values: Iterable<T>): T | undefined {
    const list = [...values];
    return list.length === 0 ? undefined : list[Math.floor(this.rnd() * list.length)];
  }

  private nextTransaction(): string[] {
    const size = 1 + Math.floor(this.rnd() * 3);
    const out: string[] = [];
    for (let i = 0; i < size; i++) out.push(...this.nextChange());
    return out;
  }

  private nextChange(): string[] {
    const r = this.rnd();
    if (r < 0.4) {
      const id = this.pick(this.accounts);
      if (id === undefined) return [];
      const delta = Math.floor(this.rnd() * 200) - 100;
      this.changes++;
      return [
        `UPDATE accounts SET balance = balance + ${delta}, note = 'u${this.version + 1}', version = ${++this.version} WHERE id = ${id}`,
        this.insertAudit(id, delta),
      ];
    }
    if (r < 0.55) {
      const free = [...Array(ACCOUNT_IDS).keys()].map((i) => i + 1).filter((id) => !this.accounts.has(id));
      const id = this.pick(free);
      return id === undefined ? [] : [this.insertAccount(id), this.insertAudit(id, 0)];
    }
    if (r < 0.6) {
      // A key change: the old key must go (UPDATE_BEFORE) and the new one appear.
      const id = this.pick(this.accounts);
      const to = this.pick([...Array(ACCOUNT_IDS).keys()].map((i) => i + 1).filter((k) => !this.accounts.has(k)));
      if (id === undefined || to === undefined) return [];
      this.accounts.delete(id);
      this.accounts.add(to);
      this.changes++;
      return [`UPDATE accounts SET id = ${to}, version = ${++this.version} WHERE id = ${id}`];
    }
    if (r < 0.65) {
      const id = this.pick(this.accounts);
      if (id === undefined) return [];
      this.accounts.delete(id);
      this.changes++;
      return [`DELETE FROM accounts WHERE id = ${id}`];
    }
    if (r < 0.7) {
      const sku = this.pick(this.items);
      const to = `sku-${1 + Math.floor(this.rnd() * SKUS)}`;
      if (sku === undefined || this.items.has(to)) return [];
      this.items.delete(sku);
      this.items.add(to);
      this.changes++;
      return [`UPDATE items SET sku = '${to}', version = ${++this.version} WHERE sku = '${sku}'`];
    }
    if (r < 0.88) {
      const sku = `sku-${1 + Math.floor(this.rnd() * SKUS)}`;
      if (!this.items.has(sku)) return [this.insertItem(sku)];
      this.changes++;
      const qty = this.rnd() < 0.2 ? 'NULL' : String(Math.floor(this.rnd() * 1000));
      return [`UPDATE items SET qty = ${qty}, version = ${++this.version} WHERE sku = '${sku}'`];
    }
    const sku = this.pick(this.items);
    if (sku === undefined) return [];
    this.items.delete(sku);
    this.changes++;
    return [`DELETE FROM items WHERE sku = '${sku}'`];
  }

  private insertAccount(id: number): string {
    this.accounts.add(id);
    this.changes++;
    return `INSERT INTO accounts (id, balance, note, version) VALUES (${id}, ${id * 100}, 'n${id}', ${++this.version})`;
  }

  private insertItem(sku: string): string {
    this.items.add(sku);
    this.changes++;
    return `INSERT INTO items (sku, qty, version) VALUES ('${sku}', ${Math.floor(this.rnd() * 1000)}, ${++this.version})`;
  }

  private insertAudit(account: number, delta: number): string {
    this.changes++;
    return `INSERT INTO audit (id, account, delta, version) VALUES (${++this.auditId}, ${account}, ${delta}, ${++this.version})`;
  }
}
