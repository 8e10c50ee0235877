import type { OptionDef, PluginOptions } from '@tideway/api';
import type { PlainObject } from './job-config.js';
import { validateOptionBlock } from './validate-plugin-options.js';
import { ERROR_HANDLER_OPTIONS, errorHandlingOf, type ErrorHandling } from './error-handling.js';

/**
 * The `env` block's options: SeaTunnel's EnvCommonOptions and the Zeta-only ones documented in
 * docs/en/concept/JobEnvConfig.md, with SeaTunnel's names and defaults. Docs are generated from
 * this list.
 */
export const ENV_OPTIONS: readonly OptionDef[] = [
  {
    name: 'job.mode',
    type: 'enum',
    values: ['BATCH', 'STREAMING'],
    default: 'BATCH',
    description: 'BATCH runs until the sources are exhausted; STREAMING runs until cancelled.',
  },
  // SeaTunnel's JobConfig default; the CLI's `-n` (default "SeaTunnel") yields to it.
  { name: 'job.name', type: 'string', default: 'SeaTunnel_Job', description: 'The job name shown in job lists.' },
  { name: 'parallelism', type: 'int', default: 1, min: 1, description: 'Parallelism of every plugin that does not set its own.' },
  {
    name: 'checkpoint.interval',
    type: 'long',
    min: 1,
    description:
      'Milliseconds between checkpoints. STREAMING jobs default to the engine config; BATCH jobs checkpoint only when it is set.',
  },
  {
    name: 'checkpoint.timeout',
    type: 'long',
    min: 1,
    description: 'Milliseconds a checkpoint may take before it fails; defaults to the engine config.',
  },
  { name: 'job.retry.times', type: 'int', default: 3, min: 0, description: 'How many times a failed job is restored before it fails.' },
  { name: 'job.retry.interval.seconds', type: 'int', default: 3, min: 0, description: 'Seconds between two restore attempts.' },
  {
    name: 'job.priority',
    type: 'int',
    default: 0,
    min: -1000,
    max: 1000,
    description:
      "Tideway's: the job's place in its namespace's share of the queue for slots: higher first, then submission order (no preemption of running jobs).",
  },
  { name: 'read_limit.rows_per_second', type: 'int', min: 1, description: 'Rows per second each source reader may emit.' },
  { name: 'read_limit.bytes_per_second', type: 'int', min: 1, description: 'Bytes per second each source reader may emit.' },
  {
    name: 'savemode.execute.location',
    type: 'enum',
    values: ['CLUSTER', 'CLIENT'],
    default: 'CLUSTER',
    description: 'Where sink save modes (create/drop tables) run: on the cluster, or in the submitting client.',
  },
  {
    name: 'shade.identifier',
    type: 'enum',
    values: ['default', 'base64', 'aes256'],
    default: 'default',
    description:
      'How the sensitive options of sources and sinks (password, username, auth, token, access_key, secret_key) are encrypted: default (as written), base64 or aes256 (SeaTunnel formats; see tideway encrypt).',
  },
  {
    name: 'jars',
    type: 'string',
    description: 'Third-party jar paths, `;`-separated (accepted for compatibility; Tideway loads no jars).',
  },
  { name: 'custom_parameters', type: 'map', description: 'Custom engine parameters, string to string.' },
  { name: 'tag_filter', type: 'map', description: 'Run the job only on workers whose attributes match every key and value.' },
  ...ERROR_HANDLER_OPTIONS,
  {
    name: 'engine.observability.enabled',
    type: 'boolean',
    default: false,
    description:
      "Keep the job's live vertex and edge metrics for SeaTunnel's REST API (/metrics/realtime/jobs/<id>/vertices and /edges); off by default, as in SeaTunnel.",
  },
  {
    name: 'engine.observability.bucket_ms',
    type: 'long',
    default: 5000,
    min: 1000,
    description: 'Milliseconds each point of the live vertex and edge metrics covers.',
  },
  {
    name: 'engine.observability.retention_minutes',
    type: 'int',
    default: 3,
    min: 1,
    max: 10,
    description: 'Minutes of live vertex and edge metrics kept.',
  },
];

