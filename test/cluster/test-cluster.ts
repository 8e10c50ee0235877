import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { JobServiceClient, ResourceManagerServiceClient, type JobInfo, type WorkerProfile } from '@tideway/contracts';
import { LeaderCaller, call, clientOptions, channelCredentials } from '@tideway/rpc';
import type { TestServer } from '@tideway/testing';
import { runCli, spawnCli, type CliResult } from '../conformance/cli-process.js';
import { freePort } from '../e2e/free-port.js';
import { pollUntil } from './poll-until.js';

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
  /** Mutual TLS: the tideway.tls files of each process (test clients set theirs with configureTls). */
  tls?: (name: ProcessName) => { caFile: string; certFile: string; keyFile: string };
  /** More lines under tideway (YAML, indented by the caller under `tideway:`). */
  tidewayYaml?: string[];
  /** More lines under seatunnel.engine (YAML, indented by the caller under `engine:`). */
  engineYaml?: string[];
}

export type ProcessName = 'coordinator' | `coordinator-${number}` | 'resource-manager' | `worker-${number}`;

const isCoordinator = (n: ProcessName) => n === 'coordinator' || n.startsWith('coordinator-');

/**
 * A real cluster on loopback for tests: a coordinator, a resource manager and workers, each a
 * CLI process (`tideway cluster start --role ...`) with its own generated engine config, on
 * free ports, with a Prometheus endpoint each. `stop()` kills whatever is left.
 */
export class TestCluster {
  readonly processes = new Map<ProcessName, ChildProcess>();
  readonly logs = new Map<ProcessName, string>();
  readonly metricsPorts = new Map<ProcessName, number>();
  readonly grpcPorts = new Map<ProcessName, number>();
  private jobClient?: JobServiceClient;
  private rmClient?: ResourceManagerServiceClient;
  private leaderCaller?: LeaderCaller<JobServiceClient>;

  private constructor(
    readonly dir: string,
    readonly options: TestClusterOptions,
    readonly coordinatorPort: number,
    readonly rmPort: number,
  ) {}

