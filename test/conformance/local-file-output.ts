import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every regular file under `dir`, recursively (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Rows in text-format files under `dir`: non-empty lines, as the LocalFile text writer ends each row with a newline. */
export function textRowsUnder(dir: string): number {
  let rows = 0;
  for (const f of filesUnder(dir)) {
    for (const line of readFileSync(f, 'utf8').split('\n')) if (line !== '') rows++;
  }
  return rows;
}

/** The folder where LocalFile keeps a job's uncommitted transaction files (tmp_path default /tmp/seatunnel). */
export function transactionDir(jobId: string, tmpPath = '/tmp/seatunnel'): string {
  return join(tmpPath, 'seatunnel', jobId);
}

/** Reads the `path` option of the LocalFile sink of a job config (a quoted string). */
export function localFileSinkPath(configText: string): string {
  const sink = configText.slice(configText.search(/^\s*sink\s*\{/m));
  const m = /LocalFile\s*\{[^}]*?\bpath\s*=\s*"([^"]+)"/s.exec(sink);
  if (!m) throw new Error('the config has no LocalFile sink with a quoted path');
  return m[1];
}

/** Removes a folder and all under it, if it exists. */
export function clean(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
