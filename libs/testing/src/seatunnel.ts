import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerProcess, freePort } from '@tideway/launchers';
import { repoRoot } from './shared-conformance.js';

/**
 * Apache SeaTunnel itself, the oracle of the project's SeaTunnel comparisons (decision 0045):
 * scripts/ensure-seatunnel.sh resolves the pinned release into the cache folder and lays out a
 * SEATUNNEL_HOME; this module runs its starter the way `bin/seatunnel.sh` does, in local mode
 * (one JVM, `-m local`) and as a separated cluster (a master and a worker process, as
 * `seatunnel-cluster.sh -r master|worker`), each with private ports, cluster name, checkpoint
 * folder and logs.
 */
export const SEATUNNEL_VERSION = '2.3.8';

/** The JVM options `seatunnel.sh` passes, plus what Java 17 needs for Hazelcast's internals. */
const JAVA_17_OPENS = [
  '--add-modules',
  'java.se',
  '--add-exports',
  'java.base/jdk.internal.ref=ALL-UNNAMED',
  '--add-opens',
  'java.base/java.lang=ALL-UNNAMED',
  '--add-opens',
  'java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens',
  'java.management/sun.management=ALL-UNNAMED',
  '--add-opens',
  'jdk.management/com.sun.management.internal=ALL-UNNAMED',
];

const CLIENT_MAIN = 'org.apache.seatunnel.core.starter.seatunnel.SeaTunnelClient';
const SERVER_MAIN = 'org.apache.seatunnel.core.starter.seatunnel.SeaTunnelServer';

/**
 * SeaTunnel 2.3.4, a whole install of its own, for the one comparison 2.3.8 cannot run:
 * Postgres-CDC (connector-cdc-postgres is published for 2.3.4 only; decision 0045).
 */
export const SEATUNNEL_CDC_VERSION = '2.3.4';

const ensured = new Map<string, { home: string } | { missing: string }>();

/**
 * Runs scripts/ensure-seatunnel.sh once per process and version (the oracle's by default):
 * SEATUNNEL_HOME, or why SeaTunnel is not available (Maven Central unreachable, Maven or Java
 * missing).
 */
export function ensureSeaTunnel(version: string = SEATUNNEL_VERSION): { home: string } | { missing: string } {
  const known = ensured.get(version);
  if (known) return known;
  const run = spawnSync('bash', [join(repoRoot, 'scripts', 'ensure-seatunnel.sh'), version], { encoding: 'utf8', timeout: 600_000 });
  const lines = run.stdout.trim().split('\n');
  const home = lines[lines.length - 1];
  let got: { home: string } | { missing: string };
  if (run.status === 0 && home) {
    got = { home };
  } else {
    const why = run.stderr.trim().split('\n').pop() || `scripts/ensure-seatunnel.sh exited with ${run.status ?? run.signal}`;
    got = { missing: why };
  }
  ensured.set(version, got);
  return got;
}

const announced = new Set<string>();

/**
 * SEATUNNEL_HOME for a test file that needs SeaTunnel, or undefined when it cannot be had
 * outside CI (the caller skips; one line says why). In CI (`CI=true`) it throws: a comparison that
 * silently ran nothing would pass a build that compared nothing.
 */
export function seaTunnelHome(): string | undefined {
  const got = ensureSeaTunnel();
  if ('home' in got) return got.home;
  if (process.env.CI === 'true') throw new Error(`${got.missing} (CI=true: the SeaTunnel comparisons must run in CI)`);
  if (!announced.has(got.missing)) {
    announced.add(got.missing);
    console.log(`seatunnel: skipped: ${got.missing}`);
  }
  return undefined;
}

/** What one SeaTunnel run gave back. */
export interface SeaTunnelRun {
  readonly exitCode: number | null;
  /** Everything the client printed (stdout then stderr). */
  readonly output: string;
  /** SeaTunnel's job id, from the client's log. */
  readonly jobId: string | undefined;
  /** The Console sink's row lines, without the logger's prefix, in the order they were printed. */
  readonly consoleLines: string[];
}

