import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobServiceClient, ResourceManagerServiceClient, type JobInfo, type WorkerProfile } from '@tideway/contracts';
import { LeaderCaller, call, channelCredentials, clientOptions } from '@tideway/rpc';
import { ClusterProcesses, type ClusterProcessName, type TestServer } from '@tideway/testing';
import { runCli, type CliResult } from '../conformance/cli-process.js';
import { pollUntil } from './poll-until.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { cliNodeArgs } from '../../scripts/cli-entry.mjs';

/** One worker of a test cluster: its tags (env.tag_filter matches them). */
export interface TestWorker {
  attributes: Record<string, string>;
}

export interface TestClusterOptions {
  workers: TestWorker[];
  /** Fixed slots per worker (dynamic-slot false). */
  slotNum: number;
  jobScheduleStrategy: 'WAIT' | 'REJECT';
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** Start the processes one after the other in this order (default: all at once). */
  startOrder?: ProcessName[];
  /** How many coordinators (default 1); the first is `coordinator`, the others `coordinator-N`. */
  coordinators?: number;
  /** High availability: the state store in Redis and the leader lease on Redlock nodes. */
  ha?: {
    state: TestServer;
    /** Redlock nodes (default: the state Redis). */
    lockNodes?: TestServer[];
    leaseTtlMs?: number;
    retryIntervalMs?: number;
  };
  leaderLossTimeoutMs?: number;
  /** More lines under seatunnel.engine (YAML, indented as if directly under `engine:`). */
  engineYaml?: string[];
  /** More lines under tideway (YAML, indented as if directly under `tideway:`), for every process or by process. */
  tidewayYaml?: string[] | ((name: ProcessName) => string[]);
  /** Mutual TLS: the tideway.tls files of each process (test clients set theirs with configureTls). */
  tls?: (name: ProcessName) => { caFile: string; certFile: string; keyFile: string };
}

export type ProcessName = ClusterProcessName;

/**
 * A real cluster on loopback for tests: the processes of libs/testing's ClusterProcesses (the
 * launcher `tideway chaos` uses too), with fast heartbeats and leases by default, plus the
 * clients and polling the tests need. `stop()` kills whatever is left.
 */
export class TestCluster {
  private jobClient?: JobServiceClient;
  private rmClient?: ResourceManagerServiceClient;
  private leaderCaller?: LeaderCaller<JobServiceClient>;

  private constructor(
    readonly processes: ClusterProcesses,
    readonly options: TestClusterOptions,
  ) {}

