import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Column, formatType, Types } from '@tideway/api';
import {
  LocalFileSystem,
  loadZstd,
  ORC_WRITE_CODECS,
  OrcFileWriter,
  orcColumns,
  orcStripeRows,
  readOrcTail,
} from '@tideway/connector-file-common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orcPeersPresent, orcTools, pyarrowRead, pyarrowWrite } from '@tideway/testing';
import { canon, prng, randomColumns, randomValue } from './orc-values.js';

/**
 * Tideway's ORC files read by pyarrow and Apache ORC's tools, and theirs read by Tideway, with the
 * same rows: random schemas and values (nulls everywhere, very long strings), every codec, RLE v1
 * (file version 0.11) and v2, dictionary and direct strings, several stripes.
 */
const peers = orcPeersPresent();
const fs = new LocalFileSystem();
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tideway-orc-'));
  await loadZstd();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function randomTable(seed: number, rows: number, nullRate: number): { columns: Column[]; values: unknown[][] } {
  const r = prng(seed);
  const columns = randomColumns(r, 3 + Math.floor(r() * 6));
  const values = Array.from({ length: rows }, () => columns.map((c) => randomValue(c.type, r, nullRate)));
  return { columns, values };
}

async function writeTideway(
  path: string,
  columns: readonly Column[],
  rows: readonly unknown[][],
  codec: string,
  stripeBytes?: number,
): Promise<void> {
  const w = new OrcFileWriter(columns, ORC_WRITE_CODECS[codec], stripeBytes);
  const parts: Uint8Array[] = [];
  for (const row of rows) {
    w.add(row);
    const t = w.take();
    if (t) parts.push(Buffer.from(t));
  }
  const last = w.finish();
  if (last) parts.push(last);
  writeFileSync(path, Buffer.concat(parts));
}

/** Every row of a file as Tideway reads it, stripe by stripe, and its columns. */
async function readTideway(path: string, names?: string[]): Promise<{ columns: Column[]; rows: unknown[][]; stripes: number }> {
  const tail = await readOrcTail(fs, path);
  const all = orcColumns(tail);
  const columns = names ? names.map((n) => all.find((c) => c.name === n)!) : all;
  const rows: unknown[][] = [];
  for (let s = 0; s < tail.footer.stripes.length; s++) {
    for await (const batch of orcStripeRows(fs, path, s, 0, columns, 1000, tail)) rows.push(...batch);
  }
  return { columns, rows, stripes: tail.footer.stripes.length };
}

const canonRows = (columns: readonly Column[], rows: readonly unknown[][]): unknown[][] =>
  rows.map((row) => columns.map((c, i) => canon(row[i], c.type)));

