import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Types } from '@tideway/api';
import { afterAll, describe, expect, it } from 'vitest';
import { ColumnEncoding_Kind, CompressionKind, Footer, PostScript, StripeFooter, Type_Kind } from './gen/orc_file.js';
import { LocalFileSystem } from './local-file-system.js';
import { orcColumns, orcStripeRows, readOrcTail } from './orc-reader.js';
import { OrcFileWriter } from './orc-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-orc-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fs = new LocalFileSystem();

async function rowsOf(path: string): Promise<unknown[][]> {
  const tail = await readOrcTail(fs, path);
  const rows: unknown[][] = [];
  for (let s = 0; s < tail.footer.stripes.length; s++)
    for await (const b of orcStripeRows(fs, path, s, 0, orcColumns(tail), 7, tail)) rows.push(...b);
  return rows;
}

describe('ORC reader', () => {
  it('reads a stripe of no rows (no streams), before and after stripes with rows', async () => {
    // a Tideway file of two stripes, then the same file with an empty stripe put in front of them
    const w = new OrcFileWriter([{ name: 'n', type: Types.INT, nullable: true }], CompressionKind.NONE, 1);
    w.add([1]);
    w.add([null]);
    const full = Buffer.from(w.finish()!);
    const psLen = full[full.length - 1];
    const ps = PostScript.decode(full.subarray(full.length - 1 - psLen, full.length - 1));
    const footerEnd = full.length - 1 - psLen;
    const footer = Footer.decode(full.subarray(footerEnd - Number(ps.footerLength), footerEnd));
    const stripesEnd = Number(footer.contentLength);
    const empty = StripeFooter.encode({
      streams: [],
      columns: [{ kind: ColumnEncoding_Kind.DIRECT }, { kind: ColumnEncoding_Kind.DIRECT_V2 }],
      writerTimezone: 'GMT',
    }).finish();
    const stripes = full.subarray(3, stripesEnd);
    const shifted = footer.stripes.map((s) => ({ ...s, offset: BigInt(Number(s.offset) + empty.length) }));
    const newFooter = Footer.encode({
      ...footer,
      contentLength: BigInt(stripesEnd + empty.length),
      stripes: [{ offset: 3n, indexLength: 0n, dataLength: 0n, footerLength: BigInt(empty.length), numberOfRows: 0n }, ...shifted],
    }).finish();
    const newPs = PostScript.encode({ ...ps, footerLength: BigInt(newFooter.length), metadataLength: 0n }).finish();
    const file = join(dir, 'empty-stripe.orc');
    writeFileSync(file, Buffer.concat([Buffer.from('ORC'), empty, stripes, newFooter, newPs, Buffer.of(newPs.length)]));
    expect(footer.types[1].kind).toBe(Type_Kind.INT);
    expect((await readOrcTail(fs, file)).footer.stripes.map((s) => Number(s.numberOfRows))).toEqual([0, 1, 1]);
    expect(await rowsOf(file)).toEqual([[1], [null]]);
  });
});
