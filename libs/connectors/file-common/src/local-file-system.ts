import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FileEntry, FileOutput, FileSystemAdapter } from './file-system.js';

/** The machine's own file system. */
export class LocalFileSystem implements FileSystemAdapter {
  readonly description = 'local file system';

  async create(path: string): Promise<FileOutput> {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, 'w');
    return {
      write: async (chunk) => {
        await handle.write(chunk);
      },
      close: async () => {
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      },
    };
  }

  async rename(from: string, to: string): Promise<void> {
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
  }

  async exists(path: string): Promise<boolean> {
    try {
      await stat(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async delete(path: string): Promise<void> {
    try {
      await rm(path, { recursive: true, force: true });
    } catch (err) {
      // a path below a file is not there either (force covers only ENOENT)
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
    }
  }

  async children(path: string): Promise<string[]> {
    try {
      return await readdir(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw err;
    }
  }

  async deleteIfEmpty(path: string): Promise<void> {
    try {
      await rmdir(path);
    } catch (err) {
      // Not empty: another writer (another pipeline of the job) still uses it.
      if (!['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  }

  async mkdirs(path: string): Promise<void> {
    await mkdir(path, { recursive: true });
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    if (info.isFile()) return [{ path, size: info.size, modifiedMs: info.mtimeMs }];
    const out: FileEntry[] = [];
    for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = join(entry.parentPath ?? entry.path, entry.name);
      const st = await stat(full);
      out.push({ path: full, size: st.size, modifiedMs: st.mtimeMs });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readRange(path: string, start: number, end: number): Promise<Uint8Array> {
    const handle = await open(path, 'r');
    try {
      const buf = Buffer.alloc(end - start);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await handle.read(buf, got, buf.length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } finally {
      await handle.close();
    }
  }

  read(path: string): AsyncIterable<Uint8Array> {
    return createReadStream(path);
  }
}
