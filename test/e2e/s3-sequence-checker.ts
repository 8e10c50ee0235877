import type { S3Location } from '@tideway/checkpoint';
import { S3BlobStore } from '@tideway/checkpoint/s3';
import { SequenceTally, type SequenceReport } from './sequence-checker.js';

/**
 * Reads the committed text objects of an S3File sink directly under `prefix` (comma-separated
 * `key,seq,payload`; folder markers and deeper keys such as temp objects are excluded) and checks
 * that every key has every sequence number from 0 to rowsPerKey - 1 exactly once.
 */
export async function checkSequenceObjects(
  location: S3Location,
  prefix: string,
  keys: number,
  rowsPerKey: number,
): Promise<SequenceReport & { objects: number }> {
  const store = new S3BlobStore(location);
  const tally = new SequenceTally();
  let objects = 0;
  try {
    for (const key of await store.list(prefix)) {
      const rest = key.slice(prefix.length);
      if (rest === '' || rest.includes('/')) continue;
      objects++;
      tally.addText(Buffer.from((await store.get(key)) ?? new Uint8Array(0)).toString('utf8'));
    }
  } finally {
    store.close();
  }
  return { ...tally.report(keys, rowsPerKey), objects };
}
