/**
 * The file sinks classify their errors (issue 33, item 6), through `tideway run` with a LocalFile
 * dead-letter folder (env.sink_error_handler ROUTE): a row whose decimal is wider than its
 * Parquet column is routed with the column named while the rows around it are written to a file
 * DuckDB reads; a sink whose folder cannot be created (it lies below a file) fails the job and
 * routes nothing.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { routed, routedRowsJob } from './dead-letter-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-file-row-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function job(name: string, out: string, dead: string): string {
  return routedRowsJob(
    join(dir, `${name}.conf`),
    dead,
    'id = "int", amount = "decimal(5, 2)"',
    [
      [1, '12.50'],
      [2, '123456.78'],
      [3, '-999.99'],
    ],
    `  LocalFile {
    path = "${out}"
    tmp_path = "${out}"
    file_format_type = "parquet"
  }`,
  );
}

describe('the file sinks route the rows their format cannot hold', () => {
  it('a decimal wider than its Parquet column: routed naming the column, the other rows written', async () => {
    const out = join(dir, 'out');
    const dead = join(dir, 'dead');
    const res = await runCli(['run', '-c', job('wide', out, dead)], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const files = readdirSync(out).filter((f) => f.endsWith('.parquet'));
    expect(files).toHaveLength(1);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const rows = await (
        await c.run(`SELECT id, CAST(amount AS VARCHAR) AS a FROM '${join(out, files[0])}' ORDER BY id`)
      ).getRowObjectsJS();
      expect(rows).toEqual([
        { id: 1, a: '12.50' },
        { id: 3, a: '-999.99' },
      ]);
    } finally {
      c.closeSync();
    }
    const bad = routed(dead);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ error_stage: 'SINK', plugin_type: 'SINK', plugin_name: 'LocalFile', original_data: '[2,"123456.78"]' });
    expect(String(bad[0].error_message)).toMatch(/Column 'amount': The decimal 123456\.78 has more digits than DECIMAL\(5, 2\) holds/);
    expect(res.stdout + res.stderr).toMatch(/Total Write Count\s*:\s*2\n/);
  }, 200_000);

  it('a folder that cannot be created (below a file) is no row error: the job fails and nothing is routed', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const dead = join(dir, 'dead-blocked');
    const res = await runCli(['run', '-c', job('blocked', join(file, 'below'), dead)], 120_000);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/ENOTDIR|not a directory/);
    expect(routed(dead)).toEqual([]);
  }, 200_000);
});
