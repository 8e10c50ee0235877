import { ErrorCode, TidewayError, logger, type Logger } from '@tideway/common';
import { RedisConnection, isServerReply } from './redis-connection.js';
import { STALE_REPLY, defineStateScripts, type ScriptCall, type ScriptName } from './redis-state-scripts.js';
import { decodeJob, decodeJobs } from './redis-state-codec.js';
import {
  StaleEpochError,
  StateStoreError,
  type CheckpointPointer,
  type CoordinatorRecord,
  type LeaderRecord,
  type StateStore,
  type StoredJob,
  type StoredJobInfo,
  type StoredJobState,
} from './state-store.js';
import type { StoredToken, TokenStore } from './token-store.js';
import { OLDEST_READABLE_STATE_FORMAT, STATE_FORMAT_VERSION } from './state-format.js';

/** Where the state lives and how hard a critical write waits for replicas. */
export interface RedisStateStoreOptions {
  /** host:port of the Redis (the primary, when it has replicas). */
  readonly address: string;
  readonly password?: string;
  /** Prefix of every key (default `tideway:`). */
  readonly keyPrefix?: string;
  /** Replicas that must acknowledge a critical write (WAIT); 0 (default) waits for none. */
  readonly waitReplicas?: number;
  /** Milliseconds a critical write waits for them (default 1000); fewer is logged, not thrown. */
  readonly waitTimeoutMs?: number;
  /** open() fails when the server has not answered within this (default 3000 ms). */
  readonly connectTimeoutMs?: number;
  /** A command without a reply fails after this (default: the larger of 5000 ms and waitTimeoutMs + 2000). */
  readonly commandTimeoutMs?: number;
  /** Where warnings go (default: the `state-store` component logger). Job configs are never logged. */
  readonly logger?: Logger;
}

/**
 * The coordinators' state in one Redis (with AOF on, and replicas for `waitReplicas`).
 *
 * Key layout (`<prefix>` is `keyPrefix`, `tideway:` by default):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `<prefix>epoch` | string (integer) | the highest fencing epoch claimed |
 * | `<prefix>leader` | string (JSON) | `{address, epoch, sinceMs}` of the leader that claimed it |
 * | `<prefix>job:<id>` | hash | `info`: StoredJobInfo as JSON (the config, secrets included); `state`: StoredJobState as JSON |
 * | `<prefix>job:<id>:checkpoints` | hash | pipeline id -> CheckpointPointer as JSON |
 * | `<prefix>jobs:active` | set | ids of the jobs not ended |
 * | `<prefix>jobs:ended` | sorted set | ids of ended jobs, scored by the ms (server clock) when they expire |
 * | `<prefix>coordinators` | sorted set | coordinator address, scored by the ms it was last heard from |
 * | `<prefix>coordinators:ttl` | hash | coordinator address -> the ttl (ms) it announced itself with |
 * | `<prefix>tokens` | hash | token name -> StoredToken as JSON (the hash of a bearer token, never the token) |
 * | `<prefix>format` | string (integer) | the state format version (state-format.ts); absent before it was kept: 1 |
 *
 * Every write is one Lua script that reads `<prefix>epoch` first: a higher stored epoch refuses
 * it (StaleEpochError, nothing written), a lower one (the server lost its data: restarted without
 * AOF, FLUSHALL) is raised to the writer's before it writes, so a later claim never hands out an
 * epoch the workers have seen. An ended job's two keys carry a PEXPIRE of the retention, so Redis
 * forgets them by itself; `jobs:ended` members past their score are pruned when listed.
 * Critical writes (claimEpoch, submitJob, putCheckpoint, endJob) then run
 * `WAIT waitReplicas waitTimeoutMs` when waitReplicas > 0, and log a warning when fewer replicas
 * acknowledged (the write stands: the primary has it).
 *
 * Errors: a refused connection or a timeout is a StateStoreError (retryable) naming the address;
 * when it interrupted a write, the message says the write's outcome is unknown.
 */
export class RedisStateStore implements StateStore, TokenStore {
  readonly description: string;
  private readonly connection: RedisConnection;
  private readonly script: ScriptCall;
  private readonly prefix: string;
  private readonly waitReplicas: number;
  private readonly waitTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly log: Logger;
  /** The state format the store holds (state-format.ts), known once open() resolved. */
  formatVersion = 0;

  constructor(private readonly options: RedisStateStoreOptions) {
    this.prefix = options.keyPrefix ?? 'tideway:';
    this.waitReplicas = options.waitReplicas ?? 0;
    this.waitTimeoutMs = options.waitTimeoutMs ?? 1000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    this.description = `redis ${options.address}`;
    this.log = options.logger ?? logger('state-store');
    this.connection = new RedisConnection({
      address: options.address,
      password: options.password,
      connectTimeoutMs: this.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? Math.max(5000, this.waitTimeoutMs + 2000),
      queueWhileReconnecting: true,
      role: 'state store',
      log: this.log,
    });
    this.script = defineStateScripts(this.connection.client);
  }

