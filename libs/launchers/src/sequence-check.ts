import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { sequenceTableDdl } from './sequence-job.js';

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
      this.add(`${key},${seq}`);
    }
  }

  /** Counts one row of `key` with sequence number `seq`, `times` times. */
  add(id: string, times = 1): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + times);
    this.seen += times;
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
    // Rows outside the expected keys and sequence numbers are neither lost nor duplicates of an
    // expected row, but they are wrong: count them as duplicates.
    const expected = keys * rowsPerKey;
    const extra = this.seen - (expected - lost) - duplicated;
    if (extra > 0) {
      duplicated += extra;
      examples.push(`${extra} row(s) outside keys 0..${keys - 1}, seq 0..${rowsPerKey - 1}`);
    }
    return { expected, seen: this.seen, lost, duplicated, examples };
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

/** Where a PostgreSQL table is. */
export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

/**
 * Checks a Jdbc sequence sink's table in PostgreSQL (columns k, seq): every key has every
 * sequence number exactly once. Only committed rows are visible to the query.
 */
export async function checkSequenceTable(target: PgTarget, table: string, keys: number, rowsPerKey: number): Promise<SequenceReport> {
  const client = new pg.Client(target);
  await client.connect();
  try {
    const res = await client.query<{ k: number; seq: string; n: string }>(`SELECT k, seq, count(*) AS n FROM ${table} GROUP BY k, seq`);
    const tally = new SequenceTally();
    for (const r of res.rows) tally.add(`${r.k},${r.seq}`, Number(r.n));
    return tally.report(keys, rowsPerKey);
  } finally {
    await client.end();
  }
}

/** Creates the target table of a Jdbc sequence sink (no key: a duplicate stays visible). */
export async function createSequenceTable(target: PgTarget, table: string): Promise<void> {
  const client = new pg.Client(target);
  await client.connect();
  try {
    await client.query(sequenceTableDdl(table));
  } finally {
    await client.end();
  }
}
