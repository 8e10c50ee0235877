import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort, ServerProcess } from '@tideway/launchers';
import { openSharedPeer } from './shared-peer.js';

/** Where scripts/ensure-iceberg-java.sh puts Iceberg's Java library and the launcher (outside the repository). */
export function icebergJavaDir(): string {
  return join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'iceberg-java');
}

/** The launcher's classes: a folder named by the hash of this checkout's IcebergPeer.java (scripts/ensure-iceberg-java.sh), so checkouts sharing the cache each run their own. */
function launcherClasses(): string {
  const source = readFileSync(join(import.meta.dirname, '..', 'java', 'IcebergPeer.java'));
  return join(icebergJavaDir(), `classes-${createHash('sha1').update(source).digest('hex').slice(0, 12)}`);
}

function icebergJavaReady(): boolean {
  const dir = icebergJavaDir();
  return existsSync(join(dir, 'libs')) && existsSync(join(launcherClasses(), 'IcebergPeer.class'));
}

/**
 * Whether Iceberg's Java peer is installed. Outside CI a missing peer skips the tests that need it
 * (one line says how to install it); in CI (CI=true) scripts/test.sh has installed it, so a
 * missing one fails.
 */
export function icebergJavaPresent(): boolean {
  const present = icebergJavaReady();
  if (!present) {
    if (process.env.CI === 'true')
      throw new Error(`Iceberg's Java library is missing under ${icebergJavaDir()}: scripts/ensure-iceberg-java.sh installs it.`);
    console.log(
      `Iceberg REST and Java-reader tests skipped: run scripts/ensure-iceberg-java.sh to fetch Iceberg's Java library into ${icebergJavaDir()}.`,
    );
  }
  return present;
}

/**
 * Starts the peer (libs/testing/java/IcebergPeer.java) in its own JVM and returns its address and
 * a stop; `catalog`: more properties of its REST catalog (a warehouse on S3 and its s3.* keys).
 */
export async function startIcebergJava(
  root: string,
  catalog: Record<string, string> = {},
  owner?: number,
): Promise<{ url: string; stop(): Promise<void> }> {
  if (!icebergJavaReady()) throw new Error(`Iceberg's Java library is not in ${icebergJavaDir()}: run scripts/ensure-iceberg-java.sh`);
  mkdirSync(root, { recursive: true });
  const port = await freePort();
  const cache = icebergJavaDir();
  const server = ServerProcess.start({
    name: 'Iceberg Java peer',
    command: process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java',
    args: [
      '-Xms64m',
      '-Xmx512m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1', // short-lived reads: the C1 compiler starts faster
      `-Djava.io.tmpdir=${root}`,
      '-cp',
      `${launcherClasses()}:${join(cache, 'libs')}/*`,
      'IcebergPeer',
      String(port),
      root,
      ...Object.entries(catalog).map(([k, v]) => `${k}=${v}`),
    ],
    dir: root,
    logFile: join(root, 'iceberg-java.log'),
    stopSignal: 'SIGTERM',
    ownerPid: owner,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await server.waitReady(async () => {
      const res = await fetch(`${url}/v1/config`);
      if (!res.ok) throw new Error(`/v1/config answered ${res.status}`);
    }, 120_000);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url, stop: () => server.stop() };
}

let shared: Promise<string> | undefined;

/**
 * The address of Iceberg's Java peer shared by every test file of this vitest run (started by the
 * first file that asks, ended by a watchdog when vitest ends): an Iceberg REST catalog at
 * `<url>` (Iceberg's own REST catalog adapter before a JdbcCatalog on SQLite; new tables go under
 * the peer's folder unless created with a location), and Iceberg's Java reader at `<url>/tideway/read`.
 * Tests give their namespaces unique names.
 */
export function sharedIcebergJava(): Promise<string> {
  shared ??= openSharedPeer('iceberg-java', async (owner, root) => (await startIcebergJava(root, {}, owner)).url);
  return shared;
}

/** A table as Iceberg's Java library reads it (IcebergGenerics, deletes applied): canonical values as PyIceberg's peer gives them, rows sorted. */
export interface JavaIcebergRead {
  readonly schema: [string, string, boolean][];
  readonly identifier: string[];
  readonly rows: unknown[][];
}

/** Which table to read: by its metadata file, or from a catalog (Iceberg's catalog properties, `type` hadoop, jdbc/sql or rest). */
export type JavaIcebergTable =
  | { readonly metadata: string; readonly io?: Record<string, string> }
  | { readonly catalog: Record<string, string>; readonly name?: string; readonly table: string; readonly io?: Record<string, string> };

/** Iceberg's Java library's reading of a table (IcebergGenerics of the shared peer, or of the peer at `url`). */
export async function javaIcebergRead(table: JavaIcebergTable, url?: string): Promise<JavaIcebergRead> {
  url ??= await sharedIcebergJava();
  const res = await fetch(`${url}/tideway/read`, {
    method: 'POST',
    body: JSON.stringify(table),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Iceberg's Java reader failed: ${text.split('\n').slice(0, 12).join('\n')}`);
  const out = JSON.parse(text) as JavaIcebergRead;
  const keyed = out.rows.map((r): [string, unknown[]] => [JSON.stringify(r), r]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { ...out, rows: keyed.map(([, r]) => r) };
}

/** A table Iceberg's Java library writes (the peer's POST /tideway/write): its schema as Iceberg schema JSON, rows in canonical JSON. */
export interface JavaIcebergRecipe {
  readonly warehouse: string;
  /** "ns.table": its folder is <warehouse>/ns/table (a hadoop catalog), replaced when there. */
  readonly table: string;
  readonly schema: unknown;
  /** [transform, column]: identity, day or bucket[N]. */
  readonly partition?: readonly (readonly [string, string])[];
  readonly properties?: Readonly<Record<string, string>>;
  readonly steps: readonly (
    | { readonly append: readonly (readonly unknown[])[] }
    | { readonly delete: { readonly columns: readonly string[]; readonly rows: readonly (readonly unknown[])[] } }
    | { readonly position_delete: readonly (readonly [number, number])[] }
    | { readonly rename: readonly [string, string] }
    | { readonly widen: readonly [string, string] }
    | { readonly add: readonly [string, string] }
  )[];
}

/** Writes a table with Iceberg's Java library (GenericAppenderFactory: the table's write.format.default, its deletes' format); its current metadata file and appended data files. */
export async function javaIcebergWrite(recipe: JavaIcebergRecipe, url?: string): Promise<{ metadata: string; files: string[] }> {
  url ??= await sharedIcebergJava();
  const res = await fetch(`${url}/tideway/write`, {
    method: 'POST',
    body: JSON.stringify(recipe),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Iceberg's Java writer failed: ${text.split('\n').slice(0, 12).join('\n')}`);
  return JSON.parse(text) as { metadata: string; files: string[] };
}