  async open(): Promise<void> {
    try {
      await this.connection.open(this.connectTimeoutMs);
    } catch (err) {
      throw new StateStoreError(
        ErrorCode.EXTERNAL_SYSTEM,
        `cannot reach the Redis state store at ${this.options.address}: ${(err as Error).message}`,
        {
          retryable: true,
          cause: err,
        },
      );
    }
    this.formatVersion = await this.checkFormat();
  }

  /**
   * The store's format version: stamped with this version's when absent (a new store, or one
   * written before the version was kept, which has format 1's layout); a format this version
   * cannot read is refused in one sentence.
   */
  private async checkFormat(): Promise<number> {
    const key = this.key('format');
    const client = this.connection.client;
    const text = await this.read('open', async () => {
      await client.set(key, String(STATE_FORMAT_VERSION), 'NX');
      return client.get(key);
    });
    const version = Number(text);
    if (!Number.isSafeInteger(version) || version < 1)
      throw new StateStoreError(
        ErrorCode.EXTERNAL_SYSTEM,
        `the Redis state store at ${this.options.address} holds '${text}' under ${key}, which is not a state format version: another program wrote it`,
      );
    if (version > STATE_FORMAT_VERSION || version < OLDEST_READABLE_STATE_FORMAT)
      throw new StateStoreError(
        ErrorCode.EXTERNAL_SYSTEM,
        `the Redis state store at ${this.options.address} holds state format ${version}, and this Tideway reads formats ` +
          `${OLDEST_READABLE_STATE_FORMAT} to ${STATE_FORMAT_VERSION}: it was written by ${version > STATE_FORMAT_VERSION ? 'a newer' : 'a much older'} Tideway (docs/operations.md, "Rolling upgrade")`,
      );
    return version;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /**
   * `atLeast`: the highest epoch this coordinator has seen anywhere (e.g. in a worker's refusal);
   * the epoch claimed is above it even when the server lost its count.
   */
  async claimEpoch(leaderAddress: string, atLeast = 0): Promise<number> {
    const epoch = Number(await this.write('claimEpoch', 'twClaimEpoch', [this.key('epoch'), this.key('leader')], [leaderAddress, atLeast]));
    await this.waitForReplicas('claimEpoch');
    return epoch;
  }

  async leader(): Promise<LeaderRecord | undefined> {
    const text = await this.read('leader', () => this.connection.client.get(this.key('leader')));
    return text ? (JSON.parse(text) as LeaderRecord) : undefined;
  }

  async assertEpoch(epoch: number): Promise<void> {
    await this.write('assertEpoch', 'twFence', [this.key('epoch')], [epoch]);
  }

  async submitJob(epoch: number, info: StoredJobInfo, state: StoredJobState): Promise<void> {
    const id = info.jobId;
    const reply = (await this.write(
      'submitJob',
      'twSubmitJob',
      [this.key('epoch'), ...this.jobKeys(id), this.key('jobs:active'), this.key('jobs:ended')],
      [epoch, id, JSON.stringify(info), JSON.stringify(state)],
    )) as string[];
    if (reply[0] === 'ACTIVE') {
      const status = reply[1] ? (JSON.parse(reply[1]) as StoredJobState).status : 'unknown';
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${id} is already in use (${status})`, { jobId: id });
    }
    await this.waitForReplicas('submitJob', id);
  }

  async updateJob(epoch: number, jobId: string, state: StoredJobState): Promise<void> {
    await this.write(
      'updateJob',
      'twUpdateJob',
      [this.key('epoch'), this.jobKeys(jobId)[0], this.key('jobs:active')],
      [epoch, jobId, JSON.stringify(state)],
    );
  }

  async putCheckpoint(epoch: number, jobId: string, pointer: CheckpointPointer): Promise<void> {
    await this.write(
      'putCheckpoint',
      'twPutCheckpoint',
      [this.key('epoch'), ...this.jobKeys(jobId)],
      [epoch, pointer.pipelineId, JSON.stringify(pointer)],
    );
    await this.waitForReplicas('putCheckpoint', jobId);
  }

  async endJob(epoch: number, jobId: string, state: StoredJobState, expireMs: number): Promise<void> {
    const keys = [this.key('epoch'), ...this.jobKeys(jobId), this.key('jobs:active'), this.key('jobs:ended')];
    await this.write('endJob', 'twEndJob', keys, [epoch, jobId, JSON.stringify(state), Math.max(0, Math.ceil(expireMs))]);
    await this.waitForReplicas('endJob', jobId);
  }

  async activeJobs(): Promise<StoredJob[]> {
    const reply = await this.read('activeJobs', () => this.script('twActiveJobs', [this.key('jobs:active')], [this.prefix]));
    return decodeJobs(reply, this.options.address);
  }

  async job(jobId: string): Promise<StoredJob | undefined> {
    const reply = await this.read('job', () => this.script('twJob', this.jobKeys(jobId), []));
    return reply === null ? undefined : decodeJob(reply, this.options.address);
  }

  async endedJobs(page?: { offset: number; limit: number }): Promise<StoredJob[]> {
    const [offset, count] = page ? [Math.max(0, page.offset), Math.max(0, page.limit)] : [0, -1];
    if (count === 0) return [];
    const reply = await this.read('endedJobs', () => this.script('twEndedJobs', [this.key('jobs:ended')], [this.prefix, offset, count]));
    return decodeJobs(reply, this.options.address);
  }

  async announceCoordinator(address: string, ttlMs: number): Promise<void> {
    await this.read('announceCoordinator', () =>
      this.script('twAnnounce', this.coordinatorKeys(), [address, Math.max(0, Math.round(ttlMs))]),
    );
  }

  async coordinators(): Promise<CoordinatorRecord[]> {
    const flat = (await this.read('coordinators', () => this.script('twCoordinators', this.coordinatorKeys(), []))) as string[];
    const out: CoordinatorRecord[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ address: flat[i], lastSeenMs: Number(flat[i + 1]) });
    return out.sort((a, b) => (a.address < b.address ? -1 : 1));
  }

  async tokens(): Promise<StoredToken[]> {
    const all = await this.read('tokens', () => this.connection.client.hgetall(this.key('tokens')));
    return Object.keys(all)
      .sort()
      .map((name) => parseToken(all[name], name, this.options.address));
  }

  async addToken(token: StoredToken): Promise<boolean> {
    const added = await this.read('addToken', () => this.connection.client.hsetnx(this.key('tokens'), token.name, JSON.stringify(token)));
    return added === 1;
  }

  async removeToken(name: string): Promise<StoredToken | undefined> {
    // HGET then HDEL in one MULTI: the token removed is the one returned.
    const reply = await this.read('removeToken', () =>
      this.connection.client.multi().hget(this.key('tokens'), name).hdel(this.key('tokens'), name).exec(),
    );
    const text = reply?.[0]?.[1];
    return typeof text === 'string' ? parseToken(text, name, this.options.address) : undefined;
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  private jobKeys(jobId: string): [string, string] {
    return [this.key(`job:${jobId}`), this.key(`job:${jobId}:checkpoints`)];
  }

  private coordinatorKeys(): [string, string] {
    return [this.key('coordinators'), this.key('coordinators:ttl')];
  }

  /** A fenced write: refusals become StaleEpochError, transport failures say the outcome is unknown. */
  private async write(op: string, name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await this.script(name, keys, args);
    } catch (err) {
      const stale = err instanceof Error ? STALE_REPLY.exec(err.message) : null;
      if (stale) throw new StaleEpochError(Number(args[0]), Number(stale[1]));
      throw this.failure(op, err, !isServerReply(err));
    }
  }

  /** A read (or an unfenced bookkeeping write, which is safe to repeat). */
  private async read<T>(op: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.failure(op, err, false);
    }
  }

  private failure(op: string, err: unknown, outcomeUnknown: boolean): StateStoreError {
    const reason = err instanceof Error ? err.message : String(err);
    const unknown = outcomeUnknown ? ' (whether the write took effect is unknown)' : '';
    return new StateStoreError(
      ErrorCode.EXTERNAL_SYSTEM,
      `the Redis state store at ${this.options.address} failed ${op}: ${reason}${unknown}`,
      {
        retryable: true,
        cause: err,
        details: { outcomeUnknown },
      },
    );
  }

  /**
   * WAIT for the configured replicas after a critical write. Too few in time, or a WAIT that
   * failed, is a warning, not an error: the primary has the write, and an error would make the
   * caller believe it did not happen (a repeated submit would then be refused as a duplicate).
   */
  private async waitForReplicas(op: string, jobId?: string): Promise<void> {
    if (this.waitReplicas <= 0) return;
    let acked: number;
    try {
      acked = await this.connection.client.wait(this.waitReplicas, this.waitTimeoutMs);
    } catch (err) {
      this.log.warn(
        { op, jobId, reason: (err as Error).message },
        `${op} was written, but waiting for its Redis replicas failed: ${(err as Error).message}`,
      );
      return;
    }
    if (acked < this.waitReplicas) {
      this.log.warn(
        { op, jobId, acked, wanted: this.waitReplicas },
        `only ${acked} of ${this.waitReplicas} Redis replicas acknowledged ${op} within ${this.waitTimeoutMs} ms: a fail-over of ${this.options.address} now could lose it`,
      );
    }
  }
}

function parseToken(text: string, name: string, address: string): StoredToken {
  try {
    const t = JSON.parse(text) as StoredToken;
    if (typeof t.hash === 'string' && typeof t.role === 'string') return { ...t, name, namespace: t.namespace ?? '' };
  } catch {
    // reported below
  }
  throw new StateStoreError(
    ErrorCode.EXTERNAL_SYSTEM,
    `the Redis state store at ${address} holds a token '${name}' that is not a token record: another program wrote it`,
  );
}