export interface SeaTunnelRunOptions {
  /** `-i key=value` job variables. */
  readonly variables?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** JVM heap (-Xmx) of the process; 1g by default. */
  readonly heap?: string;
}

/** A private folder with SeaTunnel's config files for one local run or one cluster. */
function instanceDir(home: string, port: number, clusterName: string, members: number[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-seatunnel-'));
  const config = join(dir, 'config');
  mkdirSync(config);
  mkdirSync(join(dir, 'logs'));
  mkdirSync(join(dir, 'checkpoints'));
  copyFileSync(join(home, 'config', 'log4j2.properties'), join(config, 'log4j2.properties'));
  // The published seatunnel.yaml with its checkpoint folder moved into this instance's folder:
  // the default (/tmp/seatunnel/checkpoint_snapshot) would be shared with every other run.
  const engine = readFileSync(join(home, 'config', 'seatunnel.yaml'), 'utf8').replace(
    /namespace: .*/,
    `namespace: ${join(dir, 'checkpoints')}/`,
  );
  writeFileSync(join(config, 'seatunnel.yaml'), engine);
  const memberList = members.map((p) => `          - 127.0.0.1:${p}`).join('\n');
  writeFileSync(
    join(config, 'hazelcast.yaml'),
    `hazelcast:
  cluster-name: ${clusterName}
  network:
    rest-api:
      enabled: true
      endpoint-groups:
        CLUSTER_WRITE:
          enabled: true
        DATA:
          enabled: true
    join:
      tcp-ip:
        enabled: true
        member-list:
${memberList}
    port:
      auto-increment: false
      port: ${port}
    interfaces:
      enabled: true
      interfaces:
        - 127.0.0.1
  properties:
    hazelcast.invocation.max.retry.count: 20
    hazelcast.tcp.join.port.try.count: 30
    hazelcast.logging.type: log4j2
    hazelcast.operation.generic.thread.count: 50
    hazelcast.phone.home.enabled: false
`,
  );
  writeFileSync(
    join(config, 'hazelcast-client.yaml'),
    `hazelcast-client:
  cluster-name: ${clusterName}
  properties:
    hazelcast.logging.type: log4j2
  connection-strategy:
    connection-retry:
      cluster-connect-timeout-millis: 10000
  network:
    cluster-members:
      - 127.0.0.1:${members[0]}
`,
  );
  return dir;
}

/** The `java` command line of `seatunnel.sh` / `seatunnel-cluster.sh` for one process. */
function javaArgs(home: string, dir: string, heap: string, logName: string): string[] {
  const config = join(dir, 'config');
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    ...JAVA_17_OPENS,
    '-Duser.timezone=UTC',
    '-Duser.language=en',
    '-Duser.country=US',
    '-Dfile.encoding=UTF-8',
    `-DSEATUNNEL_HOME=${home}`,
    `-Dseatunnel.config=${join(config, 'seatunnel.yaml')}`,
    `-Dhazelcast.config=${join(config, 'hazelcast.yaml')}`,
    `-Dhazelcast.client.config=${join(config, 'hazelcast-client.yaml')}`,
    `-Dlog4j2.configurationFile=${join(config, 'log4j2.properties')}`,
    `-Dseatunnel.logs.path=${join(dir, 'logs')}`,
    `-Dseatunnel.logs.file_name=${logName}`,
    '-cp',
    `${join(home, 'lib', '*')}:${join(home, 'starter', 'seatunnel-starter.jar')}`,
  ];
}

function jobArgs(configPath: string, opts: SeaTunnelRunOptions): string[] {
  const vars = Object.entries(opts.variables ?? {}).flatMap(([k, v]) => ['-i', `${k}=${v}`]);
  return ['--config', configPath, ...vars];
}

