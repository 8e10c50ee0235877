/** The binary format: a LocalFile binary source into a LocalFile binary sink copies a folder tree byte for byte. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import type { SinkAggregatedCommitter } from '@tideway/api';
import { readAll, sinkOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-binary-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('LocalFile binary', () => {
  it('copies files of any size, in 1024-byte parts, under their relative paths', async () => {
    const src = join(root, 'src');
    mkdirSync(join(src, 'deep', 'er'), { recursive: true });
    const files: Record<string, Buffer> = {
      'a.bin': randomBytes(1024 * 3),
      'deep/b.png': randomBytes(1_500_001),
      'deep/er/c': randomBytes(10),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(src, name), bytes);

    const { rows, table } = await readAll({ path: src, file_format_type: 'binary' });
    expect(table.columns.map((c) => `${c.name} ${c.type.kind}`)).toEqual(['data bytes', 'relativePath string', 'partIndex bigint']);
    expect(rows).toHaveLength(3 + Math.ceil(1_500_001 / 1024) + 1);
    expect(
      rows
        .filter((r) => r.fields[1] === 'deep/b.png')
        .map((r) => (r.fields[0] as Buffer).length)
        .at(-1),
    ).toBe(1_500_001 % 1024);

    const out = join(root, 'out');
    const sink = sinkOf({ path: out, tmp_path: join(root, 'tmp'), file_format_type: 'binary' }, { ...table, tableId: 'db.t' });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write(rows.map((r) => ({ ...r, tableId: 'db.t' })));
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    for (const [name, bytes] of Object.entries(files)) expect(readFileSync(join(out, name)).equals(bytes), name).toBe(true);
  });

  it('refuses a sink input that is not a binary source, and parts out of order', async () => {
    expect(() => sinkOf({ path: join(root, 'x'), file_format_type: 'binary' }, tableOf([['id', 'int']]))).toThrow(
      /binary format writes what a binary source reads/,
    );
    const { table } = await readAll({ path: join(root, 'src'), file_format_type: 'binary' });
    const sink = sinkOf({ path: join(root, 'y'), tmp_path: join(root, 'tmp2'), file_format_type: 'binary' }, { ...table, tableId: 'db.t' });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await expect(writer.write([{ kind: '+I', tableId: 'db.t', fields: [Buffer.from('x'), 'f', 1n] }])).rejects.toThrow(
      /part 1 came after part -1/,
    );
    await expect(writer.write([{ kind: '+I', tableId: 'db.t', fields: [Buffer.from('x'), '../escape', 0n] }])).rejects.toThrow(
      /would leave/,
    );
  });
});
