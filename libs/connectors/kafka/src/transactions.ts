import { Connection, endTxnV4, findCoordinatorV6, initProducerIdV4, listTransactionsV0, Producer } from '#kafka-client';
import { ErrorCode, logger, TidewayError } from '@tideway/common';
import { brokerList, connectTimeoutMs, errorText, hasApiError, newAdmin } from './client.js';
import { connectionSecurity, type ProducerSettings } from './kafka-config.js';

const log = logger('kafka-sink');

/**
 * EXACTLY_ONCE (docs/decisions/0068-kafka-exactly-once.md): each checkpoint's records of a writer
 * go into one Kafka transaction under its own transactional id `<prefix>-<subtask>-<n>`, where n
 * counts the writer's transactions and is kept in its checkpointed state. An id is used for one
 * transaction only, so a commit info (id, producer id, epoch) names exactly one transaction, and
 * committing it again after a restore finds it committed (the coordinator answers a repeated
 * commit of the same epoch with success) instead of committing a later one.
 */

/** What a checkpoint keeps of a prepared transaction: enough to commit it from another process. JSON-safe. */
export interface KafkaCommitInfo {
  readonly transactionalId: string;
  /** The producer id, a 64-bit integer, as decimal text. */
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly checkpointId: number;
  readonly topic: string;
  readonly records: number;
}

/**
 * A writer's checkpointed state: for a subtask whose transactional ids it answers for, the number
 * of that subtask's next id. A writer keeps its own entry, and, after a restore at a lower
 * parallelism, the entries of the retired subtasks it took over until it has aborted what they
 * left open (docs/decisions/0092-kafka-exactly-once-rescale.md).
 */
export interface KafkaWriterState {
  readonly next: number;
  /** Whose ids (`<prefix>-<subtask>-<n>`); absent in checkpoints written before restores could change the parallelism (then the writer's own). */
  readonly subtask?: number;
}

/** What a restored writer takes from the states it was given. */
export interface RestoredCounters {
  /** Its own next id; undefined when no state was its own (a subtask added by a restore at a higher parallelism). */
  readonly own?: number;
  /** Retired subtasks (at or above the new parallelism) whose ids from `next` on may be open, by subtask. */
  readonly retired: Map<number, number>;
}

/**
 * Sorts the states a restored writer was given (the engine hands old writer i's whole list to new
 * writer i % parallelism): its own entry, the entries of subtasks that no longer run (it aborts
 * their open transactions), and entries of other running subtasks, which are dropped (each of
 * those writers finds its own first unused id by probing from 0, never touching ids a checkpoint
 * holds: its subtask prepared nothing in the checkpoint restored).
 */
export function restoredCounters(states: readonly KafkaWriterState[], subtask: number, parallelism: number): RestoredCounters {
  const unnamed = states.filter((st) => st.subtask === undefined);
  if (unnamed.length > 1)
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `the Kafka sink's writer ${subtask} was restored with ${unnamed.length} writers' states of a checkpoint written before the sink recorded whose transactional ids they are, so the job cannot change its parallelism from that checkpoint: restore it at the parallelism it had.`,
    );
  let own: number | undefined;
  const retired = new Map<number, number>();
  for (const st of states) {
    const whose = st.subtask ?? subtask;
    if (whose === subtask) own = Math.max(own ?? 0, st.next);
    else if (whose >= parallelism) retired.set(whose, Math.max(retired.get(whose) ?? 0, st.next));
  }
  return { own, retired };
}

/** SeaTunnel's transactional id shape, with the writer's transaction count as its last part. */
export function transactionalId(prefix: string, subtask: number, n: number): string {
  return `${prefix}-${subtask}-${n}`;
}

/** The broker's default transaction.max.timeout.ms: the longest transaction timeout it accepts unless configured. */
export const BROKER_MAX_TRANSACTION_TIMEOUT_MS = 900_000;

/** The transaction timeout the sink asks for when kafka.config sets none. */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = BROKER_MAX_TRANSACTION_TIMEOUT_MS;

type Transaction = NonNullable<Producer['transaction']>;

/** An open or prepared transaction of this process, committed through its own producer. */
export interface LiveTransaction {
  readonly producer: Producer;
  readonly transaction: Transaction;
}

/** Transactions prepared by the writers of one task group, for its committer (the same Sink object). */
export type LiveTransactions = Map<string, LiveTransaction>;

export interface TransactionalConfig {
  readonly bootstrap: string;
  readonly prefix: string;
  readonly settings: ProducerSettings;
  readonly transactionTimeoutMs: number;
}

