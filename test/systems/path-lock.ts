import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Holds a lock file (created exclusively) while `fn` runs: SeaTunnel's config names a fixed folder under /tmp other runs may use too. */
export async function withLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lock, 'utf8'));
      let alive = true;
      try {
        process.kill(holder, 0);
      } catch {
        alive = false;
      }
      if (!alive) rmSync(lock, { force: true });
      else if (Date.now() > end) throw new Error(`${lock} is held by process ${holder}`, { cause: err });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
