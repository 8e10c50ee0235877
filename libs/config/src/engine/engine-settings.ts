/**
 * Every engine setting, with SeaTunnel's names (seatunnel.yaml, docs/en/seatunnel-engine) and
 * defaults (ServerConfigOptions), plus Tideway's own `tideway:` block. One tree drives
 * validation, defaults and docs; deploy/seatunnel.yaml mirrors it (a test keeps them equal).
 */

export type EngineSetting =
  | { readonly type: 'int'; readonly default: number; readonly min?: number; readonly max?: number; readonly description: string }
  | { readonly type: 'boolean'; readonly default: boolean; readonly description: string }
  | { readonly type: 'string'; readonly default: string; readonly description: string }
  | { readonly type: 'enum'; readonly values: readonly string[]; readonly default: string; readonly description: string }
  | { readonly type: 'string-list'; readonly default: readonly string[]; readonly description: string }
  | { readonly type: 'section'; readonly fields: Readonly<Record<string, EngineSetting>>; readonly description: string }
  /**
   * A free map of scalars whose keys are literal (they may contain dots, e.g. `fs.s3a.endpoint`);
   * `known` keys are type-checked, others pass through as written. With `each`, every value is
   * read by that setting instead (a map of sections, e.g. one per namespace).
   */
  | {
      readonly type: 'map';
      readonly known?: Readonly<Record<string, EngineSetting>>;
      readonly each?: EngineSetting;
      readonly description: string;
    };

const CHECKPOINT_PLUGIN_CONFIG: Record<string, EngineSetting> = {
  namespace: {
    type: 'string',
    default: '/tmp/seatunnel/checkpoint_snapshot/',
    description: 'Folder (or key prefix in a bucket) of checkpoint files.',
  },
  'storage.type': { type: 'string', default: '', description: 'For type hdfs: the backing file system (hdfs, s3, oss).' },
  's3.bucket': { type: 'string', default: '', description: 'Bucket URI for S3 storage, e.g. s3a://seatunnel-checkpoint.' },
  'fs.s3a.endpoint': { type: 'string', default: '', description: 'S3 endpoint URL.' },
  'fs.s3a.access.key': { type: 'string', default: '', description: 'S3 access key.' },
  'fs.s3a.secret.key': { type: 'string', default: '', description: 'S3 secret key.' },
  'fs.s3a.path.style.access': {
    type: 'boolean',
    default: false,
    description: 'Path-style S3 URLs (needed by most S3-compatible servers).',
  },
  'fs.s3a.aws.credentials.provider': {
    type: 'string',
    default: '',
    description: 'Credential provider class name (accepted for SeaTunnel configs).',
  },
  'fs.defaultFS': { type: 'string', default: '', description: 'File system URI for hdfs storage, e.g. file:/// or hdfs://namenode:9000.' },
};

const endpointFields = (port: number, what: string): Record<string, EngineSetting> => ({
  host: { type: 'string', default: '127.0.0.1', description: `Address the ${what} binds to.` },
  port: { type: 'int', default: port, min: 0, description: `Port of the ${what} (0 picks a free one).` },
});

/**
 * Where others dial a process that binds a wildcard (0.0.0.0 in a container, on a multi-homed
 * host): its pod DNS name or host name. Empty means host:port, which only works when others
 * can dial the bind address.
 */
const advertisedAddress = (what: string, who: string): EngineSetting => ({
  type: 'string',
  default: '',
  description: `host:port ${who} dial to reach this ${what} (empty: host:port; set it when host is 0.0.0.0).`,
});

const endpoint = (port: number, what: string): EngineSetting => ({
  type: 'section',
  description: `Where the ${what} listens.`,
  fields: endpointFields(port, what),
});

