import { ConfigError, ErrorCode } from '@tideway/common';
import { SEATUNNEL_ENGINE_SETTINGS, TIDEWAY_SETTINGS, type EngineSetting } from './engine-settings.js';
import { checkHaSettings, resolveHaAddresses } from './ha-settings.js';
import { checkNamespaceLimits, type NamespaceLimits } from './namespace-limits.js';

/**
 * Engine settings as written (seatunnel.yaml shape, kebab-case keys, all optional). Values are
 * checked by loadEngineConfig; compileEngineConfig applies defaults and cross-setting rules.
 */
export interface EngineConfigInput {
  seatunnel?: { engine?: Record<string, unknown> };
  tideway?: Record<string, unknown>;
}

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** Engine settings, typed, with defaults applied; frozen. Times are as SeaTunnel names them. */
export interface EngineConfig {
  readonly backupCount: number;
  readonly queueType: 'BLOCKINGQUEUE' | 'DISRUPTOR';
  /** Seconds. */
  readonly printExecutionInfoInterval: number;
  /** Seconds. */
  readonly printJobMetricsInfoInterval: number;
  /** Seconds. */
  readonly jobMetricsBackupInterval: number;
  readonly classloaderCacheMode: boolean;
  readonly historyJobExpireMinutes: number;
  /** Always REJECT when slotService.dynamicSlot is true (SeaTunnel forces it). */
  readonly jobScheduleStrategy: 'WAIT' | 'REJECT';
  readonly slotService: {
    readonly dynamicSlot: boolean;
    readonly slotNum: number;
    readonly slotAllocateStrategy: 'RANDOM' | 'SLOT_RATIO' | 'SYSTEM_LOAD';
  };
  readonly checkpoint: {
    /** Milliseconds. */
    readonly interval: number;
    /** Milliseconds. */
    readonly timeout: number;
    readonly storage: {
      readonly type: 'localfile' | 'hdfs' | 's3';
      readonly maxRetained: number;
      /** Keys as written (`fs.s3a.endpoint`); known keys typed, defaults applied. */
      readonly pluginConfig: Readonly<Record<string, string | number | boolean>>;
    };
  };
  /** SeaTunnel's job event report (`seatunnel.engine.event-report-http`); url '' when off. */
  /** seatunnel.engine.jar-storage: how plugin packages are stored and shipped in a cluster. */
  readonly jarStorage: {
    readonly enable: boolean;
    readonly connectorJarStorageMode: 'SHARED' | 'ISOLATED';
    readonly connectorJarStoragePath: string;
    /** Seconds. */
    readonly connectorJarCleanupTaskInterval: number;
    /** Seconds. */
    readonly connectorJarExpiryTime: number;
  };
  readonly eventReportHttp: { readonly url: string; readonly headers: Readonly<Record<string, string | number | boolean>> };
  /** SeaTunnel's REST API v2 (`seatunnel.engine.http`). */
  readonly http: {
    readonly enableHttp: boolean;
    readonly port: number;
    readonly contextPath: string;
    readonly enableDynamicPort: boolean;
    readonly portRange: number;
    /** Bytes. */
    readonly maxBodyBytes: number;
    /** Milliseconds to receive a request's headers. */
    readonly headersTimeout: number;
    /** Milliseconds to receive a whole request. */
    readonly requestTimeout: number;
    /** Milliseconds an idle keep-alive connection stays open. */
    readonly keepAliveTimeout: number;
    readonly maxConnections: number;
  };
  readonly tideway: {
    readonly coordinator: Endpoint & {
      /** host:port others dial; '' means host:port (the port picked, when port is 0). */
      readonly advertisedAddress: string;
      /** host:port of every coordinator; `[host:port]` of this one when the file lists none (and its port is not 0). */
      readonly addresses: readonly string[];
    };
    readonly resourceManager: Endpoint;
    readonly worker: Endpoint & {
      /** host:port others dial; '' means host:port (the port picked, when port is 0). */
      readonly advertisedAddress: string;
      readonly attributes: Readonly<Record<string, string | number | boolean>>;
      /** Milliseconds without a leader before the worker cancels its task groups. */
      readonly leaderLossTimeout: number;
    };
    /** `tideway.plugin-call-timeout`, milliseconds per kind of plugin call (workers' task threads, coordinators' plugin threads); 0: no limit. */
    readonly pluginCallTimeout: {
      readonly open: number;
      readonly read: number;
      readonly transform: number;
      readonly write: number;
      readonly checkpoint: number;
      readonly commit: number;
      readonly close: number;
      readonly enumerate: number;
    };
    /** Milliseconds. */
    readonly heartbeat: { readonly interval: number; readonly timeout: number };
    /** `tideway.drain`, milliseconds: a stopping worker's wait, and how long a pipeline without checkpoints stays on a draining worker. */
    readonly drain: { readonly gracePeriod: number; readonly batchTimeout: number };
    readonly stateStore: {
      readonly type: 'memory' | 'redis';
      readonly redis: {
        /** host:port, '' when not set (then type is memory). */
        readonly address: string;
        /** '' for none. */
        readonly password: string;
        readonly keyPrefix: string;
        readonly waitReplicas: number;
        /** Milliseconds. */
        readonly waitTimeout: number;
      };
    };
    /** Bearer tokens by name: `<sha256:hex> <role> [<namespace>]` (parsed by @tideway/rpc's parseTokenTable). */
    readonly auth: {
      readonly tokens: Readonly<Record<string, string | number | boolean>> | undefined;
      /** Client certificates by CN or subjectAltName: `<role> [<namespace>]` (parsed by @tideway/rpc's parseCertificateTable). */
      readonly certificates: Readonly<Record<string, string | number | boolean>> | undefined;
      /** Limits by namespace name (checkNamespaceLimits: names and prefixes are checked). */
      readonly namespaces: Readonly<Record<string, NamespaceLimits>>;
    };
    /** Mutual TLS files; all three '' for plaintext (checkTls refuses a partial set). */
    readonly tls: { readonly caFile: string; readonly certFile: string; readonly keyFile: string };
    /** `tideway.plugins`: plugin packages besides the built-ins. */
    readonly plugins: {
      /** Folders of plugin packages, as written (relative ones are taken beside the install). */
      readonly dirs: readonly string[];
    };
    /** `tideway.metrics`. */
    readonly metrics: { readonly maxTableSeries: number };
    /** `tideway.logs`: per-job logs. */
    readonly logs: { readonly dir: string; readonly level: 'info' | 'warn' | 'error'; readonly maxFileBytes: number };
    /** `tideway.checkpoint-history`. */
    readonly checkpointHistory: { readonly size: number };
    /** `tideway.events`: job events pushed to webhooks. */
    readonly events: {
      readonly webhooks: Readonly<
        Record<
          string,
          { readonly url: string; readonly headers: Readonly<Record<string, string | number | boolean>>; readonly secret: string }
        >
      >;
      readonly bufferSize: number;
      readonly batchSize: number;
      /** Milliseconds. */
      readonly flushInterval: number;
      /** Milliseconds. */
      readonly requestTimeout: number;
      /** Milliseconds. */
      readonly maxRetryInterval: number;
    };
    /** `tideway.limits`: what a request may weigh. */
    readonly limits: {
      /** Bytes of one gRPC message a server receives. */
      readonly maxMessageBytes: number;
      /** UTF-8 bytes of a job config, as sent and once resolved. */
      readonly maxConfigBytes: number;
      /** Nesting of objects and lists, and chains of substitutions, in a job config. */
      readonly maxConfigDepth: number;
    };
    readonly ha: {
      /** host:port of each Redlock node; `[stateStore.redis.address]` when the file lists none (type redis). */
      readonly lockNodes: readonly string[];
      /** Milliseconds. */
      readonly leaseTtl: number;
      /** Milliseconds. */
      readonly retryInterval: number;
    };
  };
}

