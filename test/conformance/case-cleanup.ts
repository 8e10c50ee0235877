import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Roots under which SeaTunnel's configs read and write (its ITs run in containers, where these
 * paths are private; here they are the machine's): what a case leaves under them is removed.
 */
const ROOTS = ['/tmp/', '/seatunnel/'];

/** `-i key=value` arguments as a map. */
export function variablesOf(args: string[]): Map<string, string> {
  const vars = new Map<string, string>();
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] !== '-i') continue;
    const kv = args[i + 1];
    vars.set(kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1));
  }
  return vars;
}

/**
 * The folders a job config reads or writes under /tmp or /seatunnel: every quoted `path` and
 * `tmp_path` value, with its `-i` variables filled in. A variable left unresolved (one the
 * engine fills per table, like `${table_name}`) cuts the path at the folder above it.
 */
export function caseFolders(configText: string, args: string[]): string[] {
  const vars = variablesOf(args);
  const out = new Set<string>();
  for (const m of configText.matchAll(/\b(?:tmp_)?path\s*=\s*"([^"]+)"/g)) {
    let p = m[1].replace(/\$\{(\w+)\}/g, (whole, k: string) => vars.get(k) ?? whole);
    if (p.includes('${')) p = dirname(p.slice(0, p.indexOf('${')) + 'x');
    p = p.replace(/\/+$/, '');
    if (ROOTS.some((r) => p.startsWith(r) && p.length > r.length)) out.add(p);
  }
  return [...out];
}

/** Removes `dir`'s parents while they are empty, up to (not including) /tmp; /seatunnel itself goes too. */
function removeEmptyParents(dir: string): void {
  for (let p = dirname(dir); p !== '/' && p !== '/tmp'; p = dirname(p)) {
    try {
      if (readdirSync(p).length > 0) return;
      rmdirSync(p);
    } catch {
      return;
    }
  }
}

/**
 * Removes what a case left on the machine: the folders its configs name and the fixture files
 * laid for it, then their parents when that left them empty (so /seatunnel does not outlive the
 * suite). Also the LocalFile sink's default transaction root when it is empty.
 */
export function removeCaseFiles(paths: string[]): void {
  for (const p of paths) {
    rmSync(p, { recursive: true, force: true });
    removeEmptyParents(p);
  }
  removeEmptyParents('/tmp/seatunnel/seatunnel/x');
}

/** Runs a case with its folders removed before (stale output must not pass it) and after it. */
export async function inCleanFolders(paths: string[], run: () => Promise<void>): Promise<void> {
  removeCaseFiles(paths);
  try {
    await run();
  } finally {
    removeCaseFiles(paths);
  }
}
