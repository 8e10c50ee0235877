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
  /**
   * One broker only: adds SASL_PLAINTEXT, SSL (client certificates required) and SASL_SSL
   * listeners beside PLAINTEXT, with a private CA (openssl) and the user KAFKA_TEST_USER known to
   * PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.
   */
  readonly secure?: boolean;
}

/** The user and password the secure listeners know. */
export const KAFKA_TEST_USER = { username: 'tideway-user', password: 'tideway-secret' } as const;

/** The secure listeners of a broker started with `secure: true`, and the PEM files to reach them. */
export interface KafkaSecurity {
  /** host:port of each listener. */
  readonly saslPlaintext: string;
  readonly ssl: string;
  readonly saslSsl: string;
  /** PEM of the CA that signed the broker's certificate (a truststore). */
  readonly caFile: string;
  /** PEM of a client certificate signed by that CA, and of its key (PKCS#8), for the SSL listener. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** The same certificate and key as a PKCS#12 keystore, password `keystorePassword`. */
  readonly clientKeystoreFile: string;
  readonly keystorePassword: string;
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
  /** With `secure: true`: the secure listeners. */
  readonly security?: KafkaSecurity;
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
  /** With `secure`: the SASL_PLAINTEXT, SSL and SASL_SSL ports. */
  readonly secure?: { saslPlaintext: number; ssl: number; saslSsl: number };
}

/**
 * A CA, a broker certificate for 127.0.0.1/localhost and a client certificate, by openssl, in
 * `dir`; keys unencrypted PKCS#8 (the broker's PEM keystore and Node's TLS both read them).
 */
async function makeCertificates(dir: string): Promise<KafkaSecurity & { serverPem: string }> {
  mkdirSync(dir, { recursive: true });
  const at = (f: string) => join(dir, f);
  const ssl = (args: string[]) => run('openssl', args, { cwd: dir });
  await ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=tideway-test-ca',
  ]);
  const signed = async (name: string, subject: string, ext: string) => {
    await ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    writeFileSync(at(`${name}.ext`), ext);
    await ssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ]);
  };
  await signed('server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await signed('client', `/CN=${KAFKA_TEST_USER.username}`, 'extendedKeyUsage=clientAuth\n');
  const password = 'tideway-keystore';
  await ssl(['pkcs12', '-export', '-in', 'client.pem', '-inkey', 'client.key', '-out', 'client.p12', '-passout', `pass:${password}`]);
  // The broker's PEM keystore: its key then its certificate chain, in one file.
  writeFileSync(at('server-keystore.pem'), readFileSync(at('server.key'), 'utf8') + readFileSync(at('server.pem'), 'utf8'));
  return {
    saslPlaintext: '',
    ssl: '',
    saslSsl: '',
    caFile: at('ca.pem'),
    clientCertFile: at('client.pem'),
    clientKeyFile: at('client.key'),
    clientKeystoreFile: at('client.p12'),
    keystorePassword: password,
    serverPem: at('server-keystore.pem'),
  };
}

