import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ServerProcess, freePort, makeServerDir, portWasTaken } from '@tideway/launchers';
import { openSharedPeer } from './shared-peer.js';

const run = promisify(execFile);

/** Where scripts/ensure-kafka.sh puts Apache Kafka's jars (outside the repository). */
export function kafkaLibsDir(): string {
  return join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'kafka', 'libs');
}

/**
 * Why no broker can be started here (the jars were not fetched), or undefined when one can.
 * Tests skip on it outside CI and fail on it in CI (`CI=true`).
 */
export function kafkaMissing(): string | undefined {
  const libs = kafkaLibsDir();
  const complete = existsSync(libs) && readdirSync(libs).some((f) => f.startsWith('.complete-'));
  return complete ? undefined : `Apache Kafka's jars are not in ${libs}: run scripts/ensure-kafka.sh`;
}

/** `describe.skipIf(kafkaSkipped())`: true when the jars are missing and this is not CI. */
export function kafkaSkipped(): boolean {
  return kafkaMissing() !== undefined && process.env.CI !== 'true';
}

export interface KafkaOptions {
  /** One broker (default) or three (fault tests: leader moves, a broker down). */
  readonly brokers?: 1 | 3;
  /** Extra server.properties lines, e.g. `{ 'auto.create.topics.enable': 'false' }`. */
  readonly properties?: Readonly<Record<string, string>>;
  /** Maximum heap of each broker JVM in MB (default 512). */
  readonly heapMb?: number;
  /** See ServerProcessOptions.ownerPid: the brokers outlive this process until that one ends. */
  readonly ownerPid?: number;
}

/** One KRaft node (broker and controller in one JVM). */
export interface KafkaBroker {
  readonly nodeId: number;
  /** The client (PLAINTEXT) port on 127.0.0.1. */
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /** Stops the JVM (SIGTERM: a controlled shutdown), keeping its data for start(). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data; resolves once it serves clients. */
  start(): Promise<void>;
}

/** Private KRaft brokers on free loopback ports, each with its own data folder. */
export interface KafkaCluster {
  /** `127.0.0.1:p1,127.0.0.1:p2,...`: what `bootstrap.servers` takes. */
  readonly bootstrap: string;
  readonly brokers: readonly KafkaBroker[];
  /** Ends every broker and removes their folders. Safe to call twice. */
  stop(): Promise<void>;
}

/** The machine's Java (Java 17 runs Kafka 4.x brokers). */
function javaCommand(): string {
  const home = process.env.JAVA_HOME;
  return home && existsSync(join(home, 'bin', 'java')) ? join(home, 'bin', 'java') : 'java';
}