  static async start(options: TestClusterOptions): Promise<TestCluster> {
    const ha = options.ha;
    const processes = await ClusterProcesses.create({
      cli: cliNodeArgs(),
      cwd: repoRoot,
      workers: options.workers,
      slotNum: options.slotNum,
      jobScheduleStrategy: options.jobScheduleStrategy,
      heartbeatMs: options.heartbeatMs ?? 300,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 3000,
      coordinators: options.coordinators,
      ha: ha && {
        stateAddress: `127.0.0.1:${ha.state.port}`,
        lockNodes: (ha.lockNodes ?? [ha.state]).map((n) => `127.0.0.1:${n.port}`),
        leaseTtlMs: ha.leaseTtlMs ?? 2000,
        retryIntervalMs: ha.retryIntervalMs ?? 200,
      },
      leaderLossTimeoutMs: options.leaderLossTimeoutMs ?? 30_000,
      engineYaml: options.engineYaml?.map((l) => `    ${l}`),
      tidewayYaml: (name) => [
        ...((typeof options.tidewayYaml === 'function' ? options.tidewayYaml(name) : options.tidewayYaml) ?? []).map((l) => `  ${l}`),
        ...(options.tls
          ? [
              `  tls: ${JSON.stringify({ 'ca-file': options.tls(name).caFile, 'cert-file': options.tls(name).certFile, 'key-file': options.tls(name).keyFile })}`,
            ]
          : []),
      ],
    });
    const cluster = new TestCluster(processes, options);
    try {
      await processes.startAll(options.startOrder);
      await cluster.until('every worker registered', async () => (await cluster.workers()).length === options.workers.length);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** The engine config file of one process. */
  configFile(name: ProcessName): string {
    return this.processes.configFile(name);
  }

  get dir(): string {
    return this.processes.dir;
  }

  get grpcPorts(): ReadonlyMap<ProcessName, number> {
    return this.processes.grpcPorts;
  }

  get metricsPorts(): ReadonlyMap<ProcessName, number> {
    return this.processes.metricsPorts;
  }

  get coordinatorPort(): number {
    return this.processes.grpcPorts.get('coordinator')!;
  }

  get rmPort(): number {
    return this.processes.grpcPorts.get('resource-manager')!;
  }

  /** Every process's output so far, by name. */
  get logs(): Map<ProcessName, string> {
    return new Map(this.processes.names().map((n) => [n, this.processes.log(n)]));
  }

  /** Every coordinator's address, comma-separated (as --address takes them). */
  get address(): string {
    return this.coordinatorAddresses.join(',');
  }

  get coordinatorAddresses(): string[] {
    return this.processes.coordinatorAddresses;
  }

  coordinatorNames(): ProcessName[] {
    return this.processes.coordinatorNames();
  }

  /** `127.0.0.1:port` of a process's gRPC server. */
  addressOf(name: ProcessName): string {
    return this.processes.address(name);
  }

  /** The process listening at a gRPC address. */
  nameAt(address: string): ProcessName | undefined {
    return this.processes.nameOf(address);
  }

  /** Starts (or restarts) one process and resolves once its gRPC server listens. */
  startProcess(name: ProcessName): Promise<void> {
    return this.processes.startProcess(name);
  }

  /** How many lines of a process's output contain `text`. */
  logLines(name: ProcessName, text: string): number {
    return this.processes
      .log(name)
      .split('\n')
      .filter((l) => l.includes(text)).length;
  }

  /** Pauses (SIGSTOP) or resumes (SIGCONT) a process. */
  signal(name: ProcessName, signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.processes.signal(name, signal);
  }

  /** Sends a signal to one process and waits for it to exit; resolves with its exit code (null: ended by the signal). */
  kill(name: ProcessName, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    return this.processes.kill(name, signal);
  }

  /** Stops every process: SIGTERM, then SIGKILL for any still running after 5 s. */
  async stop(): Promise<void> {
    // TIDEWAY_TEST_LOGS=<dir> keeps every process's output there (for debugging a failure).
    const keep = process.env.TIDEWAY_TEST_LOGS;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      for (const name of this.processes.names()) {
        try {
          copyFileSync(this.processes.logFile(name), join(keep, `${name}.log`));
        } catch {
          // never started
        }
      }
    }
    this.jobClient?.close();
    this.rmClient?.close();
    this.leaderCaller?.close();
    await this.processes.stop();
  }

  /** The CLI against this cluster's coordinator. */
  cli(args: string[], timeoutMs = 120_000): Promise<CliResult> {
    return runCli([...args, '--address', this.address], timeoutMs);
  }

  /** JobService of the first coordinator. */
  get jobs(): JobServiceClient {
    this.jobClient ??= new JobServiceClient(`127.0.0.1:${this.coordinatorPort}`, channelCredentials(), clientOptions);
    return this.jobClient;
  }

  /** Calls JobService at whichever coordinator leads (following redirects, as the CLI does). */
  leader<Res>(fn: (c: JobServiceClient) => Promise<Res>, budgetMs = 30_000): Promise<Res> {
    this.leaderCaller ??= new LeaderCaller(this.coordinatorAddresses, (a) => new JobServiceClient(a, channelCredentials(), clientOptions));
    return this.leaderCaller.call(fn, budgetMs);
  }

  async job(jobId: string): Promise<JobInfo> {
    return this.leader((c) => call(c, 'getJob', { jobId }, { deadlineMs: 10_000 }));
  }

  /** Which coordinator leads now (by its metrics), or undefined. */
  leaderName(): Promise<ProcessName | undefined> {
    return this.processes.leaderName(5000);
  }

  /** The resource manager's registry (fails while it is down). */
  async workers(): Promise<WorkerProfile[]> {
    this.rmClient ??= new ResourceManagerServiceClient(`127.0.0.1:${this.rmPort}`, channelCredentials(), clientOptions);
    return (await call(this.rmClient, 'listWorkers', {}, { deadlineMs: 5000 })).workers;
  }

  /** The Prometheus text of one process. */
  metrics(name: ProcessName): Promise<string> {
    return this.processes.metrics(name);
  }

  /** One sample's value from a process's metrics (`name{labels}` as printed), or undefined. */
  metric(name: ProcessName, sample: string): Promise<number | undefined> {
    return this.processes.metric(name, sample);
  }

  /** Polls `check` until it holds; fails with `what` and the logs after `timeoutMs`. */
  until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
    return pollUntil(what, check, timeoutMs, () =>
      [...this.logs].map(([n, l]) => `--- ${n}\n${l.split('\n').slice(-15).join('\n')}`).join('\n'),
    );
  }
}

/** Writes a job config into the cluster's folder and returns its path. */
export function jobFile(cluster: TestCluster, name: string, text: string): string {
  const file = join(cluster.dir, name);
  writeFileSync(file, text);
  return file;
}

/**
 * A FakeSource -> Console job that prints no rows. FakeSource reads one split per
 * `readIntervalMs` per reader; a STREAMING one then idles without ending, so a job whose rows
 * must keep growing needs many splits (`splitNum`, default one per reader).
 */
export function fakeJob(opts: {
  mode: 'BATCH' | 'STREAMING';
  parallelism: number;
  rowNum: number;
  splitNum?: number;
  readIntervalMs?: number;
  name?: string;
  tagFilter?: Record<string, string>;
}): string {
  const tags = opts.tagFilter
    ? `  tag_filter { ${Object.entries(opts.tagFilter)
        .map(([k, v]) => `${k} = "${v}"`)
        .join(', ')} }\n`
    : '';
  return `env {
  job.mode = "${opts.mode}"
  parallelism = ${opts.parallelism}
${opts.name ? `  job.name = "${opts.name}"\n` : ''}${tags}  checkpoint.interval = 2000
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = ${opts.rowNum}
    split.num = ${opts.splitNum ?? opts.parallelism}
    split.read-interval = ${opts.readIntervalMs ?? 100}
    schema = { fields { id = "int", name = "string" } }
  }
}
sink {
  Console { plugin_input = "fake", log.print.data = false }
}
`;
}