const CONSOLE_LINE = /ConsoleSinkWriter - (subtaskIndex=\d+ {2}rowIndex=\d+: .*)$/;

/** The Console sink's lines of one job out of a SeaTunnel log (`[jobId] time LEVEL logger - message`). */
export function consoleLinesOf(log: string, jobId?: string): string[] {
  const out: string[] = [];
  for (const line of log.split('\n')) {
    if (jobId !== undefined && !line.startsWith(`[${jobId}]`)) continue;
    const m = CONSOLE_LINE.exec(line);
    if (m?.[1] !== undefined) out.push(m[1]);
  }
  return out;
}

function jobIdOf(output: string): string | undefined {
  return /Job \((\d+)\) end with state/.exec(output)?.[1] ?? /\[(\d{10,})\]/.exec(output)?.[1];
}

function runJava(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    const errChunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => errChunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, output: Buffer.concat(chunks).toString('utf8') + Buffer.concat(errChunks).toString('utf8') });
    });
  });
}

function seaTunnelEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, SEATUNNEL_HOME: home, TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
}

/**
 * Runs one job config in SeaTunnel's local mode (`seatunnel.sh -m local -c job.conf`): a JVM with
 * its own Hazelcast member on a free port, ended with the job.
 */
export async function runSeaTunnelLocal(home: string, configPath: string, opts: SeaTunnelRunOptions = {}): Promise<SeaTunnelRun> {
  const cmd = await seaTunnelLocalCommand(home, configPath, opts);
  try {
    const { exitCode, output } = await runJava(cmd.args, cmd.env, opts.timeoutMs ?? 180_000);
    const jobId = jobIdOf(output);
    return { exitCode, output, jobId, consoleLines: consoleLinesOf(output, jobId) };
  } finally {
    cmd.cleanup();
  }
}

/**
 * The `java` arguments of one local-mode run, for callers that start it themselves (the
 * benchmarks wrap it in /usr/bin/time); `cleanup` removes its private config folder.
 */