/** A transactional producer for `id`. The client sends its `timeout` as the transaction timeout of InitProducerId. */
export function transactionalProducer(cfg: TransactionalConfig, id: string, clientId: string): Producer {
  const s = cfg.settings;
  return new Producer({
    clientId: s.clientId ?? clientId,
    bootstrapBrokers: brokerList(cfg.bootstrap),
    timeout: cfg.transactionTimeoutMs,
    connectTimeout: connectTimeoutMs(s),
    retries: s.retries ?? 3,
    retryDelay: s.retryDelay,
    metadataMaxAge: s.metadataMaxAge,
    idempotent: true,
    acks: -1,
    compression: s.compression,
    autocreateTopics: s.autocreateTopics ?? true,
    transactionalId: id,
    ...connectionSecurity(s),
    // InitProducerId with no producer id (-1), as Kafka's Java producer sends it: the client's
    // default (0, 0) is refused with PRODUCER_FENCED for an id another producer used before.
    producerId: -1n,
    producerEpoch: -1,
  });
}

/** Why a commit of `info` failed for good: the broker no longer has that transaction open or committed. */
function lostSentence(info: KafkaCommitInfo, cfg: TransactionalConfig, err: unknown): string {
  return (
    `the Kafka transaction ${info.transactionalId} of checkpoint ${info.checkpointId} (${info.records} records for topic ${info.topic}) ` +
    `was aborted by the broker at ${cfg.bootstrap} before it could be committed (${errorText(err)}): its transaction.timeout.ms ` +
    `(${cfg.transactionTimeoutMs} ms) ran out before the checkpoint completed, or another producer took its transactional id; ` +
    'the job fails rather than lose those records (raise kafka.config transaction.timeout.ms above the checkpoint interval plus the checkpoint timeout).'
  );
}

/** Broker answers that mean the transaction can no longer be committed by anyone. */
const LOST = [
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_TXN_STATE',
  'INVALID_PRODUCER_ID_MAPPING',
  'TRANSACTIONAL_ID_NOT_FOUND',
];

export function isLost(err: unknown): boolean {
  return LOST.some((id) => hasApiError(err, id));
}

async function connect(cfg: TransactionalConfig, host: string, port: number): Promise<Connection> {
  const s = cfg.settings;
  const conn = new Connection(s.clientId ?? 'tideway-kafka-committer', { connectTimeout: connectTimeoutMs(s), ...connectionSecurity(s) });
  await conn.connect(host, port);
  return conn;
}

/** The transaction coordinator of `transactionalId` as the broker behind `via` names it, or undefined while none is (loading, moving). */
async function coordinatorOf(via: Connection, transactionalId: string): Promise<{ host: string; port: number } | undefined> {
  const found = await findCoordinatorV6.api.async(via, 1, [transactionalId]);
  const c = found.coordinators.find((x) => x.key === transactionalId);
  return c && c.errorCode === 0 ? { host: c.host, port: c.port } : undefined;
}

/**
 * Commits a prepared transaction from its commit info alone (no producer of this process has it:
 * the job was restored). The client has no call to resume a transaction, so this sends Kafka's
 * EndTxn request itself with the recorded producer id and epoch, to the transaction coordinator
 * FindCoordinator names, as Kafka's Java producer would for its own transaction. InitProducerId
 * is never sent for the id, since it would abort the transaction instead.
 */
export async function commitByInfo(cfg: TransactionalConfig, info: KafkaCommitInfo): Promise<void> {
  let lastErr: unknown;
  const deadline = Date.now() + Math.max(connectTimeoutMs(cfg.settings), 30_000);
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const opened: Connection[] = [];
    try {
      let coordinator: { host: string; port: number } | undefined;
      for (const address of brokerList(cfg.bootstrap)) {
        const i = address.lastIndexOf(':');
        try {
          const conn = await connect(cfg, address.slice(0, i), Number(address.slice(i + 1)));
          opened.push(conn);
          coordinator = await coordinatorOf(conn, info.transactionalId);
          break;
        } catch (err) {
          lastErr = err;
        }
      }
      if (coordinator) {
        const conn = await connect(cfg, coordinator.host, coordinator.port);
        opened.push(conn);
        await endTxnV4.api.async(conn, info.transactionalId, BigInt(info.producerId), info.producerEpoch, true);
        return;
      }
    } catch (err) {
      if (isLost(err)) throw new TidewayError(ErrorCode.TASK_FAILED, lostSentence(info, cfg, err));
      lastErr = err;
    } finally {
      await Promise.allSettled(opened.map((c) => c.close()));
    }
    // Coordinator moving or loading, markers of the commit still being written (CONCURRENT_TRANSACTIONS), or no broker reachable.
    await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2_000)));
  }
  throw new TidewayError(
    ErrorCode.TASK_FAILED,
    `committing the Kafka transaction ${info.transactionalId} of checkpoint ${info.checkpointId} at ${cfg.bootstrap} failed: ${errorText(lastErr)}`,
    { retryable: true },
  );
}

