import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startWatchdog } from './server-process.js';

/** A process of a cluster: `coordinator`, `coordinator-2`…, `resource-manager`, `worker-1`… */
export type ClusterProcessName = 'coordinator' | `coordinator-${number}` | 'resource-manager' | `worker-${number}`;

/** Whether a process name is one of the coordinators. */
export const isCoordinatorName = (n: ClusterProcessName): boolean => n === 'coordinator' || n.startsWith('coordinator-');
/** Whether a process name is one of the workers. */
export const isWorkerName = (n: ClusterProcessName): boolean => n.startsWith('worker-');

/** What a cluster of real processes is made of. Settings left out keep the engine defaults. */
export interface ClusterProcessesOptions {
  /** Node arguments that start the Tideway CLI (its own arguments follow), e.g. `[dist/main.js]`. */
  cli: readonly string[];
  /** Working directory of the processes (default: this process's). */
  cwd?: string;
  /** Folder for engine configs, logs and checkpoints (default: a new temp folder, removed by stop()). */
  dir?: string;
  /** Tags (tideway.worker.attributes) of each worker; their number is the number of workers. */
  workers: ReadonlyArray<{ attributes: Record<string, string> }>;
  /** Fixed slots per worker (dynamic-slot false). */
  slotNum: number;
  jobScheduleStrategy: 'WAIT' | 'REJECT';
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** How many coordinators (default 1); the first is `coordinator`, the others `coordinator-N`. */
  coordinators?: number;
  /** High availability: the state store in Redis and the leader lease on Redlock nodes (`host:port`). */
  ha?: { stateAddress: string; lockNodes?: readonly string[]; leaseTtlMs?: number; retryIntervalMs?: number };
  leaderLossTimeoutMs?: number;
  /** Extra engine settings under seatunnel.engine, as YAML lines indented by 4. */
  engineYaml?: readonly string[];
  /** Extra settings under tideway for one process (tls, auth), as YAML lines indented by 2. */
  tidewayYaml?: (name: ClusterProcessName) => readonly string[];
  /** Environment of the processes, on top of this process's (default TIDEWAY_LOG_LEVEL=info). */
  env?: NodeJS.ProcessEnv;
  /** How long a process may take to start serving (default 60 s). */
  startTimeoutMs?: number;
}

/**
 * Real Tideway processes on loopback: coordinators, a resource manager and workers, each
 * `tideway cluster start --role …` with its own generated engine config, on free ports, with a
 * Prometheus endpoint each. Processes can be killed, paused and started again on the same
 * ports; their output goes to `<dir>/logs/<name>.log` (kept across restarts), their per-job logs
 * to `<dir>/job-logs/`. A watchdog ends
 * each one if this process dies without stop(). Used by the cluster tests and `tideway chaos`.
 */
export class ClusterProcesses {
  readonly grpcPorts = new Map<ClusterProcessName, number>();
  readonly metricsPorts = new Map<ClusterProcessName, number>();
  private readonly children = new Map<ClusterProcessName, ChildProcess>();
  private readonly paused = new Set<ClusterProcessName>();
  private readonly ownsDir: boolean;

  private constructor(
    readonly dir: string,
    readonly options: ClusterProcessesOptions,
  ) {
    this.ownsDir = options.dir === undefined;
  }