describe.skipIf(!peers)('ORC interop with pyarrow and orc-tools', () => {
  it('pyarrow reads what Tideway writes, every codec, with the same rows and types', async () => {
    const files: string[] = [];
    const tables: ReturnType<typeof randomTable>[] = [];
    for (const [i, codec] of ['none', 'zlib', 'snappy', 'lz4', 'zstd'].entries()) {
      const table = randomTable(100 + i, 1500, i === 0 ? 0.5 : 0.15);
      const path = join(dir, `tideway-${codec}.orc`);
      await writeTideway(path, table.columns, table.values, codec, 16 * 1024);
      files.push(path);
      tables.push(table);
    }
    const read = await pyarrowRead(...files);
    for (const [i, got] of read.entries()) {
      const { columns, values } = tables[i];
      expect(got.schema, files[i]).toEqual(columns.map((c) => [c.name, formatType(c.type)]));
      expect(got.rows, files[i]).toEqual(canonRows(columns, values));
      expect(got.stripes, files[i]).toBeGreaterThan(1);
      // and Tideway reads its own file back
      const back = await readTideway(files[i]);
      expect(canonRows(back.columns, back.rows)).toEqual(canonRows(columns, values));
    }
  });

  it('Tideway reads what pyarrow writes: every codec, RLE v1 and v2, dictionary and direct strings, several stripes', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['uncompressed', { file_version: '0.12', stripe_size: 64 * 1024, dictionary_key_size_threshold: 1 }],
      ['zlib', { file_version: '0.11', stripe_size: 64 * 1024 }],
      ['snappy', { file_version: '0.12', dictionary_key_size_threshold: 0 }],
      ['lz4', { file_version: '0.11', dictionary_key_size_threshold: 1 }],
      ['zstd', { file_version: '0.12', stripe_size: 32 * 1024, row_index_stride: 100 }],
    ];
    for (const [i, [codec, options]] of cases.entries()) {
      const table = randomTable(200 + i, 2000, i === 1 ? 0.6 : 0.1);
      const spec = join(dir, `spec-${codec}.json`);
      writeFileSync(
        spec,
        JSON.stringify({
          columns: table.columns.map((c) => [c.name, formatType(c.type)]),
          rows: canonRows(table.columns, table.values),
          options,
        }),
      );
      const path = join(dir, `pyarrow-${codec}.orc`);
      await pyarrowWrite(spec, path, codec);
      const got = await readTideway(path);
      expect(
        got.columns.map((c) => [c.name, formatType(c.type)]),
        path,
      ).toEqual(table.columns.map((c) => [c.name, formatType(c.type)]));
      expect(canonRows(got.columns, got.rows), path).toEqual(canonRows(table.columns, table.values));
      // projection: the last column, then the first, read alone
      const names = [table.columns.at(-1)!.name, table.columns[0].name];
      const projected = await readTideway(path, names);
      expect(canonRows(projected.columns, projected.rows)).toEqual(
        canonRows(table.columns, table.values).map((row) => [row.at(-1), row[0]]),
      );
    }
  });

  it('Tideway reads an empty file of pyarrow and writes one pyarrow reads', async () => {
    const columns: Column[] = [{ name: 'a', type: Types.INT, nullable: true }];
    const spec = join(dir, 'spec-empty.json');
    writeFileSync(spec, JSON.stringify({ columns: [['a', 'int']], rows: [] }));
    const theirs = join(dir, 'pyarrow-empty.orc');
    await pyarrowWrite(spec, theirs, 'zlib');
    expect((await readTideway(theirs)).rows).toEqual([]);
    const ours = join(dir, 'tideway-empty.orc');
    await writeTideway(ours, columns, [], 'zstd');
    const [read] = await pyarrowRead(ours);
    expect(read.rows).toEqual([]);
    expect(read.schema).toEqual([['a', 'int']]);
  });

  it("Tideway reads the files of ORC's Java writer (orc-tools convert): RLE v1 and v2, dictionary and direct strings, several stripes, a writer's time zone with daylight saving", async () => {
    const N = 4000;
    const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
    const expected: unknown[][] = [];
    const lines: string[] = [];
    for (let i = 0; i < N; i++) {
      // wall clocks every 25 hours and 7 seconds from 2019 on, none in the hour daylight saving skips
      const at = new Date(Date.UTC(2019, 0, 1) + i * 90_007_000);
      const hour = at.getUTCHours() === 2 ? 3 : at.getUTCHours();
      const wall = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(hour)}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;
      const frac = i % 2 === 1 ? `.${pad(i % 1000, 3)}` : '';
      const row = {
        i: i % 11 === 0 ? null : i % 50 === 0 ? 1_000_000 + i : i % 97,
        l: String(BigInt(i) * 1_000_000_007n - 5_000_000_000n),
        s: i % 13 === 0 ? null : i % 3 === 0 ? `u${i}` : `d${i % 10}`,
        d: i * 0.25,
        dec: `${i}.${pad(i % 1000, 3)}`,
        dt: new Date(Date.UTC(1990, 0, 1 + i)).toISOString().slice(0, 10),
        ts: `${wall}${frac}`,
        b: i % 2 === 0,
        arr: i % 7 === 0 ? null : i % 5 === 0 ? [] : [i, i + 1],
        m: i % 9 === 0 ? null : { a: i },
        st: i % 17 === 0 ? null : { x: i, y: `y${i % 4}` },
      };
      lines.push(
        JSON.stringify(row)
          .replace(/"l":"(-?\d+)"/, '"l":$1')
          .replace(/"dec":"([\d.]+)"/, '"dec":$1'),
      );
      const trimmed = frac.replace(/0+$/, '');
      expected.push([
        row.i,
        BigInt(row.l),
        row.s,
        row.d,
        row.dec,
        row.dt,
        `${wall.replace(' ', 'T')}${trimmed === '.' ? '' : trimmed}`,
        row.b,
        row.arr,
        row.m === null ? null : new Map([['a', i]]),
        row.st === null ? null : [i, `y${i % 4}`],
      ]);
    }
    const json = join(dir, 'java-rows.json');
    writeFileSync(json, `${lines.join('\n')}\n`);
    const schema =
      'struct<i:int,l:bigint,s:string,d:double,dec:decimal(12,3),dt:date,ts:timestamp,b:boolean,arr:array<int>,m:map<string,int>,st:struct<x:int,y:string>>';
    const variants: [string, string[]][] = [
      ['NONE', ['orc.write.format=0.11', 'orc.dictionary.key.threshold=1']],
      ['LZ4', ['orc.stripe.size=65536', 'orc.row.index.stride=1000', 'orc.encoding.strategy=COMPRESSION']],
      ['ZSTD', ['orc.stripe.size=32768', 'orc.dictionary.key.threshold=0']],
    ];
    for (const [codec, defines] of variants) {
      const out = join(dir, `java-${codec}.orc`);
      const args = ['--define', `orc.compress=${codec}`, ...defines.flatMap((d) => ['--define', d])];
      await orcTools(
        [...args, 'convert', '-t', 'yyyy-MM-dd HH:mm:ss[.SSS]', '-s', schema, '-o', out, json],
        ['-Duser.timezone=America/New_York'],
      );
      const got = await readTideway(out);
      expect(got.rows, `${codec} ${defines.join(' ')}`).toEqual(expected);
    }
  });

  it("orc-tools' meta and data read Tideway's files with the same rows", async () => {
    const columns: Column[] = [
      { name: 'id', type: Types.BIGINT, nullable: true },
      { name: 'name', type: Types.STRING, nullable: true },
      { name: 'ok', type: Types.BOOLEAN, nullable: true },
      { name: 'price', type: Types.DOUBLE, nullable: true },
      { name: 'day', type: Types.DATE, nullable: true },
      { name: 'tags', type: Types.array(Types.INT), nullable: true },
      { name: 'attrs', type: Types.map(Types.STRING, Types.STRING), nullable: true },
      { name: 'inner', type: Types.row([{ name: 'x', type: Types.SMALLINT }]), nullable: true },
      { name: 'ts', type: Types.TIMESTAMP, nullable: true },
    ];
    const rows = Array.from({ length: 3000 }, (_, i) => [
      BigInt(i * 7 - 1000),
      i % 5 === 0 ? null : `name ${i % 300}`,
      i % 3 === 0,
      i % 7 === 0 ? null : i / 8,
      new Date(Date.UTC(2000, 0, 1 + (i % 4000))).toISOString().slice(0, 10),
      i % 11 === 0 ? null : [i, i + 1],
      new Map([[`k${i % 3}`, `v${i}`]]),
      i % 13 === 0 ? null : [i % 100],
      new Date(Date.UTC(1960, 0, 1) + i * 86_399_123).toISOString().slice(0, i % 2 === 0 ? 19 : 23),
    ]);
    const files: string[] = [];
    for (const codec of ['none', 'zlib', 'snappy', 'lz4', 'zstd']) {
      const path = join(dir, `tools-${codec}.orc`);
      await writeTideway(path, columns, rows, codec, 32 * 1024);
      files.push(path);
    }
    const meta = await orcTools(['meta', ...files]);
    expect(meta.match(/Rows: 3000/g)?.length).toBe(files.length);
    expect(meta).toContain(
      'Type: struct<id:bigint,name:string,ok:boolean,price:double,day:date,tags:array<int>,attrs:map<string,string>,inner:struct<x:smallint>,ts:timestamp>',
    );
    for (const codec of ['NONE', 'ZLIB', 'SNAPPY', 'LZ4', 'ZSTD']) expect(meta).toContain(`Compression: ${codec}`);
    const expected = rows.map((r) => ({
      id: Number(r[0]),
      name: r[1],
      ok: r[2],
      price: r[3],
      day: r[4],
      tags: r[5],
      attrs: r[6] === null ? null : Object.fromEntries(r[6] as Map<string, string>),
      inner: r[7] === null ? null : { x: (r[7] as number[])[0] },
      // orc-tools prints a timestamp as java.sql.Timestamp does (the wall clock is the one written)
      ts: (r[8] as string).replace('T', ' ') + ((r[8] as string).length === 19 ? '.0' : ''),
    }));
    // one JVM for every file: orc-tools prints each file's rows, then a line of underscores
    const printed = (await orcTools(['data', ...files])).split(/^_{20,}$/m);
    for (const [i, path] of files.entries()) {
      const got = printed[i]
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const normal = got.map((o) => ({
        ...o,
        // orc-tools prints a map as [{ _key, _value }]
        attrs: Array.isArray(o.attrs)
          ? Object.fromEntries((o.attrs as { _key: string; _value: string }[]).map((e) => [e._key, e._value]))
          : o.attrs,
      }));
      expect(normal, path).toEqual(expected);
    }
  });
});