/** The settings under `seatunnel.engine`. */
export const SEATUNNEL_ENGINE_SETTINGS: Readonly<Record<string, EngineSetting>> = {
  'backup-count': { type: 'int', default: 1, min: 0, description: 'Synchronous backups of engine state.' },
  'queue-type': {
    type: 'enum',
    values: ['BLOCKINGQUEUE', 'DISRUPTOR'],
    default: 'BLOCKINGQUEUE',
    description: 'Queue between tasks of a task group.',
  },
  'print-execution-info-interval': { type: 'int', default: 60, min: 1, description: 'Seconds between job execution summaries in the log.' },
  'print-job-metrics-info-interval': { type: 'int', default: 60, min: 1, description: 'Seconds between job metrics summaries in the log.' },
  'job-metrics-backup-interval': { type: 'int', default: 10, min: 1, description: 'Seconds between metrics snapshots to the state store.' },
  'classloader-cache-mode': {
    type: 'boolean',
    default: false,
    description: 'Reuse plugin class loaders across jobs (SeaTunnel); kept for config compatibility.',
  },
  'history-job-expire-minutes': { type: 'int', default: 1440, min: 1, description: 'Minutes a finished job stays in the job list.' },
  'job-schedule-strategy': {
    type: 'enum',
    values: ['WAIT', 'REJECT'],
    default: 'REJECT',
    description: 'When slots are short: WAIT queues the job, REJECT fails it. With dynamic-slot true it is always REJECT.',
  },
  'slot-service': {
    type: 'section',
    description: 'How workers offer slots.',
    fields: {
      'dynamic-slot': {
        type: 'boolean',
        default: true,
        description: 'Slots without a fixed count (limited by resources) instead of slot-num.',
      },
      'slot-num': { type: 'int', default: 2, min: 1, description: 'Slots per worker when dynamic-slot is false.' },
      'slot-allocate-strategy': {
        type: 'enum',
        values: ['RANDOM', 'SLOT_RATIO', 'SYSTEM_LOAD'],
        default: 'RANDOM',
        description: 'Which worker gets a slot: random, the lowest used-slot ratio, or the lowest CPU/memory load.',
      },
    },
  },
  checkpoint: {
    type: 'section',
    description: 'Checkpoint defaults; a job env may override interval and timeout.',
    fields: {
      interval: {
        type: 'int',
        default: 300000,
        min: 1,
        description: 'Milliseconds between checkpoints of STREAMING jobs without checkpoint.interval.',
      },
      timeout: { type: 'int', default: 30000, min: 1, description: 'Milliseconds a checkpoint may take.' },
      storage: {
        type: 'section',
        description: 'Where completed checkpoints are written.',
        fields: {
          type: { type: 'enum', values: ['localfile', 'hdfs', 's3'], default: 'localfile', description: 'Storage plugin.' },
          'max-retained': { type: 'int', default: 20, min: 1, description: 'Completed checkpoints kept per pipeline.' },
          'plugin-config': { type: 'map', known: CHECKPOINT_PLUGIN_CONFIG, description: 'Settings of the storage plugin.' },
        },
      },
    },
  },
  'jar-storage': {
    type: 'section',
    description:
      "SeaTunnel's connector jar storage, for Tideway's plugin packages: the coordinator stores each package a job names once by its sha256 in checkpoint storage and workers fetch it from the coordinator (docs/plugins.md, In a cluster).",
    fields: {
      enable: {
        type: 'boolean',
        default: true,
        description:
          "Store and ship plugin packages to the workers (Tideway's default is true; SeaTunnel's is false, its servers hold every connector jar). false: each process uses its own plugin folders only.",
      },
      'connector-jar-storage-mode': {
        type: 'enum',
        values: ['SHARED', 'ISOLATED'],
        default: 'SHARED',
        description:
          'SHARED: one stored copy per package hash, used by every job. ISOLATED (a copy per job) is refused: a package is immutable by its hash, so a copy per job would change nothing.',
      },
      'connector-jar-storage-path': {
        type: 'string',
        default: '',
        description:
          "The folder where this process unpacks the stored packages it runs, one sub-folder per sha256 (empty: tideway-plugin-cache in the system's temporary folder).",
      },
      'connector-jar-cleanup-task-interval': {
        type: 'int',
        default: 3600,
        min: 1,
        description: "Seconds between the leader coordinator's removals of expired packages from the store.",
      },
      'connector-jar-expiry-time': {
        type: 'int',
        default: 600,
        min: 1,
        description:
          'Seconds after which a stored package that no job named (since it was installed or last used) and no running job uses is removed from the store.',
      },
    },
  },
  'event-report-http': {
    type: 'section',
    description:
      "SeaTunnel's job event report: the leading coordinator POSTs each job's events to url as a JSON array of SeaTunnel's event objects (docs/events.md).",
    fields: {
      url: { type: 'string', default: '', description: 'http(s) URL the events are POSTed to; empty: no report.' },
      headers: { type: 'map', description: 'HTTP headers sent with every POST, e.g. Content-Type or Authorization.' },
    },
  },
  http: {
    type: 'section',
    description: "SeaTunnel's REST API v2, served by the coordinator beside its gRPC port.",
    fields: {
      'enable-http': { type: 'boolean', default: false, description: 'Serve the REST API.' },
      port: { type: 'int', default: 8080, min: 0, description: 'Port of the REST API (0 picks a free one).' },
      'context-path': { type: 'string', default: '', description: 'Prefix of every route, e.g. /seatunnel.' },
      'enable-dynamic-port': {
        type: 'boolean',
        default: true,
        description: 'When port is taken, use the first free one of port .. port + port-range.',
      },
      'port-range': { type: 'int', default: 100, min: 0, description: 'How many ports above port enable-dynamic-port may try.' },
      'max-body-bytes': {
        type: 'int',
        default: 16 * 1024 * 1024,
        min: 1024,
        description: 'Largest request body (bytes); a larger one is answered 413 before it is read to the end.',
      },
      'headers-timeout': {
        type: 'int',
        default: 10000,
        min: 1000,
        description:
          "Milliseconds a client may take to send a request's headers; a slower one (slow-loris) is answered 408 and disconnected.",
      },
      'request-timeout': {
        type: 'int',
        default: 30000,
        min: 1000,
        description:
          'Milliseconds a client may take to send a whole request, body included; a slower one is answered 408 and disconnected.',
      },
      'keep-alive-timeout': {
        type: 'int',
        default: 5000,
        min: 1,
        description: 'Milliseconds an idle keep-alive connection stays open.',
      },
      'max-connections': {
        type: 'int',
        default: 1000,
        min: 1,
        description: 'Open connections the REST API accepts at once; connections past it are closed as they arrive.',
      },
    },
  },
};

