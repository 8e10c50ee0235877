import { logger } from '@tideway/common';
import type { TokenEntry } from './auth.js';

const log = logger('auth');

/** Where tokens beyond the engine config's come from: the cluster's state store. */
export type StoredTokenSource = () => Promise<readonly TokenEntry[]>;

/**
 * How old the stored tokens may be before a call reads them again: a revoked token stops
 * working within this long. A token the table does not know is looked up at once (at most once
 * per MISS_REFRESH_MS), so a new one works on its first call.
 */
export const STORED_TOKENS_MAX_AGE_MS = 5000;
const MISS_REFRESH_MS = 200;

/**
 * The tokens a process accepts: those of its engine config (fixed) and those of the state store
 * (read again when older than STORED_TOKENS_MAX_AGE_MS, or when a call brings a token the
 * table does not know). Authentication is on when the engine config has tokens (or client
 * certificates: `certificates`); the state store alone never turns it on.
 */
export class TokenTable {
  private stored: readonly TokenEntry[] = [];
  private loadedAt = 0;
  private loading?: Promise<void>;
  private source?: StoredTokenSource;

  constructor(
    readonly config: readonly TokenEntry[],
    private readonly certificates = false,
  ) {}

  /** Whether calls need a token (or a client certificate) at all. */
  get enabled(): boolean {
    return this.config.length > 0 || this.certificates;
  }

  /** Reads the state store's tokens from now on (they are read at the next call). */
  useSource(source: StoredTokenSource | undefined): void {
    this.source = source;
    this.stored = [];
    this.loadedAt = 0;
  }

  /** The stored tokens changed (added or revoked here): the next call reads them again. */
  invalidate(): void {
    this.loadedAt = 0;
  }

  /** Every token accepted now (as last read). */
  entries(): readonly TokenEntry[] {
    return this.stored.length ? [...this.config, ...this.stored] : this.config;
  }

  /**
   * Brings the stored tokens up to date for a call bringing `known` (whether the table knows
   * its token): read when too old, or when the token is unknown and the last read is not fresh.
   * A failed read keeps the last tokens (the engine config's always work) and is logged.
   */
  async refresh(known: boolean): Promise<void> {
    if (!this.source || !this.enabled) return;
    const age = Date.now() - this.loadedAt;
    if (age < STORED_TOKENS_MAX_AGE_MS && (known || age < MISS_REFRESH_MS)) return;
    this.loading ??= this.load(this.source).finally(() => {
      this.loading = undefined;
    });
    await this.loading;
  }

  private async load(source: StoredTokenSource): Promise<void> {
    try {
      this.stored = await source();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'could not read the tokens of the state store: using those read before');
    }
    this.loadedAt = Date.now();
  }
}