export async function seaTunnelLocalCommand(
  home: string,
  configPath: string,
  opts: SeaTunnelRunOptions = {},
): Promise<{ args: string[]; env: NodeJS.ProcessEnv; cleanup: () => void }> {
  const port = await freePort();
  const dir = instanceDir(home, port, `tideway-st-${process.pid}-${port}`, [port]);
  const args = [
    ...javaArgs(home, dir, opts.heap ?? '1g', 'seatunnel-starter-client'),
    CLIENT_MAIN,
    ...jobArgs(configPath, opts),
    '-m',
    'local',
  ];
  return { args, env: seaTunnelEnv(home), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function probePort(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * A SeaTunnel cluster in separated mode: one master process and one worker process (the same
 * Hazelcast cluster; the master runs the coordinator, the worker the tasks), started once and
 * given jobs by SeaTunnel's client, as `seatunnel.sh -c job.conf` against a running cluster.
 */
export class SeaTunnelCluster {
  private constructor(
    readonly home: string,
    private readonly dir: string,
    readonly masterPort: number,
    readonly workerPorts: readonly number[],
    private readonly master: ServerProcess,
    private readonly workers: readonly ServerProcess[],
  ) {}

  /** The first worker's Hazelcast port. */
  get workerPort(): number {
    return this.workerPorts[0];
  }

  /** `workers`: how many worker processes (default 1; more for failover, each with its own port). */
  static async start(home: string, opts: { heap?: string; timeoutMs?: number; workers?: number } = {}): Promise<SeaTunnelCluster> {
    const masterPort = await freePort();
    const workerPorts: number[] = [];
    for (let i = 0; i < (opts.workers ?? 1); i++) workerPorts.push(await freePort());
    const dir = instanceDir(home, masterPort, `tideway-st-${process.pid}-${masterPort}`, [masterPort, ...workerPorts]);
    const heap = opts.heap ?? '1g';
    const env = seaTunnelEnv(home);
    const start = (role: 'master' | 'worker', name: string, configDir: string): ServerProcess => {
      const args = javaArgs(home, dir, heap, `seatunnel-engine-${name}`).map((a) => a.replaceAll(join(dir, 'config'), configDir));
      mkdirSync(join(dir, name));
      return ServerProcess.start({
        name: `SeaTunnel ${name}`,
        command: 'java',
        args: [...args, SERVER_MAIN, '-r', role],
        dir: join(dir, name),
        logFile: join(dir, `${name}.log`),
        stopSignal: 'SIGTERM',
        env,
      });
    };
    const master = start('master', 'master', join(dir, 'config'));
    const workers = workerPorts.map((port, i) => {
      // Each worker's own Hazelcast file differs only in its port.
      const name = i === 0 ? 'worker' : `worker-${i + 1}`;
      const workerConfig = join(dir, `${name}-config`);
      mkdirSync(workerConfig);
      for (const f of ['seatunnel.yaml', 'hazelcast-client.yaml', 'log4j2.properties'])
        copyFileSync(join(dir, 'config', f), join(workerConfig, f));
      writeFileSync(
        join(workerConfig, 'hazelcast.yaml'),
        readFileSync(join(dir, 'config', 'hazelcast.yaml'), 'utf8').replace(`port: ${masterPort}`, `port: ${port}`),
      );
      return start('worker', name, workerConfig);
    });
    const cluster = new SeaTunnelCluster(home, dir, masterPort, workerPorts, master, workers);
    try {
      await master.waitReady(() => probePort(masterPort), opts.timeoutMs ?? 120_000);
      for (const [i, worker] of workers.entries()) await worker.waitReady(() => probePort(workerPorts[i]), opts.timeoutMs ?? 120_000);
      await cluster.waitForWorkers(opts.timeoutMs ?? 120_000);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Waits until the master sees every worker in its Hazelcast cluster (its log says so). */
  private async waitForWorkers(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (new RegExp(`Members \\{size:${this.workers.length + 1}`).test(this.masterLog())) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`SeaTunnel's workers did not join their master within ${timeoutMs} ms:\n${this.master.logTail()}`);
  }

  masterLog(): string {
    return readFileSync(join(this.dir, 'master.log'), 'utf8');
  }

  workerLog(): string {
    return readFileSync(join(this.dir, 'worker.log'), 'utf8');
  }

  /** The process ids of the master and the workers (for memory figures). */
  pids(): number[] {
    return [this.master.pid, ...this.workerPids()].filter((p): p is number => p !== undefined);
  }

  /** The process id of each worker, in start order (undefined once it has exited). */
  workerPids(): (number | undefined)[] {
    return this.workers.map((w) => w.pid);
  }

  /**
   * Submits a job with SeaTunnel's client and waits for its end. The Console sink prints on the
   * worker: its lines are taken from the worker's log by the job id.
   */
  async run(configPath: string, opts: SeaTunnelRunOptions = {}): Promise<SeaTunnelRun> {
    const args = [
      ...javaArgs(this.home, this.dir, opts.heap ?? '512m', 'seatunnel-starter-client'),
      CLIENT_MAIN,
      ...jobArgs(configPath, opts),
    ];
    const { exitCode, output } = await runJava(args, seaTunnelEnv(this.home), opts.timeoutMs ?? 180_000);
    const jobId = jobIdOf(output);
    let consoleLines: string[] = [];
    if (jobId !== undefined) {
      // The worker logs asynchronously: wait until its lines stop growing.
      let last = -1;
      for (let i = 0; i < 40; i++) {
        consoleLines = consoleLinesOf(this.workerLog(), jobId);
        if (consoleLines.length === last) break;
        last = consoleLines.length;
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    return { exitCode, output, jobId, consoleLines };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.workers.map((w) => w.stop()), this.master.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
