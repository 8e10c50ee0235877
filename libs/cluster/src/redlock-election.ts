import type { Lock, Redlock } from '@sesamecare-oss/redlock';
import type { Redis } from 'ioredis';
import { detach, logger, onFirstUse, type Logger } from '@tideway/common';
import { extendLease } from './lease-extension.js';
import { RedisConnection } from './redis-connection.js';
import type { LeaderElection, LeadershipHandlers } from './leader-election.js';
import type { StateStore } from './state-store.js';

/** The Redlock package, loaded by the first election on Redis (HA deployments only). */
const redlock = onFirstUse<typeof import('@sesamecare-oss/redlock')>('@sesamecare-oss/redlock', import.meta.url);

/** Where the lease lives and how it is held. */
export interface RedlockElectionOptions {
  /** host:port of each independent Redis node (1, 3 or 5): a majority decides. */
  readonly nodes: readonly string[];
  readonly password?: string;
  /** The lease's key on every node (default `tideway:leader-lease`). */
  readonly key?: string;
  /** Milliseconds a lease lasts unless extended (default 5000). */
  readonly leaseTtlMs?: number;
  /** Milliseconds between a follower's attempts to take the lease (default 500, jittered). */
  readonly retryIntervalMs?: number;
  /** Where the epoch is claimed once the lease is taken. */
  readonly store: StateStore;
  /** This coordinator's address, recorded as the leader's. */
  readonly address: string;
  /**
   * The highest epoch this coordinator has seen elsewhere (e.g. in a worker's refusal of a stale
   * one); each claim is above it, even when the state Redis lost its count (default: 0).
   */
  readonly epochFloor?: () => number;
  /** Default: the `leader-election` component logger. */
  readonly logger?: Logger;
}

interface HeldLease {
  lock: Lock;
  /** When the lease ends unless extended (ms, wall clock: Redlock's validity, drift taken off). */
  expiresAt: number;
  epoch: number;
}

/**
 * Leader election over a Redlock lease on N independent Redis nodes
 * (@sesamecare-oss/redlock), with the fencing epoch claimed from the state store on every win.
 *
 * Redlock takes (`acquire`, one attempt per try) and releases the lease; this class holds it
 * with its own extend loop rather than Redlock's `using`: it extends every ttl/3 with a single
 * attempt per try (no hidden retry window that could outlast the lease), retries a failed
 * extension every retry interval until the lease's own expiration, takes the lease on nodes that
 * lack it (lease-extension.ts: a node down at acquisition would otherwise never hold it), and
 * checks the wall clock against the expiration before every extension, so a process that was
 * paused (SIGSTOP, a blocked event loop) never extends, or believes in, a lease that ran out
 * meanwhile. `leading` compares the clock with the expiration at every read: it is false as soon
 * as the lease ran out, even before any timer has run. On a loss `leading` turns false first,
 * then onLost(reason) is called, then candidacy goes on. Safety still comes from the epoch:
 * another coordinator may hold the lease before a paused one notices (stack.md).
 *
 * onElected runs while the lease is being extended; if the lease is lost meanwhile, onLost is
 * called even though onElected has not finished. If onElected throws, this coordinator steps
 * down (onLost) and contends again.
 */
export class RedlockElection implements LeaderElection {
  readonly description: string;
  private readonly connections: RedisConnection[];
  private readonly clients: Redis[];
  private readonly redlock: Redlock;
  private readonly key: string;
  private readonly ttl: number;
  private readonly retryInterval: number;
  private readonly log: Logger;
  private handlers?: LeadershipHandlers;
  private lease?: HeldLease;
  private running = false;
  private loop?: Promise<void>;
  /** Ends the current sleep early (stop, or a failed onElected). */
  private wake?: () => void;
  private stepDownReason?: string;
  private storeDown = false;
  /** After a resign: no attempt to take the lease before this (ms since epoch). */
  private resignedUntil = 0;
  /** Resolves the resign() under way once the lease is released. */
  private resigned?: () => void;

  constructor(private readonly options: RedlockElectionOptions) {
    if (options.nodes.length === 0) throw new Error('RedlockElection needs at least one Redis node');
    this.key = options.key ?? 'tideway:leader-lease';
    this.ttl = options.leaseTtlMs ?? 5000;
    this.retryInterval = options.retryIntervalMs ?? 500;
    this.log = options.logger ?? logger('leader-election', { address: options.address });
    this.description = `Redlock lease ${this.key} on ${options.nodes.join(', ')}`;
    this.connections = options.nodes.map(
      (address) =>
        new RedisConnection({
          address,
          password: options.password,
          connectTimeoutMs: Math.max(this.ttl, 1000),
          // A node that accepted the connection but hangs must not hold a vote past a third of the lease.
          commandTimeoutMs: Math.max(50, Math.floor(this.ttl / 3)),
          queueWhileReconnecting: false,
          role: 'lock node',
          log: this.log,
        }),
    );
    this.clients = this.connections.map((c) => c.client);
    this.redlock = new (redlock().Redlock)(this.clients, { retryCount: 0, driftFactor: 0.01 });
  }

  /** Whether the lease is held and its expiration has not passed, read from the clock now. */
  get leading(): boolean {
    return this.lease !== undefined && Date.now() < this.lease.expiresAt;
  }

  private stopped = false;

  start(handlers: LeadershipHandlers): void {
    if (this.running) throw new Error('RedlockElection.start was called twice');
    // stop() closed the lock nodes' connections: a coordinator that resigns makes a new election.
    if (this.stopped) throw new Error('RedlockElection.start after stop(): make a new election to contend again');
    this.handlers = handlers;
    this.running = true;
    const connected = this.connections.map((c) => c.connectInBackground(this.ttl));
    this.loop = this.untilMajorityConnected(connected).then(() => this.contend());
  }