/**
 * Keys of other engines that SeaTunnel lets a config carry: Spark's own `spark.*` names, Flink's
 * `flink.*` and the legacy unprefixed Flink keys `execution.*` (e.g. execution.parallelism,
 * execution.checkpoint.min-pause). SeaTunnel's Zeta engine ignores them, so Tideway accepts and
 * keeps them (EnvConfig.engineSpecific) without acting on them; any other unknown key is an error.
 */
export const ENGINE_SPECIFIC_ENV_KEYS: readonly RegExp[] = [/^spark\./, /^flink\./, /^execution\./];

export interface EnvConfig {
  readonly jobMode: 'BATCH' | 'STREAMING';
  readonly jobName: string;
  readonly parallelism: number;
  readonly checkpointInterval?: number;
  readonly checkpointTimeout?: number;
  readonly jobRetryTimes: number;
  readonly jobRetryIntervalSeconds: number;
  /** job.priority: higher goes first within its namespace's queue (0 by default). */
  readonly jobPriority: number;
  readonly readLimitRowsPerSecond?: number;
  readonly readLimitBytesPerSecond?: number;
  readonly savemodeExecuteLocation: 'CLUSTER' | 'CLIENT';
  readonly shadeIdentifier?: string;
  readonly jars?: string;
  readonly customParameters: Readonly<Record<string, string>>;
  readonly tagFilter: Readonly<Record<string, string>>;
  /** Row-level error handling (error_handler, transform_error_handler, sink_error_handler). */
  readonly errorHandling: ErrorHandling;
  /** `spark.*`, `flink.*`, `execution.*` settings, kept as written and not used by Tideway. */
  readonly engineSpecific: Readonly<Record<string, unknown>>;
  /** The validated options, for file:line lookups. */
  readonly options: PluginOptions;
}

/**
 * Validates the env block and returns it typed with SeaTunnel's defaults. Errors name the env
 * block, the key and its line.
 */
export function validateEnv(env: PlainObject, envLines: Readonly<Record<string, number>>, file: string): EnvConfig {
  const line = Math.min(...Object.values(envLines), Number.MAX_SAFE_INTEGER);
  const o = validateOptionBlock(
    ENV_OPTIONS,
    { extraOptionPatterns: ENGINE_SPECIFIC_ENV_KEYS },
    {
      file,
      line: line === Number.MAX_SAFE_INTEGER ? 1 : line,
      label: 'env',
      options: env,
      optionLines: envLines,
    },
  );
  const engineSpecific: Record<string, unknown> = {};
  collectEngineSpecific(env, '', engineSpecific);
  return Object.freeze({
    jobMode: o.get<'BATCH' | 'STREAMING'>('job.mode'),
    jobName: o.get<string>('job.name'),
    parallelism: o.get<number>('parallelism'),
    checkpointInterval: o.get<number | undefined>('checkpoint.interval'),
    checkpointTimeout: o.get<number | undefined>('checkpoint.timeout'),
    jobRetryTimes: o.get<number>('job.retry.times'),
    jobRetryIntervalSeconds: o.get<number>('job.retry.interval.seconds'),
    jobPriority: o.get<number>('job.priority'),
    readLimitRowsPerSecond: o.get<number | undefined>('read_limit.rows_per_second'),
    readLimitBytesPerSecond: o.get<number | undefined>('read_limit.bytes_per_second'),
    savemodeExecuteLocation: o.get<'CLUSTER' | 'CLIENT'>('savemode.execute.location'),
    shadeIdentifier: o.get<string | undefined>('shade.identifier'),
    jars: o.get<string | undefined>('jars'),
    customParameters: Object.freeze({ ...(o.get<Record<string, string> | undefined>('custom_parameters') ?? {}) }),
    tagFilter: Object.freeze({ ...(o.get<Record<string, string> | undefined>('tag_filter') ?? {}) }),
    engineSpecific: Object.freeze(engineSpecific),
    errorHandling: errorHandlingOf(o),
    options: o,
  });
}

/** Flattens the engine-specific keys to their dotted names (`spark.executor.cores`). */
function collectEngineSpecific(obj: PlainObject, prefix: string, out: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) collectEngineSpecific(v, path, out);
    else if (ENGINE_SPECIFIC_ENV_KEYS.some((p) => p.test(path))) out[path] = v;
  }
}