function securityProperties(node: NodePorts, tlsDir: string): Record<string, string> {
  const s = node.secure!;
  const plain = `org.apache.kafka.common.security.plain.PlainLoginModule required user_${KAFKA_TEST_USER.username}="${KAFKA_TEST_USER.password}";`;
  const scram = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  const props: Record<string, string> = {
    listeners: `PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort},SASL_PLAINTEXT://127.0.0.1:${s.saslPlaintext},SSL://127.0.0.1:${s.ssl},SASL_SSL://127.0.0.1:${s.saslSsl}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port},SASL_PLAINTEXT://127.0.0.1:${s.saslPlaintext},SSL://127.0.0.1:${s.ssl},SASL_SSL://127.0.0.1:${s.saslSsl}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL',
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': join(tlsDir, 'server-keystore.pem'),
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': join(tlsDir, 'ca.pem'),
    'listener.name.ssl.ssl.client.auth': 'required',
  };
  for (const listener of ['sasl_plaintext', 'sasl_ssl']) {
    props[`listener.name.${listener}.plain.sasl.jaas.config`] = plain;
    props[`listener.name.${listener}.scram-sha-256.sasl.jaas.config`] = scram;
    props[`listener.name.${listener}.scram-sha-512.sasl.jaas.config`] = scram;
  }
  return props;
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
    ...(node.secure ? securityProperties(node, join(dir, 'tls')) : {}),
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

async function formatStorage(dir: string, id: string, secure: boolean): Promise<void> {
  // SCRAM credentials live in the cluster's metadata: KRaft takes them when the storage is formatted.
  const scram = secure
    ? ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => [
        '--add-scram',
        `${m}=[name=${KAFKA_TEST_USER.username},password=${KAFKA_TEST_USER.password}]`,
      ])
    : [];
  try {
    await run(
      javaCommand(),
      [
        ...jvmArgs(dir, 256),
        'kafka.tools.StorageTool',
        'format',
        '-t',
        id,
        '-c',
        join(dir, 'server.properties'),
        '--ignore-formatted',
        ...scram,
      ],
      { cwd: dir },
    );
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`kafka-storage format failed in ${dir}: ${(e.stderr || e.stdout || e.message).trim()}`, { cause: err });
  }
}

async function startOnce(opts: KafkaOptions, root: string): Promise<KafkaCluster> {
  const count = opts.brokers ?? 1;
  if (opts.secure && count !== 1) throw new Error('startKafka: secure listeners are made for one broker only');
  const ports: NodePorts[] = [];
  for (let i = 1; i <= count; i++) {
    const secure = opts.secure ? { saslPlaintext: await freePort(), ssl: await freePort(), saslSsl: await freePort() } : undefined;
    ports.push({ nodeId: i, port: await freePort(), controllerPort: await freePort(), secure });
  }
  const id = clusterId();
  let security: KafkaSecurity | undefined;
  if (opts.secure) {
    const { serverPem: _, ...files } = await makeCertificates(join(root, 'tls'));
    const s = ports[0].secure!;
    security = { ...files, saslPlaintext: `127.0.0.1:${s.saslPlaintext}`, ssl: `127.0.0.1:${s.ssl}`, saslSsl: `127.0.0.1:${s.saslSsl}` };
  }
  const nodes = ports.map((p) => {
    const dir = count === 1 ? root : join(root, `node-${p.nodeId}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'server.properties'), serverProperties(p, ports, dir, opts.properties ?? {}));
    writeFileSync(join(dir, 'log4j2.properties'), log4jConfig());
    return new Node(p, dir, opts);
  });
  await Promise.all(nodes.map((n) => formatStorage(n.dir, id, opts.secure === true)));
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
    security,
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

interface SharedKafka {
  readonly bootstrap: string;
  readonly security: KafkaSecurity;
}

let shared: Promise<SharedKafka> | undefined;

/**
 * The bootstrap address of one broker shared by every test file of this vitest run: the first
 * file that asks starts it (so the JVM starts once per run, and only when a Kafka test runs), the
 * others wait for its address. It lives until the vitest process ends (a watchdog ends it then);
 * tests give their topics unique names. Outside vitest it belongs to this process. Its secure
 * listeners are `sharedKafkaSecurity()`'s.
 */
export async function sharedKafka(): Promise<string> {
  return (await openShared()).bootstrap;
}

/** The shared broker's SASL_PLAINTEXT, SSL and SASL_SSL listeners (user KAFKA_TEST_USER). */
export async function sharedKafkaSecurity(): Promise<KafkaSecurity> {
  return (await openShared()).security;
}

function openShared(): Promise<SharedKafka> {
  shared ??= openSharedPeer('kafka', async (owner, root) => {
    const cluster = await startKafka({ ownerPid: owner, secure: true }, root);
    return JSON.stringify({ bootstrap: cluster.bootstrap, security: cluster.security });
  }).then((text) => JSON.parse(text) as SharedKafka);
  return shared;
}
