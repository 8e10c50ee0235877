/**
 * The Kafka source's reading without a broker (docs/decisions/0098): BENCH_RECORDS (default
 * 1,000,000) json records of the bench:kafka table (~200 bytes), in record batches of 100 as a
 * producer writes them, cut into 1 MiB fetch responses per partition, turned into rows by
 * - client: @platformatic/kafka's parser (readRecordsBatches: an object per record, a Buffer per
 *   key and value, a header array, a bigint timestamp delta), then the json decoder on each value;
 * - cursor: fetch-records.ts's BatchCursor walking the bytes in place, the json decoder on
 *   (buffer, start, end).
 * Both build the same rows ({ kind, tableId, fields }). Rounds alternate which goes first;
 * medians of BENCH_ROUNDS (default 7) after one warm-up round each.
 * Usage: node --import tsx --conditions=source bench/kafka-record-parse.ts
 */
import { createRecordsBatch, Reader, readRecordsBatches } from '@platformatic/kafka';
import { parseSchemaConfig, type Row } from '@tideway/api';
import { BatchCursor } from '../libs/connectors/kafka/src/fetch-records.js';
import { compileJsonBytesParser } from '../libs/connectors/kafka/src/json-bytes.js';
import { machineLine } from './machine.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PER_BATCH = 100;
const FETCH_BYTES = 1024 * 1024;

const columns = parseSchemaConfig(
  { fields: { key: 'int', seq: 'bigint', payload: 'string', pad: 'string' } },
  { catalogName: 'bench', fallbackTable: 't' },
).table.columns.map((c) => ({ name: c.name, type: c.type }));
// A decoder each: one shared by both paths is called with one argument and with three, and how V8
// compiles it then depends on which ran first (rounds of either moved by 1.7x between processes).
const decodeValue = compileJsonBytesParser(columns);
const decodeInPlace = compileJsonBytesParser(columns);

/** The fetch responses' record bytes: whole batches up to 1 MiB each. */
function responses(): Buffer[] {
  const out: Buffer[] = [];
  let chunk: Buffer[] = [];
  let size = 0;
  for (let first = 0; first < RECORDS; first += PER_BATCH) {
    const messages = Array.from({ length: Math.min(PER_BATCH, RECORDS - first) }, (_, i) => {
      const seq = first + i;
      const value = JSON.stringify({ key: seq % 8, seq, payload: `k${seq % 8}-s${seq}`, pad: 'x'.repeat(140) });
      return { topic: 't', key: null as unknown as Buffer, value: Buffer.from(value), headers: new Map(), timestamp: 1_700_000_000_000n };
    });
    const batch = Buffer.from(createRecordsBatch(messages, {}).buffer);
    batch.writeBigInt64BE(BigInt(first), 0);
    if (size + batch.length > FETCH_BYTES) {
      out.push(Buffer.concat(chunk));
      chunk = [];
      size = 0;
    }
    chunk.push(batch);
    size += batch.length;
  }
  if (chunk.length > 0) out.push(Buffer.concat(chunk));
  return out;
}

function viaClient(fetches: readonly Buffer[]): number {
  let n = 0;
  for (const bytes of fetches) {
    const rows: Row[] = [];
    for (const batch of readRecordsBatches(Reader.from(bytes))) {
      const first = Number(batch.firstOffset);
      for (const record of batch.records) {
        if (first + record.offsetDelta < 0 || record.value === null) continue;
        rows.push({ kind: '+I', tableId: 't', fields: decodeValue(record.value) });
      }
    }
    n += rows.length;
  }
  return n;
}

function viaCursor(fetches: readonly Buffer[]): number {
  let n = 0;
  for (const bytes of fetches) {
    const rows: Row[] = [];
    const cursor = new BatchCursor(bytes);
    while (cursor.nextBatch()) {
      cursor.openRecords();
      while (cursor.nextRecord()) {
        if (cursor.firstOffset + cursor.offsetDelta < 0 || cursor.valueStart < 0) continue;
        rows.push({ kind: '+I', tableId: 't', fields: decodeInPlace(cursor.data, cursor.valueStart, cursor.valueEnd) });
      }
    }
    n += rows.length;
  }
  return n;
}

function time(f: () => number): number {
  const t = performance.now();
  if (f() !== RECORDS) throw new Error('a parser lost records');
  return performance.now() - t;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const fetches = responses();
const mb = fetches.reduce((n, b) => n + b.length, 0) / 2 ** 20;
time(() => viaClient(fetches));
time(() => viaCursor(fetches));
const client: number[] = [];
const cursor: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2 === 0) {
    client.push(time(() => viaClient(fetches)));
    cursor.push(time(() => viaCursor(fetches)));
  } else {
    cursor.push(time(() => viaCursor(fetches)));
    client.push(time(() => viaClient(fetches)));
  }
}
console.log(machineLine({ load: true }));
console.log(
  `${RECORDS.toLocaleString('en-US')} records, ${mb.toFixed(1)} MiB of batches in ${fetches.length} responses; median of ${ROUNDS} rounds`,
);
console.log('| parser | ms | MiB/s | each round (ms) |');
console.log('|---|---|---|---|');
for (const [name, xs] of [
  ['client objects + json', client],
  ['cursor in place + json', cursor],
] as const)
  console.log(`| ${name} | ${Math.round(median(xs))} | ${(mb / (median(xs) / 1000)).toFixed(0)} | ${xs.map(Math.round).join(', ')} |`);
