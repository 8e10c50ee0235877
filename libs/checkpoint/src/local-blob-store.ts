import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import type { BlobStore } from './blob-store.js';

const TEMP_MARK = '.tmp-';

/**
 * Objects as files under a directory. A put writes a temp file beside the target, syncs it
 * and renames it into place, so a reader sees either nothing or the whole file.
 */
export class LocalBlobStore implements BlobStore {
  readonly description: string;

  constructor(readonly root: string) {
    this.description = `local directory ${root}`;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = join(this.root, key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(join(this.root, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const dir = join(this.root, prefix);
    let entries: string[];
    try {
      entries = await readdir(dir, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const keys: string[] = [];
    for (const entry of entries) {
      if (entry.includes(TEMP_MARK)) continue; // a put in progress or one that crashed
      const key = relative(this.root, join(dir, entry)).split(sep).join('/');
      keys.push(key);
    }
    return keys;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await rm(join(this.root, key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(join(this.root, prefix), { force: true, recursive: true });
  }

  close(): void {}
}
