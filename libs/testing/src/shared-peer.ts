import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A JVM test peer shared by every test file of one vitest run: the first file that asks starts
 * it (so the JVM starts once per run, and only when a test needs it), the others wait for the
 * address it wrote. `start(owner, root)` starts the peer in `root` so that it outlives its
 * starting process until `owner` (the vitest process) ends, and returns its address. Outside
 * vitest the peer belongs to this process.
 */
export async function openSharedPeer(name: string, start: (owner: number, root: string) => Promise<string>): Promise<string> {
  const owner = process.env.VITEST ? process.ppid : process.pid;
  const root = join(tmpdir(), `tideway-${name}-shared-${owner}`);
  const address = join(root, 'address');
  const failed = join(root, 'failed');
  let mine = false;
  try {
    mkdirSync(root);
    mine = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (mine) {
    try {
      const at = await start(owner, root);
      writeFileSync(`${address}.tmp`, at);
      renameSync(`${address}.tmp`, address);
      return at;
    } catch (err) {
      mkdirSync(root, { recursive: true });
      writeFileSync(failed, err instanceof Error ? err.message : String(err));
      throw err;
    }
  }
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (existsSync(address)) return readFileSync(address, 'utf8');
    if (existsSync(failed)) throw new Error(`the shared ${name} peer did not start: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the shared ${name} peer did not start within 240 s (${root})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