/** `slot-allocate-strategy` -> `slotAllocateStrategy`. */
function camel(key: string): string {
  return key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function compileSection(
  fields: Readonly<Record<string, EngineSetting>>,
  input: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(fields)) out[camel(key)] = compileSetting(setting, input?.[key]);
  return Object.freeze(out);
}

function compileSetting(setting: EngineSetting, value: unknown): unknown {
  if (setting.type === 'section') return compileSection(setting.fields, value as Record<string, unknown> | undefined);
  if (setting.type === 'map') {
    const out: Record<string, unknown> = {};
    if (setting.each) {
      for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) out[k] = compileSetting(setting.each, v);
      return Object.freeze(out);
    }
    for (const [k, s] of Object.entries(setting.known ?? {}))
      if (s.type !== 'section' && s.type !== 'map' && s.default !== '') out[k] = s.default;
    Object.assign(out, value as Record<string, unknown> | undefined);
    return Object.freeze(out);
  }
  const v = value ?? setting.default;
  return isList(v) ? Object.freeze([...v]) : v;
}

function isList(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

/**
 * Applies defaults and the rules that span settings, and returns the frozen EngineConfig:
 * dynamic slots force job-schedule-strategy REJECT (SeaTunnel docs: WAIT means nothing without
 * a fixed slot count); a heartbeat timeout must exceed the interval; S3 checkpoint storage needs
 * a bucket; the HA settings' rules (ha-settings.ts). Empty address lists become their defaults.
 */
export function compileEngineConfig(input: EngineConfigInput): EngineConfig {
  const engine = compileSection(SEATUNNEL_ENGINE_SETTINGS, input.seatunnel?.engine);
  const tideway = compileSection(TIDEWAY_SETTINGS, input.tideway);
  const config = { ...engine, tideway: resolveHaAddresses(tideway as unknown as EngineConfig['tideway']) } as unknown as EngineConfig;
  const fail = (message: string): never => {
    throw new ConfigError(ErrorCode.ENGINE_CONFIG, message);
  };
  checkHaSettings(config.tideway, fail);
  checkNamespaceLimits(config.tideway.auth.namespaces, fail);
  const tls = config.tideway.tls;
  const set = [tls.caFile, tls.certFile, tls.keyFile].filter((f) => f !== '').length;
  if (set !== 0 && set !== 3) fail('tideway.tls needs ca-file, cert-file and key-file together (or none of them, for plaintext)');
  if (set === 0 && Object.keys(config.tideway.auth.certificates ?? {}).length > 0)
    fail('tideway.auth.certificates needs tideway.tls: client certificates are only seen, and checked against the CA, over TLS');
  if (config.tideway.heartbeat.timeout <= config.tideway.heartbeat.interval) {
    fail(
      `tideway.heartbeat.timeout (${config.tideway.heartbeat.timeout} ms) must be longer than tideway.heartbeat.interval (${config.tideway.heartbeat.interval} ms)`,
    );
  }
  const storage = config.checkpoint.storage;
  if (storage.type === 's3' && !storage.pluginConfig['s3.bucket'])
    fail('seatunnel.engine.checkpoint.storage.type is s3 but plugin-config has no s3.bucket');
  const contextPath = config.http.contextPath;
  if (contextPath !== '' && (!contextPath.startsWith('/') || contextPath.endsWith('/') || /\s/.test(contextPath))) {
    fail(`seatunnel.engine.http.context-path '${contextPath}': expected a path like /seatunnel (a leading /, no trailing /, no spaces)`);
  }
  if (config.http.requestTimeout < config.http.headersTimeout) {
    fail(
      `seatunnel.engine.http.request-timeout (${config.http.requestTimeout} ms) must not be shorter than seatunnel.engine.http.headers-timeout (${config.http.headersTimeout} ms)`,
    );
  }
  checkEventReceivers(config, fail);
  if (config.jarStorage.connectorJarStorageMode === 'ISOLATED')
    fail(
      'seatunnel.engine.jar-storage.connector-jar-storage-mode ISOLATED is not supported: a stored plugin package is immutable by its sha256, so jobs share one copy of it (SHARED)',
    );
  const strategy = config.slotService.dynamicSlot ? 'REJECT' : config.jobScheduleStrategy;
  return Object.freeze({ ...config, jobScheduleStrategy: strategy });
}

/** Every event receiver needs an http(s) URL; a webhook without one is refused by name. */
function checkEventReceivers(config: EngineConfig, fail: (message: string) => never): void {
  const check = (url: string, where: string, required: boolean): void => {
    if (url === '') {
      if (required) fail(`${where} is required: the http(s) URL the events are POSTed to`);
      return;
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      fail(`${where} '${url}': expected an http:// or https:// URL`);
  };
  check(config.eventReportHttp.url, 'seatunnel.engine.event-report-http.url', false);
  for (const [name, hook] of Object.entries(config.tideway.events.webhooks)) check(hook.url, `tideway.events.webhooks.${name}.url`, true);
}