  static async start(options: TestClusterOptions): Promise<TestCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'tideway-cluster-'));
    const cluster = new TestCluster(dir, options, await freePort(), await freePort());
    try {
      cluster.grpcPorts.set('coordinator', cluster.coordinatorPort);
      for (let i = 2; i <= (options.coordinators ?? 1); i++) cluster.grpcPorts.set(`coordinator-${i}`, await freePort());
      cluster.grpcPorts.set('resource-manager', cluster.rmPort);
      for (let i = 1; i <= options.workers.length; i++) cluster.grpcPorts.set(`worker-${i}`, await freePort());
      for (const name of cluster.grpcPorts.keys()) {
        cluster.metricsPorts.set(name, await freePort());
        cluster.writeConfig(name);
      }
      if (options.startOrder) for (const name of options.startOrder) await cluster.startProcess(name);
      else await Promise.all([...cluster.grpcPorts.keys()].map((name) => cluster.startProcess(name)));
      await cluster.until('every worker registered', async () => (await cluster.workers()).length === options.workers.length);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Every coordinator's address, comma-separated (as --address takes them). */
  get address(): string {
    return this.coordinatorAddresses.join(',');
  }

  get coordinatorAddresses(): string[] {
    return [...this.grpcPorts].filter(([n]) => isCoordinator(n)).map(([, port]) => `127.0.0.1:${port}`);
  }

  coordinatorNames(): ProcessName[] {
    return [...this.grpcPorts.keys()].filter(isCoordinator);
  }

  configFile(name: ProcessName): string {
    return join(this.dir, `${name}.yaml`);
  }

  private writeConfig(name: ProcessName): void {
    const o = this.options;
    const index = name.startsWith('worker-') ? Number(name.slice('worker-'.length)) - 1 : 0;
    const attributes = o.workers[index]?.attributes ?? {};
    const coordinatorPort = isCoordinator(name) ? this.grpcPorts.get(name)! : this.coordinatorPort;
    const ha = o.ha;
    const haYaml = ha
      ? [
          '  state-store:',
          '    type: redis',
          `    redis: { address: "127.0.0.1:${ha.state.port}" }`,
          '  ha:',
          `    lock-nodes: [${(ha.lockNodes ?? [ha.state]).map((n) => `"127.0.0.1:${n.port}"`).join(', ')}]`,
          `    lease-ttl: ${ha.leaseTtlMs ?? 2000}`,
          `    retry-interval: ${ha.retryIntervalMs ?? 200}`,
        ]
      : [];
    const yaml = [
      'seatunnel:',
      '  engine:',
      `    job-schedule-strategy: ${o.jobScheduleStrategy}`,
      '    slot-service:',
      '      dynamic-slot: false',
      `      slot-num: ${o.slotNum}`,
      '    checkpoint:',
      '      storage:',
      '        plugin-config:',
      `          namespace: ${join(this.dir, 'checkpoints')}/`,
      ...(o.engineYaml ?? []).map((l) => `    ${l}`),
      'tideway:',
      `  coordinator: { host: 127.0.0.1, port: ${coordinatorPort}, addresses: [${this.coordinatorAddresses.map((a) => `"${a}"`).join(', ')}] }`,
      `  resource-manager: { host: 127.0.0.1, port: ${this.rmPort} }`,
      '  worker:',
      '    host: 127.0.0.1',
      `    port: ${name.startsWith('worker-') ? this.grpcPorts.get(name) : 0}`,
      `    attributes: ${JSON.stringify(attributes)}`,
      `    leader-loss-timeout: ${o.leaderLossTimeoutMs ?? 30_000}`,
      `  heartbeat: { interval: ${o.heartbeatMs ?? 300}, timeout: ${o.heartbeatTimeoutMs ?? 3000} }`,
      ...haYaml,
      ...(o.tidewayYaml ?? []).map((l) => `  ${l}`),
      ...(o.tls ? [`  tls: ${JSON.stringify({ 'ca-file': o.tls(name).caFile, 'cert-file': o.tls(name).certFile, 'key-file': o.tls(name).keyFile })}`] : []),
      '',
    ].join('\n');
    writeFileSync(this.configFile(name), yaml);
  }

  /** Starts (or restarts) one process and resolves once its gRPC server listens. */
  async startProcess(name: ProcessName): Promise<void> {
    const role = name.startsWith('worker-') ? 'worker' : isCoordinator(name) ? 'coordinator' : name;
    const child = spawnCli(
      ['cluster', 'start', '--role', role, '--engine-config', this.configFile(name), '--metrics-port', String(this.metricsPorts.get(name))],
      { TIDEWAY_LOG_LEVEL: 'info' },
    );
    this.processes.set(name, child);
    let log = '';
    const append = (s: string) => {
      log += s;
      this.logs.set(name, (this.logs.get(name) ?? '') + s);
    };
    child.stdout!.setEncoding('utf8').on('data', append);
    child.stderr!.setEncoding('utf8').on('data', append);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${log}`)), 60_000);
      const check = () => {
        if (/metrics at http/.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stderr!.on('data', check);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) while starting:\n${log}`));
      });
    });
  }

  /** How many lines of a process's output contain `text`. */
  logLines(name: ProcessName, text: string): number {
    return (this.logs.get(name) ?? '').split('\n').filter((l) => l.includes(text)).length;
  }

  /** Pauses (SIGSTOP) or resumes (SIGCONT) a process. */
  signal(name: ProcessName, signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.processes.get(name)?.kill(signal);
  }

  /** Sends a signal to one process and waits for it to exit. */
  async kill(name: ProcessName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    this.processes.delete(name);
  }

  /** Stops every process: SIGTERM, then SIGKILL for any still running after 5 s. */
  async stop(): Promise<void> {
    // TIDEWAY_TEST_LOGS=<dir> keeps every process's output there (for debugging a failure).
    const keep = process.env.TIDEWAY_TEST_LOGS;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      for (const [name, text] of this.logs) writeFileSync(join(keep, `${name}.log`), text);
    }
    this.jobClient?.close();
    this.rmClient?.close();
    this.leaderCaller?.close();
    await Promise.all(
      [...this.processes.keys()].map(async (name) => {
        const child = this.processes.get(name)!;
        child.kill('SIGCONT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await this.kill(name, 'SIGTERM');
        clearTimeout(timer);
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
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
    return this.leader((c) => call(c.getJob, c, { jobId }, { deadlineMs: 10_000 }));
  }

  /** Which coordinator leads now (by its metrics), or undefined. */
  async leaderName(): Promise<ProcessName | undefined> {
    for (const name of this.coordinatorNames()) {
      if (!this.processes.has(name)) continue;
      if ((await this.metric(name, 'tideway_coordinator_leader').catch(() => undefined)) === 1) return name;
    }
    return undefined;
  }

  /** The resource manager's registry (fails while it is down). */
  async workers(): Promise<WorkerProfile[]> {
    this.rmClient ??= new ResourceManagerServiceClient(`127.0.0.1:${this.rmPort}`, channelCredentials(), clientOptions);
    return (await call(this.rmClient.listWorkers, this.rmClient, {}, { deadlineMs: 5000 })).workers;
  }

  /** The Prometheus text of one process. */
  async metrics(name: ProcessName): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPorts.get(name)}/metrics`);
    if (!res.ok) throw new Error(`metrics of ${name}: HTTP ${res.status}`);
    return res.text();
  }

  /** One sample's value from a process's metrics (`name{labels}` as printed), or undefined. */
  async metric(name: ProcessName, sample: string): Promise<number | undefined> {
    const text = await this.metrics(name);
    const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
    return line === undefined ? undefined : Number(line.slice(sample.length + 1));
  }

  /** Polls `check` until it holds; fails with `what` and the logs after `timeoutMs`. */
  async until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
    await pollUntil(what, check, timeoutMs, () => [...this.logs].map(([n, l]) => `--- ${n}\n${l.split('\n').slice(-15).join('\n')}`).join('\n'));
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
  const tags = opts.tagFilter ? `  tag_filter { ${Object.entries(opts.tagFilter).map(([k, v]) => `${k} = "${v}"`).join(', ')} }\n` : '';
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
