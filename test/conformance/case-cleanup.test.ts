import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { caseFolders, removeCaseFiles } from './case-cleanup.js';

it('finds the folders a config names under /tmp and /seatunnel, with -i variables filled and engine variables cut', () => {
  const text = `source { LocalFile { path = "/seatunnel/read/json" } }
sink {
  LocalFile { path = "/tmp/seatunnel/\${dir}/out/", tmp_path = "/tmp/tw-tx" }
  LocalFile { path = "/tmp/hive/warehouse/\${table_name}" }
  LocalFile { path = "/home/user/keep" }
  JsonPath { path = "$.f1" }
}`;
  expect(caseFolders(text, ['-i', 'dir=run1']).sort()).toEqual([
    '/seatunnel/read/json',
    '/tmp/hive/warehouse',
    '/tmp/seatunnel/run1/out',
    '/tmp/tw-tx',
  ]);
});

it('removes the folders and the parents they leave empty, up to /tmp', () => {
  const base = `/tmp/tideway-cleanup-${process.pid}`;
  mkdirSync(`${base}/a/b`, { recursive: true });
  mkdirSync(`${base}/keep`, { recursive: true });
  writeFileSync(`${base}/a/b/f.txt`, 'x');
  removeCaseFiles([`${base}/a/b`]);
  expect(existsSync(`${base}/a`)).toBe(false);
  expect(existsSync(`${base}/keep`)).toBe(true);
  removeCaseFiles([`${base}/keep`]);
  expect(existsSync(base)).toBe(false);
});
