import { S3BlobStore, type S3Location } from '@tideway/checkpoint';
import type { SequenceReport } from './sequence-checker.js';

/**
 * Reads the committed text objects of an S3File sink directly under `prefix` (comma-separated
 * `key,seq,payload`; folder markers and deeper keys such as temp objects are excluded) and checks
 * that every key has every sequence number from 0 to rowsPerKey - 1 exactly once.
 */
export async function checkSequenceObjects(location: S3Location, prefix: string, keys: number, rowsPerKey: number): Promise<SequenceReport & { objects: number }> {
  const store = new S3BlobStore(location);
  const counts = new Map<string, number>();
  let seen = 0;
  let objects = 0;
  try {
    for (const key of await store.list(prefix)) {
      const rest = key.slice(prefix.length);
      if (rest === '' || rest.includes('/')) continue;
      objects++;
      const text = Buffer.from((await store.get(key)) ?? new Uint8Array(0)).toString('utf8');
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const [k, seq] = line.split(',');
        const id = `${k},${seq}`;
        counts.set(id, (counts.get(id) ?? 0) + 1);
        seen++;
      }
    }
  } finally {
    store.close();
  }
  let lost = 0;
  let duplicated = 0;
  const examples: string[] = [];
  for (let k = 0; k < keys; k++) {
    for (let s = 0; s < rowsPerKey; s++) {
      const n = counts.get(`${k},${s}`) ?? 0;
      if (n === 0) lost++;
      if (n > 1) duplicated += n - 1;
      if (n !== 1 && examples.length < 5) examples.push(`key ${k} seq ${s} seen ${n} time(s)`);
    }
  }
  return { expected: keys * rowsPerKey, seen, lost, duplicated, examples, objects };
}
