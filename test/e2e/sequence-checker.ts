import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the checker found in a sink's committed output. */
export interface SequenceReport {
  expected: number;
  seen: number;
  lost: number;
  duplicated: number;
  /** A few lost or duplicated rows, for the failure message. */
  examples: string[];
}

/** Counts `key,seq,payload` lines and reports every key's sequence numbers seen other than once. */
export class SequenceTally {
  private readonly counts = new Map<string, number>();
  private seen = 0;

  addText(text: string): void {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const [key, seq] = line.split(',');
      const id = `${key},${seq}`;
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
      this.seen++;
    }
  }

  /** Checks that every key 0..keys-1 has every sequence number 0..rowsPerKey-1 exactly once. */
  report(keys: number, rowsPerKey: number): SequenceReport {
    let lost = 0;
    let duplicated = 0;
    const examples: string[] = [];
    for (let k = 0; k < keys; k++) {
      for (let s = 0; s < rowsPerKey; s++) {
        const n = this.counts.get(`${k},${s}`) ?? 0;
        if (n === 0) lost++;
        if (n > 1) duplicated += n - 1;
        if (n !== 1 && examples.length < 5) examples.push(`key ${k} seq ${s} seen ${n} time(s)`);
      }
    }
    return { expected: keys * rowsPerKey, seen: this.seen, lost, duplicated, examples };
  }
}

/**
 * Reads the committed text files of a LocalFile sink (comma-separated `key,seq,payload`,
 * temp folders excluded: only files directly in `dir`) and checks that every key has every
 * sequence number from 0 to rowsPerKey - 1 exactly once.
 */
export function checkSequenceOutput(dir: string, keys: number, rowsPerKey: number): SequenceReport {
  const tally = new SequenceTally();
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isFile()) tally.addText(readFileSync(file, 'utf8'));
  }
  return tally.report(keys, rowsPerKey);
}
