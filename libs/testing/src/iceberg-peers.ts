import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where scripts/ensure-iceberg-peers.sh installs PyIceberg's venv. */
export const ICEBERG_PEERS_DIR = join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'iceberg');
const PYTHON = join(ICEBERG_PEERS_DIR, 'venv', 'bin', 'python');
// beside this file in src/ (also when this module runs from dist/)
const PEER_SCRIPT = join(import.meta.dirname, '..', 'src', 'iceberg_peer.py');

/**
 * Whether PyIceberg is installed. Outside CI a missing peer skips the tests that need it (one line
 * says how to install it); in CI (CI=true) scripts/test.sh has installed it, so a missing one fails.
 */
export function icebergPeersPresent(): boolean {
  const present = existsSync(PYTHON);
  if (!present) {
    if (process.env.CI === 'true')
      throw new Error(`PyIceberg is missing under ${ICEBERG_PEERS_DIR}: scripts/ensure-iceberg-peers.sh installs it.`);
    console.log(`Iceberg read-back tests skipped: run scripts/ensure-iceberg-peers.sh to install PyIceberg under ${ICEBERG_PEERS_DIR}.`);
  }
  return present;
}

/** A table as PyIceberg reads it (iceberg_peer.py): canonical values, rows sorted. */
export interface PyIcebergRead {
  readonly schema: [string, string, boolean][];
  readonly identifier: string[];
  readonly rows: unknown[][];
  readonly snapshots: Record<string, string>[];
  readonly files: number;
  readonly delete_files: number;
}

/**
 * PyIceberg's reading of the table of a metadata file (StaticTable), of a SqlCatalog's table
 * (uri, catalog, namespace.table), or of a REST catalog's table (rest: its address); props: more
 * catalog properties, such as s3.endpoint.
 */
export async function pyicebergRead(
  from:
    | { metadata: string }
    | { uri: string; catalog: string; table: string; props?: Record<string, string> }
    | { rest: string; table: string; props?: Record<string, string> },
): Promise<PyIcebergRead> {
  const args =
    'metadata' in from
      ? ['read-metadata', from.metadata]
      : 'rest' in from
        ? ['read-rest', from.rest, from.table, JSON.stringify(from.props ?? {})]
        : ['read-sql', from.uri, from.catalog, from.table, JSON.stringify(from.props ?? {})];
  const { stdout } = await run(PYTHON, [PEER_SCRIPT, ...args], { maxBuffer: 1 << 28 });
  return JSON.parse(stdout) as PyIcebergRead;
}

/** Runs Python code in the PyIceberg peer's venv (PyIceberg and pyarrow importable); its standard output. */
export async function pyicebergPython(code: string): Promise<string> {
  const { stdout } = await run(PYTHON, ['-c', code], { maxBuffer: 1 << 26 });
  return stdout;
}
