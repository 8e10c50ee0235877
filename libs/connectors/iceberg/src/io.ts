import { open, readFile } from 'node:fs/promises';
import { localPath } from './catalog.js';

/**
 * The one way the Iceberg source reads a table's files (metadata JSON, manifest lists,
 * manifests, data and delete files): all of a file, or bytes [start, end) of it. A FileIO for
 * object stores replaces this function alone.
 */
export async function readLocation(location: string, range?: { readonly start: number; readonly end: number }): Promise<Uint8Array> {
  const path = localPath(location);
  if (!range) return readFile(path);
  const fd = await open(path, 'r');
  try {
    const out = Buffer.alloc(range.end - range.start);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await fd.read(out, done, out.length - done, range.start + done);
      if (bytesRead === 0) throw new Error(`${location} ends at byte ${range.start + done}, before ${range.end}`);
      done += bytesRead;
    }
    return out;
  } finally {
    await fd.close();
  }
}
