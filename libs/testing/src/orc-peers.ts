import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where scripts/ensure-orc-peers.sh installs pyarrow's venv and orc-tools' jar. */
export const ORC_PEERS_DIR = join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'orc');
export const PYTHON = join(ORC_PEERS_DIR, 'venv', 'bin', 'python');
export const ORC_TOOLS_JAR = join(ORC_PEERS_DIR, 'orc-tools.jar');
// beside this file in src/ (also when this module runs from dist/)
const PEER_SCRIPT = join(import.meta.dirname, '..', 'src', 'orc_peer.py');

/**
 * Whether the ORC peers are installed. Outside CI a missing peer skips the tests that need it (one
 * line says how to install them); in CI (CI=true) scripts/test.sh has installed them, so a
 * missing one fails.
 */
export function orcPeersPresent(): boolean {
  const present = existsSync(PYTHON) && existsSync(ORC_TOOLS_JAR);
  if (!present) {
    if (process.env.CI === 'true')
      throw new Error(`The ORC test peers are missing under ${ORC_PEERS_DIR}: scripts/ensure-orc-peers.sh installs them.`);
    console.log(`ORC interop tests skipped: run scripts/ensure-orc-peers.sh to install pyarrow and orc-tools under ${ORC_PEERS_DIR}.`);
  }
  return present;
}

export interface PyarrowRead {
  readonly schema: [string, string][];
  readonly rows: unknown[][];
  readonly stripes: number;
  readonly compression: string;
}

/** pyarrow's reading of ORC files, canonical values (orc_peer.py). */
export async function pyarrowRead(...files: string[]): Promise<PyarrowRead[]> {
  const { stdout } = await run(PYTHON, [PEER_SCRIPT, 'read', ...files], { maxBuffer: 1 << 30 });
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as PyarrowRead);
}

/** Writes a spec file's canonical rows with pyarrow. */
export async function pyarrowWrite(spec: string, out: string, codec: string): Promise<void> {
  await run(PYTHON, [PEER_SCRIPT, 'write', spec, out, codec], { maxBuffer: 1 << 26 });
}

/** Writes a Parquet file's rows as ORC with pyarrow (the conformance suite's ORC fixtures). */
export async function pyarrowOrcFromParquet(parquet: string, out: string, codec: string): Promise<void> {
  if (!existsSync(PYTHON)) throw new Error(`pyarrow is not installed under ${ORC_PEERS_DIR}: scripts/ensure-orc-peers.sh installs it.`);
  await run(PYTHON, [PEER_SCRIPT, 'from-parquet', parquet, out, codec]);
}

/** Runs Apache ORC's tools (`meta`, `data`, `convert`) with the machine's Java (`jvm`: options such as -Duser.timezone). */
export async function orcTools(args: readonly string[], jvm: readonly string[] = []): Promise<string> {
  const { stdout } = await run('java', [...jvm, '-jar', ORC_TOOLS_JAR, ...args], { maxBuffer: 1 << 28 });
  return stdout;
}
