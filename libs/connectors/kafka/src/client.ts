import { Admin, Consumer, type ClusterMetadata } from '#kafka-client';
import { ErrorCode, TidewayError } from '@tideway/common';
import { type ClientSettings, connectionSecurity, type ConsumerSettings } from './kafka-config.js';

/** `host:port,host:port` as the Node client takes it. */
export function brokerList(bootstrap: string): string[] {
  return bootstrap
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** How long reaching the brokers may take before the job fails with one sentence. */
export function connectTimeoutMs(settings: { timeout?: number; connectTimeout?: number }): number {
  return settings.connectTimeout ?? settings.timeout ?? 10_000;
}

/** The innermost messages of the client's nested errors (AggregateError, causes), one line. */
export function errorText(err: unknown): string {
  const out: string[] = [];
  const walk = (e: unknown) => {
    if (e instanceof AggregateError && e.errors.length > 0) {
      for (const inner of e.errors) walk(inner);
    } else if (e instanceof Error && e.cause instanceof Error) {
      walk(e.cause);
    } else if (e instanceof Error) {
      const code = (e as { code?: string; apiId?: string }).apiId ?? (e as { code?: string }).code;
      out.push(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
    } else out.push(String(e));
  };
  walk(err);
  return [...new Set(out)].join('; ');
}

/** Whether the broker refused the client's SASL credentials (an answer, not a network fault). */
function isAuthenticationError(err: unknown): boolean {
  if (err instanceof AggregateError && err.errors.some(isAuthenticationError)) return true;
  const e = err as { code?: string; apiId?: string; cause?: unknown } | undefined;
  if (e?.code === 'PLT_KFK_AUTHENTICATION' || e?.apiId === 'SASL_AUTHENTICATION_FAILED') return true;
  return e?.cause !== undefined && isAuthenticationError(e.cause);
}

/** Whether the client or the broker said a topic does not exist (withDeadline's sentence keeps their words). */
export function isUnknownTopic(err: unknown): boolean {
  return (
    hasApiError(err, 'UNKNOWN_TOPIC_OR_PARTITION') ||
    /UNKNOWN_TOPIC_OR_PARTITION|Unknown topic /.test(err instanceof Error ? err.message : String(err))
  );
}

/** Whether an error (or one inside it) is the broker's answer `apiId`, e.g. UNKNOWN_TOPIC_OR_PARTITION. */
export function hasApiError(err: unknown, apiId: string): boolean {
  if (err instanceof AggregateError) return err.errors.some((e) => hasApiError(e, apiId));
  return (err as { apiId?: string } | undefined)?.apiId === apiId;
}

/** Whether the client could not connect (refused, reset, timed out) rather than got an answer. */
function isNetworkError(err: unknown): boolean {
  if (isAuthenticationError(err)) return false;
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.some(isNetworkError);
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'PLT_KFK_NETWORK' || code === 'PLT_KFK_TIMEOUT' || code === 'ECONNREFUSED' || code === 'ECONNRESET';
}

/**
 * Runs `work` until it succeeds, trying again while the brokers cannot be reached, for at most
 * `ms`: then the job fails with one sentence naming the brokers rather than hanging on them.
 * An answer with an error (a missing topic, say) fails at once.
 */
export async function withDeadline<T>(bootstrap: string, ms: number, what: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  let last: unknown;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TidewayError(
            ErrorCode.TASK_FAILED,
            `Kafka at ${bootstrap} could not be reached within ${ms} ms (${what}${last === undefined ? '' : `: ${errorText(last)}`}).`,
          ),
        ),
      ms,
    );
  });
  try {
    for (;;) {
      try {
        return await Promise.race([work(), timeout]);
      } catch (err) {
        if (err instanceof TidewayError) throw err;
        last = err;
        if (!isNetworkError(err))
          throw new TidewayError(ErrorCode.TASK_FAILED, `Kafka at ${bootstrap} failed while ${what}: ${errorText(err)}`);
        if (Date.now() + 250 >= deadline) {
          throw new TidewayError(
            ErrorCode.TASK_FAILED,
            `Kafka at ${bootstrap} could not be reached within ${ms} ms (${what}: ${errorText(err)}).`,
          );
        }
        await Promise.race([new Promise((r) => setTimeout(r, 250)), timeout]);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** A consumer client for metadata, offsets and fetches; it never joins its group. */
export function newConsumer(bootstrap: string, group: string, s: ConsumerSettings, clientId: string): Consumer {
  return new Consumer({
    clientId: s.clientId ?? clientId,
    groupId: group,
    bootstrapBrokers: brokerList(bootstrap),
    timeout: s.timeout,
    connectTimeout: connectTimeoutMs(s),
    retries: s.retries ?? 3,
    retryDelay: s.retryDelay,
    metadataMaxAge: s.metadataMaxAge,
    autocreateTopics: false,
    ...connectionSecurity(s),
  });
}

export function newAdmin(bootstrap: string, s: ClientSettings, clientId: string): Admin {
  return new Admin({
    clientId: s.clientId ?? clientId,
    bootstrapBrokers: brokerList(bootstrap),
    timeout: s.timeout,
    connectTimeout: connectTimeoutMs(s),
    retries: s.retries ?? 3,
    ...connectionSecurity(s),
  });
}

/** Topic name -> partition count, for the topics that exist. */
export function partitionCounts(metadata: ClusterMetadata, topics: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of topics) {
    const m = metadata.topics.get(t);
    if (m) out.set(t, m.partitionsCount);
  }
  return out;
}