/** Tideway's own block, at the top level beside `seatunnel:`. */
export const TIDEWAY_SETTINGS: Readonly<Record<string, EngineSetting>> = {
  coordinator: {
    type: 'section',
    description: 'Where the coordinator listens, and where every coordinator of the cluster is.',
    fields: {
      ...endpointFields(5801, 'coordinator'),
      'advertised-address': advertisedAddress('coordinator', 'workers, the resource manager, the CLI and the other coordinators'),
      addresses: {
        type: 'string-list',
        default: [],
        description:
          "host:port of every coordinator, for workers, the resource manager and the CLI to find the leader (empty: this coordinator's host:port).",
      },
    },
  },
  'resource-manager': endpoint(5802, 'resource manager'),
  worker: {
    type: 'section',
    description: 'This worker process.',
    fields: {
      ...endpointFields(5803, 'worker'),
      'advertised-address': advertisedAddress('worker', 'the coordinator and the other workers (shuffles)'),
      attributes: { type: 'map', description: 'Tags of this worker, matched by a job env tag_filter.' },
      'leader-loss-timeout': {
        type: 'int',
        default: 30000,
        min: 1,
        description:
          'Milliseconds a worker runs on without hearing from any leader before it cancels its task groups and frees their slots.',
      },
    },
  },
  drain: {
    type: 'section',
    description: 'Taking a worker out of service (tideway cluster drain, or a worker that is sent SIGTERM): docs/operations.md.',
    fields: {
      'grace-period': {
        type: 'int',
        default: 30000,
        min: 0,
        description:
          "Milliseconds a worker sent SIGTERM waits for its task groups to move to other workers before it exits anyway (keep it below Kubernetes' terminationGracePeriodSeconds).",
      },
      'batch-timeout': {
        type: 'int',
        default: 600000,
        min: 0,
        description:
          'Milliseconds a pipeline without checkpoints (a BATCH job without checkpoint.interval) may run on a draining worker before the coordinator moves it by a restart.',
      },
    },
  },
  'plugin-call-timeout': {
    type: 'section',
    description:
      "How long one call into a connector or transform may run before its task is stopped and fails (a busy loop or a promise that never settles in a plugin), in milliseconds per kind of call; 0: no limit. The job then restarts as after any task failure (job.retry.times). On the coordinator the limits apply to plugin packages' split enumerators and aggregated committers, which run in a thread of their pipeline (built-in ones run on the coordinator's main thread, unlimited): docs/plugins.md.",
    fields: {
      open: {
        type: 'int',
        default: 600000,
        min: 0,
        description:
          "SourceReader.open; on the coordinator Source.prepare, Sink.prepare (save modes) and Sink.createAggregatedCommitter, and at submit a plugin package's factories and the inference of its tables.",
      },
      read: { type: 'int', default: 600000, min: 0, description: 'SourceReader.pollNext (one poll).' },
      transform: { type: 'int', default: 600000, min: 0, description: 'Transform.transform (one batch).' },
      write: { type: 'int', default: 600000, min: 0, description: 'SinkWriter.write (one batch).' },
      checkpoint: {
        type: 'int',
        default: 600000,
        min: 0,
        description: 'snapshotState and prepareCommit at a checkpoint barrier; on the coordinator SplitEnumerator.snapshotState.',
      },
      commit: {
        type: 'int',
        default: 600000,
        min: 0,
        description:
          'SinkCommitter.commit and SourceReader.notifyCheckpointComplete; on the coordinator SinkAggregatedCommitter.combine and commit, SplitEnumerator.notifyCheckpointComplete.',
      },
      close: {
        type: 'int',
        default: 600000,
        min: 0,
        description:
          'SourceReader.close and SinkWriter.close; on the coordinator SplitEnumerator.close, SinkAggregatedCommitter.close and Sink.abandon.',
      },
      enumerate: {
        type: 'int',
        default: 600000,
        min: 0,
        description:
          "A split enumerator's calls on the coordinator: Source.createEnumerator, SplitEnumerator.open, run, registerReader, handleSplitRequest, handleSourceEvent and addSplitsBack.",
      },
    },
  },
  heartbeat: {
    type: 'section',
    description: 'Worker liveness.',
    fields: {
      interval: { type: 'int', default: 3000, min: 1, description: 'Milliseconds between worker heartbeats.' },
      timeout: { type: 'int', default: 30000, min: 1, description: 'Milliseconds without a heartbeat before a worker is declared dead.' },
    },
  },
  'state-store': {
    type: 'section',
    description: 'Where coordinators keep job state.',
    fields: {
      type: {
        type: 'enum',
        values: ['memory', 'redis'],
        default: 'memory',
        description: 'memory (one coordinator, state lost on exit) or redis (HA).',
      },
      redis: {
        type: 'section',
        description: 'The Redis holding the state, for type redis.',
        fields: {
          address: { type: 'string', default: '', description: 'host:port of the Redis that holds the state (required for type redis).' },
          password: {
            type: 'string',
            default: '',
            description: 'Password of its default user (also used for the lock nodes); empty for none.',
          },
          'key-prefix': {
            type: 'string',
            default: 'tideway:',
            description: 'Prefix of every key Tideway writes (several clusters can share one Redis).',
          },
          'wait-replicas': {
            type: 'int',
            default: 0,
            min: 0,
            description:
              'Replicas that must acknowledge a critical write (epoch, submit, checkpoint pointer, job end) before it counts (Redis WAIT); 0 waits for none.',
          },
          'wait-timeout': {
            type: 'int',
            default: 1000,
            min: 1,
            description: 'Milliseconds a critical write waits for its replicas before it goes on with a warning.',
          },
        },
      },
    },
  },
  auth: {
    type: 'section',
    description:
      'Bearer tokens (and, with tideway.tls, client certificates) of JobService and the REST API. Neither (the default): every call is allowed.',
    fields: {
      tokens: {
        type: 'map',
        description:
          'Token name -> "<sha256:hex> <role> [<namespace>]" (role viewer, operator or admin; viewer and operator need a namespace). Only the hash is stored: `tideway token create` prints a token and its line.',
      },
      certificates: {
        type: 'map',
        description:
          'Client certificate -> "<role> [<namespace>]", for callers that send no token: the key is the subject CN (or CN:<cn>), or a subjectAltName as DNS:<name>, URI:<uri>, email:<address> or IP:<address>. Needs tideway.tls: only certificates the cluster CA signed get this far.',
      },
      namespaces: {
        type: 'map',
        description:
          'Limits per namespace (the key), checked when a job of that namespace is submitted or planned. A namespace without an entry, or a list that is empty, has no limit of that kind.',
        each: {
          type: 'section',
          description: 'The limits of one namespace.',
          fields: {
            'allowed-plugins': {
              type: 'string-list',
              default: [],
              description: 'The plugins (sources, transforms, sinks) its jobs may use, e.g. [FakeSource, Sql, LocalFile, Console].',
            },
            'local-file-path-prefixes': {
              type: 'string-list',
              default: [],
              description:
                "Absolute folders the LocalFile source and sink of its jobs may read and write in (path, and a sink's tmp_path), e.g. [/data/team-a/].",
            },
            'max-running-jobs': {
              type: 'int',
              default: 0,
              min: 0,
              description:
                'Jobs of the namespace that may hold slots at once (0: no limit). One more waits in the queue (job-schedule-strategy WAIT) or is refused (REJECT).',
            },
            'max-slots': {
              type: 'int',
              default: 0,
              min: 0,
              description:
                'Slots (one per task group, with fixed or dynamic slots) the jobs of the namespace may hold at once (0: no limit). A job that would go over waits (WAIT) or is refused (REJECT).',
            },
          },
        },
      },
    },
  },
  tls: {
    type: 'section',
    description:
      'Mutual TLS on every gRPC port of this process (JobService included): it presents its own certificate and accepts only peers whose certificate the cluster CA signed. Unset (the default): plaintext. Files are read again when they change.',
    fields: {
      'ca-file': {
        type: 'string',
        default: '',
        description: 'PEM file of the cluster CA that signs every certificate of the cluster (`tideway cluster certs` writes one).',
      },
      'cert-file': {
        type: 'string',
        default: '',
        description: "PEM file of this process's certificate (its role's: coordinator, resource-manager, worker).",
      },
      'key-file': { type: 'string', default: '', description: 'PEM file of the private key of that certificate.' },
    },
  },
  plugins: {
    type: 'section',
    description: 'Where this process finds plugin packages besides the built-in ones (docs/plugins.md).',
    fields: {
      dirs: {
        type: 'string-list',
        default: ['plugins'],
        description:
          'Folders holding plugin packages, one package folder each; a relative folder is taken beside the install (the folder holding deploy/). The default plugins/ may be absent; a folder named here otherwise must exist.',
      },
    },
  },
  metrics: {
    type: 'section',
    description: "The coordinator's Prometheus metrics (cluster start --metrics-port, docs/cluster.md).",
    fields: {
      'max-table-series': {
        type: 'int',
        default: 100,
        min: 1,
        description:
          'Tables per job with series of their own (tideway_table_*); later tables of the job are summed into one series labelled table="_other".',
      },
    },
  },
  logs: {
    type: 'section',
    description:
      "Per-job logs: each coordinator and worker keeps the lines it logs for a job in a file per job (tideway logs, REST /logs, docs/logs.md); deleted history-job-expire-minutes after the job's last line.",
    fields: {
      dir: {
        type: 'string',
        default: '',
        description: "Folder of this process's per-job log files; empty: tideway/log in the system's temporary folder.",
      },
      level: {
        type: 'enum',
        values: ['info', 'warn', 'error'],
        default: 'info',
        description: 'Lowest level kept in the per-job logs (stderr keeps TIDEWAY_LOG_LEVEL, warn by default).',
      },
      'max-file-bytes': {
        type: 'int',
        default: 10_485_760,
        min: 4096,
        description: "A job's file is rotated past this size; one older file is kept, so a job takes at most twice this per process.",
      },
    },
  },
  'checkpoint-history': {
    type: 'section',
    description: "Each pipeline's checkpoint history (JobInfo, REST /jobs/checkpoints, `tideway checkpoints`), kept in the state store.",
    fields: {
      size: {
        type: 'int',
        default: 32,
        min: 1,
        max: 1000,
        description: 'Checkpoints (completed, failed, aborted) kept per pipeline, newest first.',
      },
    },
  },
  events: {
    type: 'section',
    description:
      'Job events (state changes, checkpoint failures, fail-overs) POSTed by the leading coordinator to webhooks, and to seatunnel.engine.event-report-http (docs/events.md).',
    fields: {
      webhooks: {
        type: 'map',
        description: 'Receivers by name; each gets every job event as JSON, batched, with an event id and a per-job sequence.',
        each: {
          type: 'section',
          description: 'One receiver.',
          fields: {
            url: { type: 'string', default: '', description: 'http(s) URL the events are POSTed to (required).' },
            headers: { type: 'map', description: 'HTTP headers sent with every POST.' },
            secret: {
              type: 'string',
              default: '',
              description:
                'When set, every POST carries X-Tideway-Signature: sha256=<hex HMAC-SHA256 of the body with this secret>; empty: unsigned.',
            },
          },
        },
      },
      'buffer-size': {
        type: 'int',
        default: 10000,
        min: 1,
        description: 'Events held per receiver while it is down; past it the oldest are dropped (counted and logged).',
      },
      'batch-size': { type: 'int', default: 100, min: 1, description: 'Most events in one POST.' },
      'flush-interval': {
        type: 'int',
        default: 1000,
        min: 1,
        description: 'Milliseconds an event may wait for others to join its batch.',
      },
      'request-timeout': { type: 'int', default: 10000, min: 1, description: 'Milliseconds a POST may take before it counts as failed.' },
      'max-retry-interval': {
        type: 'int',
        default: 30000,
        min: 1,
        description: 'Longest wait between attempts at a receiver that is down (the wait doubles from 250 ms up to this).',
      },
    },
  },
  limits: {
    type: 'section',
    description: 'Sizes every request must keep to; a request past one is refused with a sentence naming the setting, and changes nothing.',
    fields: {
      'max-message-bytes': {
        type: 'int',
        default: 256 * 1024 * 1024,
        min: 64 * 1024,
        max: 2 ** 31 - 1,
        description:
          'Largest gRPC message every server of this process receives (JobService, CoordinatorService, ResourceManager, WorkerService, DataExchange); a larger one is refused with RESOURCE_EXHAUSTED. Record batches and checkpoint states must fit.',
      },
      'max-config-bytes': {
        type: 'int',
        default: 4 * 1024 * 1024,
        min: 1024,
        description:
          'Largest job config (UTF-8 bytes) that SubmitJob and PlanJob accept, over gRPC and REST; also the most a config may grow to once its ${...} substitutions are resolved.',
      },
      'max-config-depth': {
        type: 'int',
        default: 64,
        min: 4,
        max: 256,
        description:
          'Deepest nesting of objects and lists in a job config (each key of a dotted path counts), and the longest chain of ${...} substitutions.',
      },
    },
  },
  ha: {
    type: 'section',
    description: 'Leader election among coordinators (Redlock lease plus fencing epoch), for state-store type redis.',
    fields: {
      'lock-nodes': {
        type: 'string-list',
        default: [],
        description:
          'host:port of each independent Redis node of the Redlock lease, an odd count (1, 3, 5); empty: the state-store Redis alone.',
      },
      'lease-ttl': {
        type: 'int',
        default: 5000,
        min: 1,
        description: 'Milliseconds a leader lease lasts unless extended; a dead leader is replaced after about this long.',
      },
      'retry-interval': {
        type: 'int',
        default: 500,
        min: 1,
        description: 'Milliseconds between attempts of a follower to take the lease.',
      },
    },
  },
};
