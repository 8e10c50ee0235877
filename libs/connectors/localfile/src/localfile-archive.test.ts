/**
 * archive_compress_codec on read: archives made by the system's own zip, tar and gzip tools
 * (not by the libraries Tideway reads them with), several files per archive and several
 * archives, entries read in archive order, each with its header skipped, other entries ignored.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAll } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-archive-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes the entry files into a work folder and returns it. */
function entries(name: string, files: Record<string, string>): string {
  const work = join(root, `${name}-entries`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(work, file, '..'), { recursive: true });
    writeFileSync(join(work, file), text);
  }
  return work;
}

const FILES = { 'a.txt': 'id\tname\n1\tone\n2\ttwo\n', 'sub/b.txt': 'id\tname\n3\tthree\n', 'notes.md': 'not read\n' };
const schema = { fields: { id: 'int', name: 'string' } };

describe('LocalFile archive_compress_codec', () => {
  const cases: [string, string, (work: string, archive: string) => void][] = [
    ['zip', 'x.zip', (work, archive) => execFileSync('zip', ['-q', '-r', archive, 'a.txt', 'sub', 'notes.md'], { cwd: work })],
    ['tar', 'x.tar', (work, archive) => execFileSync('tar', ['-cf', archive, 'a.txt', 'sub', 'notes.md'], { cwd: work })],
    ['tar_gz', 'x.tar.gz', (work, archive) => execFileSync('tar', ['-czf', archive, 'a.txt', 'sub', 'notes.md'], { cwd: work })],
  ];
  for (const [codec, file, make] of cases) {
    it(`reads every .txt entry of ${codec} archives, in order, headers skipped`, async () => {
      const work = entries(codec, FILES);
      const dir = join(root, `${codec}-in`);
      mkdirSync(dir, { recursive: true });
      make(work, join(dir, file));
      make(work, join(dir, `second-${file}`));
      const { rows } = await readAll({
        path: dir,
        file_format_type: 'text',
        field_delimiter: '\t',
        skip_header_row_number: 1,
        archive_compress_codec: codec,
        schema,
      });
      const once = [
        [1, 'one'],
        [2, 'two'],
        [3, 'three'],
      ];
      expect(rows.map((r) => r.fields)).toEqual([...once, ...once]);
    });
  }

  it('reads a large zip entry (200,000 lines) through byte ranges', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `${i}\tname-${i}`);
    const work = entries('big', { 'big.txt': `${lines.join('\n')}\n` });
    const dir = join(root, 'big-in');
    mkdirSync(dir, { recursive: true });
    execFileSync('zip', ['-q', join(dir, 'big.zip'), 'big.txt'], { cwd: work });
    const { rows } = await readAll({ path: dir, file_format_type: 'text', field_delimiter: '\t', archive_compress_codec: 'zip', schema });
    expect(rows).toHaveLength(200_000);
    expect(rows[199_999].fields).toEqual([199_999, 'name-199999']);
  });

  it('says so when a file is not an archive of the named kind', async () => {
    const dir = join(root, 'not-zip');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plain.zip'), 'just text\n');
    await expect(readAll({ path: dir, file_format_type: 'text', archive_compress_codec: 'zip' })).rejects.toThrow(
      /cannot read .*plain\.zip/,
    );
  });
});