  /** The first attempt waits for a majority of connections (or their failure): offline votes are lost votes. */
  private async untilMajorityConnected(connected: Promise<boolean>[]): Promise<void> {
    const majority = Math.floor(connected.length / 2) + 1;
    let ready = 0;
    let settled = 0;
    await new Promise<void>((resolve) => {
      for (const c of connected) {
        detach(
          c.then((ok) => {
            settled++;
            if (ok) ready++;
            if (ready >= majority || settled === connected.length) resolve();
          }),
          'connecting to a Redis node',
        );
      }
    });
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await Promise.all(this.connections.map((c) => c.close()));
  }

  async resign(pauseMs: number): Promise<void> {
    if (!this.lease) return;
    this.resignedUntil = Date.now() + pauseMs;
    const released = new Promise<void>((resolve) => (this.resigned = resolve));
    this.stepDownReason = 'resigned: handing the leadership over';
    this.wake?.();
    await released;
  }

  private async contend(): Promise<void> {
    while (this.running) {
      if (Date.now() < this.resignedUntil) {
        await this.sleep(this.resignedUntil - Date.now());
        continue;
      }
      const lease = await this.acquire();
      if (!lease) {
        await this.sleep(this.jittered(this.retryInterval));
        continue;
      }
      this.lease = lease;
      this.stepDownReason = undefined;
      this.log.info({ epoch: lease.epoch }, `elected leader with epoch ${lease.epoch}`);
      detach(this.elected(lease.epoch), 'taking the leadership up');
      const reason = await this.hold(lease);
      this.lease = undefined; // leading is false before anyone hears of the loss
      try {
        this.handlers!.onLost(reason);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'onLost threw');
      }
      const resigned = this.resigned;
      this.resigned = undefined;
      const handedOver = resigned !== undefined || reason === 'stopped';
      if (!handedOver) this.log.warn({ epoch: lease.epoch, reason }, `lost the leader lease of epoch ${lease.epoch}: ${reason}`);
      await this.release(lease.lock);
      if (handedOver)
        this.log.info(
          { epoch: lease.epoch },
          `released the leader lease of epoch ${lease.epoch}: ${resigned ? 'handed over' : 'stopping'}`,
        );
      resigned?.();
    }
  }

  /** Takes the lease and claims an epoch, or undefined (held by another, too few nodes, store down). */
  private async acquire(): Promise<HeldLease | undefined> {
    let lock: Lock;
    try {
      lock = await this.redlock.acquire([this.key], this.ttl);
    } catch {
      return undefined; // held elsewhere, or too few nodes answered: node outages are logged by their connections
    }
    let epoch: number;
    try {
      epoch = await this.options.store.claimEpoch(this.options.address, this.options.epochFloor?.() ?? 0);
      if (this.storeDown) this.log.info(`the state store (${this.options.store.description}) answers again`);
      this.storeDown = false;
    } catch (err) {
      if (!this.storeDown) {
        this.log.warn(
          { reason: (err as Error).message },
          `took the leader lease but cannot claim an epoch: ${(err as Error).message}; retrying quietly`,
        );
      }
      this.storeDown = true;
      await this.release(lock);
      return undefined;
    }
    if (!this.running || Date.now() >= lock.expiration) {
      // Stopped, or the claim outlasted the lease: the epoch is spent, which is harmless.
      await this.release(lock);
      return undefined;
    }
    return { lock, expiresAt: lock.expiration, epoch };
  }

  private async elected(epoch: number): Promise<void> {
    try {
      await this.handlers!.onElected(epoch);
    } catch (err) {
      this.log.error(
        { epoch, err: (err as Error).message },
        `onElected of epoch ${epoch} failed: ${(err as Error).message}; stepping down`,
      );
      if (this.lease?.epoch === epoch) {
        this.stepDownReason = `onElected failed: ${(err as Error).message}`;
        this.wake?.();
      }
    }
  }

  /**
   * Extends the lease every ttl/3 until it is lost; returns why. A failed extension is retried
   * every retry interval while the lease lasts.
   */
  private async hold(lease: HeldLease): Promise<string> {
    let nextExtend = Date.now() + this.ttl / 3;
    for (;;) {
      if (!this.running) return 'stopped';
      if (this.stepDownReason) return this.stepDownReason;
      const now = Date.now();
      if (now >= lease.expiresAt) return `the lease expired at ${new Date(lease.expiresAt).toISOString()} before it could be extended`;
      if (now < nextExtend) {
        await this.sleep(Math.min(nextExtend, lease.expiresAt) - now);
        continue;
      }
      const expiresAt = await extendLease(this.clients, this.key, lease.lock.value, this.ttl);
      if (expiresAt !== undefined) {
        lease.expiresAt = expiresAt;
        nextExtend = Date.now() + this.ttl / 3;
      } else {
        // Too few nodes took the extension: try again soon, while the lease lasts.
        nextExtend = Date.now() + Math.min(this.retryInterval, this.ttl / 3);
      }
    }
  }

  private async release(lock: Lock): Promise<void> {
    try {
      await lock.release();
    } catch {
      // A lease that cannot be released expires by itself within its ttl.
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** ±20 %, so that followers do not all try at the same moment. */
  private jittered(ms: number): number {
    return Math.round(ms * (0.8 + Math.random() * 0.4));
  }
}
