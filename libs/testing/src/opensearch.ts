import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ServerProcess, freePort, makeServerDir } from '@tideway/launchers';
import { openSharedPeer } from './shared-peer.js';

/** Where scripts/ensure-opensearch.sh puts OpenSearch's jars and the launcher (outside the repository). */
export function openSearchDir(): string {
  return join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'opensearch');
}

function openSearchReady(): boolean {
  const dir = openSearchDir();
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith('.complete-'));
}

/** `describe.skipIf(openSearchSkipped())`: the peer is missing outside CI (in CI the tests fail instead). */
export function openSearchSkipped(): boolean {
  const missing = !openSearchReady();
  if (missing && process.env.CI !== 'true')
    console.log(`Elasticsearch tests skipped: run scripts/ensure-opensearch.sh to fetch OpenSearch into ${openSearchDir()}.`);
  return missing && process.env.CI !== 'true';
}

export interface OpenSearchNode {
  /** The node's own address: plain HTTP, no login. */
  readonly url: string;
  /** With `secure`: an HTTPS front with basic auth (self-signed certificate) before the node. */
  readonly secureUrl?: string;
  stop(): Promise<void>;
}

export interface OpenSearchOptions {
  /** Puts an HTTPS front with basic auth before the node, as SeaTunnel's configs expect of their server. */
  readonly secure?: { readonly user: string; readonly password: string };
  readonly heapMb?: number;
  /** See ServerProcessOptions.ownerPid: the node outlives this process until that one ends. */
  readonly ownerPid?: number;
  /** The node's folder (default: a new one under the servers' temp folder). */
  readonly dir?: string;
}

/** An HTTPS server that checks basic auth and passes every request on to `target`. */
async function secureFront(target: number, user: string, password: string): Promise<{ server: Server; port: number }> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="opensearch"', 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
      return;
    }
    const headers = { ...req.headers };
    delete headers.authorization;
    const up = httpRequest({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (err) => {
      res.writeHead(502).end(err.message);
    });
    req.pipe(up);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { server, port };
}

/**
 * Starts one OpenSearch node (Maven Central's jars, in its own JVM) on free loopback ports with
 * its own data folder, and waits until it answers with a yellow or green cluster.
 */
export async function startOpenSearch(opts: OpenSearchOptions = {}): Promise<OpenSearchNode> {
  if (!openSearchReady()) throw new Error(`OpenSearch is not in ${openSearchDir()}: run scripts/ensure-opensearch.sh`);
  const dir = opts.dir ?? makeServerDir('opensearch');
  mkdirSync(dir, { recursive: true });
  const home = join(dir, 'home');
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config', 'opensearch.yml'), '');
  const [httpPort, transportPort] = [await freePort(), await freePort()];
  const cache = openSearchDir();
  const server = ServerProcess.start({
    name: 'OpenSearch',
    command: process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java',
    args: [
      `-Xms${opts.heapMb ?? 512}m`,
      `-Xmx${opts.heapMb ?? 512}m`,
      '-XX:+UseSerialGC',
      `-Djava.io.tmpdir=${dir}`,
      '-cp',
      `${join(cache, 'classes')}:${join(cache, 'libs')}/*`,
      'OpenSearchPeer',
      home,
      String(httpPort),
      String(transportPort),
    ],
    dir,
    logFile: join(dir, 'opensearch.log'),
    stopSignal: 'SIGTERM',
    ownerPid: opts.ownerPid,
  });
  const url = `http://127.0.0.1:${httpPort}`;
  try {
    await server.waitReady(async () => {
      const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`);
      if (!res.ok) throw new Error(`cluster health answered ${res.status}`);
    }, 180_000);
  } catch (err) {
    await server.stop();
    throw err;
  }
  let front: { server: Server; port: number } | undefined;
  if (opts.secure) front = await secureFront(httpPort, opts.secure.user, opts.secure.password);
  return {
    url,
    secureUrl: front ? `https://127.0.0.1:${front.port}` : undefined,
    async stop() {
      front?.server.close();
      await server.stop();
    },
  };
}

let shared: Promise<string> | undefined;

/**
 * One OpenSearch node shared by every test file of this vitest run (started by the first file
 * that asks, ended by a watchdog when vitest ends): its plain address, and with `secure` an HTTPS
 * basic-auth front of this file's own before it (stop() closes only the front). Tests give their
 * indexes unique names.
 */
export async function sharedOpenSearch(opts: Pick<OpenSearchOptions, 'secure'> = {}): Promise<OpenSearchNode> {
  shared ??= openSharedPeer('opensearch', async (owner, root) => (await startOpenSearch({ ownerPid: owner, dir: root })).url);
  const url = await shared;
  const front = opts.secure ? await secureFront(Number(new URL(url).port), opts.secure.user, opts.secure.password) : undefined;
  return {
    url,
    secureUrl: front ? `https://127.0.0.1:${front.port}` : undefined,
    stop: async () => {
      front?.server.close();
    },
  };
}