/** Kafka's cluster ids are 16 random bytes in URL-safe base64 without padding. */
function clusterId(): string {
  // As Kafka's Uuid.randomUuid: never one that starts with '-', which its tools read as an option.
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

const READY_LINE = 'Kafka Server started';

interface NodePorts {
  readonly nodeId: number;
  readonly port: number;
  readonly controllerPort: number;
}

function serverProperties(node: NodePorts, all: readonly NodePorts[], dir: string, extra: Readonly<Record<string, string>>): string {
  const n = all.length;
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(node.nodeId),
    'controller.quorum.voters': all.map((a) => `${a.nodeId}@127.0.0.1:${a.controllerPort}`).join(','),
    listeners: `PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': join(dir, 'data'),
    'offsets.topic.replication.factor': String(n),
    'offsets.topic.num.partitions': '5',
    'transaction.state.log.replication.factor': String(n),
    'transaction.state.log.min.isr': n === 3 ? '2' : '1',
    'transaction.state.log.num.partitions': '5',
    // Tests of timed-out transactions: the broker looks for them every second, not every 10 s.
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': '1000',
    'share.coordinator.state.topic.replication.factor': String(n),
    'share.coordinator.state.topic.min.isr': '1',
    'default.replication.factor': String(n),
    'min.insync.replicas': n === 3 ? '2' : '1',
    'group.initial.rebalance.delay.ms': '0',
    'num.network.threads': '2',
    'num.io.threads': '4',
    'num.partitions': '1',
    ...extra,
  };
  return `${Object.entries(props)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
}

/** Quiet logging to the node's console log, with the line start-up is recognized by. */
function log4jConfig(): string {
  return [
    'status = error',
    'appender.out.type = Console',
    'appender.out.name = OUT',
    'appender.out.layout.type = PatternLayout',
    'appender.out.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = WARN',
    'rootLogger.appenderRef.out.ref = OUT',
    'logger.raft.name = kafka.server.KafkaRaftServer',
    'logger.raft.level = INFO',
    '',
  ].join('\n');
}

function classpath(): string {
  return `${kafkaLibsDir()}/*`;
}

function jvmArgs(dir: string, heapMb: number): string[] {
  return [
    `-Xmx${heapMb}m`,
    '-Xms64m',
    '-XX:+UseG1GC',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(dir, 'log4j2.properties')}`,
    '-cp',
    classpath(),
  ];
}

function countReady(logFile: string): number {
  try {
    return readFileSync(logFile, 'utf8').split(READY_LINE).length - 1;
  } catch {
    return 0;
  }
}

class Node implements KafkaBroker {
  private server: ServerProcess | undefined;
  constructor(
    private readonly ports: NodePorts,
    readonly dir: string,
    private readonly opts: KafkaOptions,
  ) {}

  get nodeId(): number {
    return this.ports.nodeId;
  }
  get port(): number {
    return this.ports.port;
  }
  get pid(): number | undefined {
    return this.server?.pid;
  }
  get logFile(): string {
    return join(this.dir, 'server.log');
  }

  /** Spawns the JVM; `ready()` waits for it. */
  spawn(): { ready: () => Promise<void>; server: ServerProcess } {
    const before = countReady(this.logFile);
    const server = ServerProcess.start({
      name: `Kafka broker ${this.nodeId}`,
      command: javaCommand(),
      args: [...jvmArgs(this.dir, this.opts.heapMb ?? 512), 'kafka.Kafka', join(this.dir, 'server.properties')],
      dir: this.dir,
      logFile: this.logFile,
      stopSignal: 'SIGTERM',
      ownerPid: this.opts.ownerPid,
    });
    this.server = server;
    const ready = () =>
      server.waitReady(async () => {
        if (countReady(this.logFile) <= before) throw new Error(`no "${READY_LINE}" in ${this.logFile} yet`);
      }, 180_000);
    return { ready, server };
  }

  async stop(): Promise<void> {
    await this.server?.stop({ keepDir: true });
  }

  async start(): Promise<void> {
    await this.spawn().ready();
  }
}

async function formatStorage(dir: string, id: string): Promise<void> {
  try {
    await run(
      javaCommand(),
      [...jvmArgs(dir, 256), 'kafka.tools.StorageTool', 'format', '-t', id, '-c', join(dir, 'server.properties'), '--ignore-formatted'],
      { cwd: dir },
    );
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`kafka-storage format failed in ${dir}: ${(e.stderr || e.stdout || e.message).trim()}`, { cause: err });
  }
}

async function startOnce(opts: KafkaOptions, root: string): Promise<KafkaCluster> {
  const count = opts.brokers ?? 1;
  const ports: NodePorts[] = [];
  for (let i = 1; i <= count; i++) ports.push({ nodeId: i, port: await freePort(), controllerPort: await freePort() });
  const id = clusterId();
  const nodes = ports.map((p) => {
    const dir = count === 1 ? root : join(root, `node-${p.nodeId}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'server.properties'), serverProperties(p, ports, dir, opts.properties ?? {}));
    writeFileSync(join(dir, 'log4j2.properties'), log4jConfig());
    return new Node(p, dir, opts);
  });
  await Promise.all(nodes.map((n) => formatStorage(n.dir, id)));
  const spawned = nodes.map((n) => n.spawn());
  const stopAll = async () => {
    await Promise.all(spawned.map((s) => s.server.stop()));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await Promise.all(spawned.map((s) => s.ready()));
  } catch (err) {
    await stopAll();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    bootstrap: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    brokers: nodes,
    stop: () => {
      stopped ??= Promise.all(nodes.map((n) => n.stop())).then(() => rmSync(root, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/**
 * Formats and starts private KRaft brokers (one or three; each node is broker and controller) on
 * free 127.0.0.1 ports, each in its own data folder under a temp folder, with the machine's Java
 * and the jars of scripts/ensure-kafka.sh. Resolves once every broker serves clients. Retries on
 * new ports when another process took one first.
 */
export async function startKafka(opts: KafkaOptions = {}, dir?: string): Promise<KafkaCluster> {
  const missing = kafkaMissing();
  if (missing) throw new Error(missing);
  for (let attempt = 1; ; attempt++) {
    const root = dir ?? makeServerDir('kafka');
    try {
      return await startOnce(opts, root);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (attempt < 3 && portWasTaken(message)) continue;
      throw err;
    }
  }
}

let shared: Promise<string> | undefined;

/**
 * The bootstrap address of one broker shared by every test file of this vitest run: the first
 * file that asks starts it (so the JVM starts once per run, and only when a Kafka test runs), the
 * others wait for its address. It lives until the vitest process ends (a watchdog ends it then);
 * tests give their topics unique names. Outside vitest it belongs to this process.
 */
export function sharedKafka(): Promise<string> {
  shared ??= openShared();
  return shared;
}

function openShared(): Promise<string> {
  return openSharedPeer('kafka', async (owner, root) => (await startKafka({ ownerPid: owner }, root)).bootstrap);
}
