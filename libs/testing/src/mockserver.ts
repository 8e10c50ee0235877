import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ServerProcess, freePort, makeServerDir } from '@tideway/launchers';

/** Where scripts/ensure-mockserver.sh puts MockServer's jar (outside the repository). */
export function mockServerJar(): string {
  return join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'mockserver', 'mockserver.jar');
}

/** `describe.skipIf(mockServerSkipped())`: the jar is missing outside CI (in CI the tests fail instead). */
export function mockServerSkipped(): boolean {
  const missing = !existsSync(mockServerJar());
  if (missing && process.env.CI !== 'true')
    console.log(`Http tests skipped: run scripts/ensure-mockserver.sh to fetch MockServer into ${mockServerJar()}.`);
  return missing && process.env.CI !== 'true';
}

export interface MockServer {
  readonly port: number;
  readonly url: string;
  /** The requests MockServer recorded for a path (and method), as its REST API gives them. */
  recorded(
    path: string,
    method?: string,
  ): Promise<Array<{ method: string; path: string; body?: unknown; headers?: Record<string, string[]> }>>;
  stop(): Promise<void>;
}

/**
 * Starts MockServer (Maven Central, in its own JVM) on a free loopback port, answering as the
 * expectations in `expectationsFile` say (MockServer's initialization JSON), and waits until its
 * status endpoint answers.
 */
export async function startMockServer(expectationsFile: string): Promise<MockServer> {
  const jar = mockServerJar();
  if (!existsSync(jar)) throw new Error(`MockServer is not in ${jar}: run scripts/ensure-mockserver.sh`);
  const dir = makeServerDir('mockserver');
  const port = await freePort();
  const server = ServerProcess.start({
    name: 'MockServer',
    command: process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java',
    args: [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      `-Dmockserver.initializationJsonPath=${expectationsFile}`,
      '-Dmockserver.logLevel=WARN',
      '-Dmockserver.disableSystemOut=true',
      '-jar',
      jar,
      '-serverPort',
      String(port),
    ],
    dir,
    logFile: join(dir, 'mockserver.log'),
    stopSignal: 'SIGTERM',
  });
  const url = `http://127.0.0.1:${port}`;
  await server.waitReady(async () => {
    const res = await fetch(`${url}/mockserver/status`, { method: 'PUT' });
    if (!res.ok) throw new Error(`MockServer status answered ${res.status}`);
  }, 120_000);
  return {
    port,
    url,
    async recorded(path, method) {
      const res = await fetch(`${url}/mockserver/retrieve?type=REQUESTS&format=JSON`, {
        method: 'PUT',
        body: JSON.stringify({ path, ...(method ? { method } : {}) }),
      });
      if (!res.ok) throw new Error(`MockServer retrieve answered ${res.status}`);
      return (await res.json()) as Array<{ method: string; path: string; body?: unknown }>;
    },
    stop: () => server.stop(),
  };
}