/**
 * Commits prepared transactions: through the producer that wrote them when it is still here,
 * otherwise by their recorded producer id and epoch. A transaction the broker aborted fails the
 * job with one sentence saying why (never a silent loss).
 */
export async function commitAll(cfg: TransactionalConfig, live: LiveTransactions, infos: readonly KafkaCommitInfo[]): Promise<void> {
  for (const info of infos) {
    const mine = live.get(info.transactionalId);
    if (mine && String(mine.producer.producerId) === info.producerId && mine.producer.producerEpoch === info.producerEpoch) {
      try {
        await mine.transaction.commit();
      } catch (err) {
        if (isLost(err)) throw new TidewayError(ErrorCode.TASK_FAILED, lostSentence(info, cfg, err));
        // The request may have reached the coordinator: the recorded ids commit it, or find it committed.
        log.warn({ transactionalId: info.transactionalId, err: errorText(err) }, 'commit through the producer failed; committing by id');
        await commitByInfo(cfg, info);
      }
      live.delete(info.transactionalId);
      await mine.producer.close().catch(() => undefined);
    } else {
      await commitByInfo(cfg, info);
    }
  }
}

/**
 * Aborts every transaction still open under the sink's transactional id prefix (Sink.abandon: the
 * job was cancelled, or finished and left an attempt's transaction behind), so that
 * read_committed consumers of its partitions need not wait for transaction.timeout.ms (15 min by
 * default) to read past it. Each broker lists its open transactions (ListTransactions, Kafka 3.0
 * and later); for each of ours, InitProducerId on its id makes its coordinator abort it and fence
 * its producer, as a new producer with that id would. Returns the aborted ids.
 */
export async function abandonTransactions(cfg: TransactionalConfig): Promise<string[]> {
  return openTransactions(cfg, abortEach);
}

/** The transactional ids of the prefix with a transaction open now, as the brokers list them (ListTransactions, Kafka 3.0 and later). */
export async function openTransactionIds(cfg: TransactionalConfig): Promise<string[]> {
  return openTransactions(cfg, async () => undefined);
}

async function openTransactions(
  cfg: TransactionalConfig,
  then: (cfg: TransactionalConfig, open: Set<string>, opened: Connection[]) => Promise<void>,
): Promise<string[]> {
  const admin = newAdmin(cfg.bootstrap, cfg.settings, 'tideway-kafka-abandon');
  let brokers: Array<{ host: string; port: number }>;
  try {
    brokers = [...(await admin.metadata({ topics: [] })).brokers.values()].map((b) => ({ host: b.host, port: b.port }));
  } finally {
    await admin.close();
  }
  const open = new Set<string>();
  const opened: Connection[] = [];
  try {
    for (const b of brokers) {
      const conn = await connect(cfg, b.host, b.port);
      opened.push(conn);
      // The broker matches its own state names ("Ongoing"), not the client's enumeration.
      const listed = await listTransactionsV0.api.async(conn, ['Ongoing' as 'ONGOING'], [], -1n, null);
      for (const t of listed.transactionStates) if (t.transactionalId.startsWith(`${cfg.prefix}-`)) open.add(t.transactionalId);
    }
    await then(cfg, open, opened);
  } finally {
    await Promise.allSettled(opened.map((c) => c.close()));
  }
  return [...open];
}

/** InitProducerId on each id makes its coordinator abort the open transaction and fence its producer. */
async function abortEach(cfg: TransactionalConfig, open: Set<string>, opened: Connection[]): Promise<void> {
  for (const id of open) {
    const at = await coordinatorOf(opened[0], id);
    if (!at) throw new Error(`no transaction coordinator for ${id} at ${cfg.bootstrap} yet`);
    const conn = await connect(cfg, at.host, at.port);
    opened.push(conn);
    // The coordinator answers CONCURRENT_TRANSACTIONS while it writes the abort markers: ask again.
    for (let attempt = 0; ; attempt++) {
      try {
        await initProducerIdV4.api.async(conn, id, cfg.transactionTimeoutMs, -1n, -1);
        break;
      } catch (err) {
        if (attempt >= 20 || !hasApiError(err, 'CONCURRENT_TRANSACTIONS')) throw err;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 1_000)));
      }
    }
    log.info({ transactionalId: id }, 'aborted a transaction no checkpoint will commit');
  }
}