  /** Picks the ports and writes every engine config; starts nothing. */
  static async create(options: ClusterProcessesOptions): Promise<ClusterProcesses> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'tideway-cluster-'));
    mkdirSync(join(dir, 'logs'), { recursive: true });
    const c = new ClusterProcesses(dir, options);
    c.grpcPorts.set('coordinator', await freePort());
    for (let i = 2; i <= (options.coordinators ?? 1); i++) c.grpcPorts.set(`coordinator-${i}`, await freePort());
    c.grpcPorts.set('resource-manager', await freePort());
    for (let i = 1; i <= options.workers.length; i++) c.grpcPorts.set(`worker-${i}`, await freePort());
    for (const name of c.grpcPorts.keys()) {
      c.metricsPorts.set(name, await freePort());
      writeFileSync(c.configFile(name), c.engineConfig(name));
    }
    return c;
  }

  names(): ClusterProcessName[] {
    return [...this.grpcPorts.keys()];
  }

  coordinatorNames(): ClusterProcessName[] {
    return this.names().filter(isCoordinatorName);
  }

  workerNames(): ClusterProcessName[] {
    return this.names().filter(isWorkerName);
  }

  /** `127.0.0.1:port` of a process's gRPC server. */
  address(name: ClusterProcessName): string {
    return `127.0.0.1:${this.grpcPorts.get(name)}`;
  }

  /** Every coordinator's address. */
  get coordinatorAddresses(): string[] {
    return this.coordinatorNames().map((n) => this.address(n));
  }

  /** The process listening on `address`, if it is one of these. */
  nameOf(address: string): ClusterProcessName | undefined {
    return this.names().find((n) => this.address(n) === address);
  }

  configFile(name: ClusterProcessName): string {
    return join(this.dir, `${name}.yaml`);
  }

  logFile(name: ClusterProcessName): string {
    return join(this.dir, 'logs', `${name}.log`);
  }

  /** Everything a process wrote so far, over all its starts. */
  log(name: ClusterProcessName): string {
    try {
      return readFileSync(this.logFile(name), 'utf8');
    } catch {
      return '';
    }
  }

  private engineConfig(name: ClusterProcessName): string {
    const o = this.options;
    const index = isWorkerName(name) ? Number(name.slice('worker-'.length)) - 1 : 0;
    const attributes = o.workers[index]?.attributes ?? {};
    const coordinatorPort = this.grpcPorts.get(isCoordinatorName(name) ? name : 'coordinator');
    const opt = (key: string, value: number | undefined) => (value === undefined ? [] : [`${key}: ${value}`]);
    const ha = o.ha
      ? [
          '  state-store:',
          '    type: redis',
          `    redis: { address: "${o.ha.stateAddress}" }`,
          '  ha:',
          `    lock-nodes: [${(o.ha.lockNodes ?? [o.ha.stateAddress]).map((n) => `"${n}"`).join(', ')}]`,
          ...opt('    lease-ttl', o.ha.leaseTtlMs),
          ...opt('    retry-interval', o.ha.retryIntervalMs),
        ]
      : [];
    const heartbeat = [...opt('    interval', o.heartbeatMs), ...opt('    timeout', o.heartbeatTimeoutMs)];
    return [
      'seatunnel:',
      '  engine:',
      `    job-schedule-strategy: ${o.jobScheduleStrategy}`,
      ...(o.engineYaml ?? []),
      '    slot-service:',
      '      dynamic-slot: false',
      `      slot-num: ${o.slotNum}`,
      '    checkpoint:',
      '      storage:',
      '        plugin-config:',
      `          namespace: ${join(this.dir, 'checkpoints')}/`,
      'tideway:',
      `  coordinator: { host: 127.0.0.1, port: ${coordinatorPort}, addresses: [${this.coordinatorAddresses.map((a) => `"${a}"`).join(', ')}] }`,
      `  resource-manager: { host: 127.0.0.1, port: ${this.grpcPorts.get('resource-manager')} }`,
      '  worker:',
      '    host: 127.0.0.1',
      `    port: ${isWorkerName(name) ? this.grpcPorts.get(name) : 0}`,
      `    attributes: ${JSON.stringify(attributes)}`,
      ...opt('    leader-loss-timeout', o.leaderLossTimeoutMs),
      ...(heartbeat.length > 0 ? ['  heartbeat:', ...heartbeat] : []),
      ...ha,
      // Per-job logs inside the cluster's folder (docs/logs.md), removed with it.
      `  logs: { dir: "${join(this.dir, 'job-logs')}" }`,
      ...(o.tidewayYaml?.(name) ?? []),
      '',
    ].join('\n');
  }

  /** Whether the process runs (started and not exited; a paused one counts as running). */
  isRunning(name: ClusterProcessName): boolean {
    const child = this.children.get(name);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Whether the process is paused by signal(name, 'SIGSTOP'). */
  isPaused(name: ClusterProcessName): boolean {
    return this.paused.has(name);
  }

  pid(name: ClusterProcessName): number | undefined {
    return this.children.get(name)?.pid;
  }

  /** Starts (or restarts) one process and resolves once its gRPC server and metrics endpoint listen. */
  async startProcess(name: ClusterProcessName): Promise<void> {
    const role = isWorkerName(name) ? 'worker' : isCoordinatorName(name) ? 'coordinator' : name;
    const args = [
      'cluster',
      'start',
      '--role',
      role,
      '--engine-config',
      this.configFile(name),
      '--metrics-port',
      String(this.metricsPorts.get(name)),
    ];
    const child = spawn(process.execPath, [...this.options.cli, ...args], {
      cwd: this.options.cwd,
      env: { ...process.env, TIDEWAY_LOG_LEVEL: 'info', ...this.options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.set(name, child);
    this.paused.delete(name);
    if (child.pid !== undefined) startWatchdog(child.pid, 'SIGKILL');
    const file = this.logFile(name);
    appendFileSync(file, `--- started ${new Date().toISOString()} pid ${child.pid}\n`);
    let startup = '';
    const append = (s: string) => appendFileSync(file, s);
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    const timeoutMs = this.options.startTimeoutMs ?? 60_000;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${startup}`)), timeoutMs);
      const onData = (s: string) => {
        startup += s;
        if (/metrics at http/.test(startup)) done();
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) while starting:\n${startup}`));
      };
      const done = () => {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
        resolve();
      };
      child.stderr.on('data', onData);
      child.once('exit', onExit);
    });
  }

  /** Starts every process: in `order` one after the other, or all at once. */
  async startAll(order?: readonly ClusterProcessName[]): Promise<void> {
    if (order) for (const name of order) await this.startProcess(name);
    else await Promise.all(this.names().map((n) => this.startProcess(n)));
  }

  /** Pauses (SIGSTOP) or resumes (SIGCONT) a process. */
  signal(name: ClusterProcessName, signal: 'SIGSTOP' | 'SIGCONT'): void {
    if (!this.isRunning(name)) return;
    this.children.get(name)!.kill(signal);
    if (signal === 'SIGSTOP') this.paused.add(name);
    else this.paused.delete(name);
  }

  /**
   * Sends a signal to one process and waits for it to exit (nothing when it is not running).
   * Resolves with its exit code (null when a signal ended it, or it was not running).
   */
  async kill(name: ClusterProcessName, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    const child = this.children.get(name);
    if (!child || !this.isRunning(name)) return null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const code = await exited;
    this.children.delete(name);
    this.paused.delete(name);
    return code;
  }

  /**
   * Stops every process (SIGCONT for a paused one, SIGTERM, SIGKILL for any still running after
   * 5 s); removes the folder when it was made here, unless `keepDir`.
   */
  async stop(opts: { keepDir?: boolean } = {}): Promise<void> {
    await Promise.all(
      [...this.children.keys()].map(async (name) => {
        const child = this.children.get(name)!;
        child.kill('SIGCONT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await this.kill(name, 'SIGTERM');
        clearTimeout(timer);
      }),
    );
    if (this.ownsDir && !opts.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** The Prometheus text of one process. */
  async metrics(name: ClusterProcessName, timeoutMs = 5000): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPorts.get(name)}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`metrics of ${name}: HTTP ${res.status}`);
    return res.text();
  }

  /** One sample's value from a process's metrics (`name{labels}` as printed), or undefined. */
  async metric(name: ClusterProcessName, sample: string, timeoutMs?: number): Promise<number | undefined> {
    const text = await this.metrics(name, timeoutMs);
    const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
    return line === undefined ? undefined : Number(line.slice(sample.length + 1));
  }

  /** Which running, unpaused coordinator leads now (by its tideway_coordinator_leader gauge), or undefined. */
  async leaderName(timeoutMs = 2000): Promise<ClusterProcessName | undefined> {
    for (const name of this.coordinatorNames()) {
      if (!this.isRunning(name) || this.isPaused(name)) continue;
      if ((await this.metric(name, 'tideway_coordinator_leader', timeoutMs).catch(() => undefined)) === 1) return name;
    }
    return undefined;
  }
}
