/**
 * The Elasticsearch sink classifies its errors (issue 33, item 6), through `tideway run` against
 * the shared OpenSearch node with a LocalFile dead-letter folder (env.sink_error_handler ROUTE):
 * documents the index's mapping cannot take (mapper_parsing_exception) are routed with the
 * cluster's words while the rest of their bulk is written; an index that refuses every write
 * (a write block: the cluster's error, not the row's) fails the job and routes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSearchSkipped, sharedOpenSearch, type OpenSearchNode } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { routed, routedRowsJob } from '../e2e/dead-letter-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-es-row-errors-'));
let node: OpenSearchNode;

async function es<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** An index whose `qty` is an integer, so that a row with qty "ten" is refused by its mapping. */
const createIndex = (index: string, settings: Record<string, unknown> = {}) =>
  es('PUT', `/${index}`, { settings, mappings: { properties: { id: { type: 'long' }, qty: { type: 'integer' } } } });

function job(index: string, dead: string): string {
  return routedRowsJob(
    join(dir, `${index}.conf`),
    dead,
    'id = "bigint", qty = "string"',
    [
      [1, '10'],
      [2, 'ten'],
      [3, '30'],
      [4, '4x'],
      [5, '50'],
    ],
    `  Elasticsearch {
    hosts = ["${node.url}"]
    index = "${index}"
  }`,
  );
}

describe.skipIf(openSearchSkipped())('the Elasticsearch sink routes the documents the index refuses (OpenSearch)', () => {
  beforeAll(async () => {
    node = await sharedOpenSearch();
  }, 240_000);

  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a value the mapping cannot take: that row is routed with the error, the rest of its bulk is written', async () => {
    await createIndex('row_errors_mapping');
    const dead = join(dir, 'dead-mapping');
    const res = await runCli(['run', '-c', job('row_errors_mapping', dead)], 150_000);
    expect(res.code, res.stderr).toBe(0);
    await es('POST', '/row_errors_mapping/_refresh');
    const hits = await es<{ hits: { hits: Array<{ _source: { id: number; qty: string } }> } }>('POST', '/row_errors_mapping/_search', {
      size: 100,
      sort: [{ id: 'asc' }],
    });
    expect(hits.hits.hits.map((h) => [h._source.id, h._source.qty])).toEqual([
      [1, '10'],
      [3, '30'],
      [5, '50'],
    ]);
    const bad = routed(dead).sort((a, b) => String(a.original_data).localeCompare(String(b.original_data)));
    expect(bad.map((r) => r.original_data)).toEqual(['["2","ten"]', '["4","4x"]']);
    for (const r of bad) {
      expect(r).toMatchObject({ error_stage: 'SINK', plugin_type: 'SINK', plugin_name: 'Elasticsearch' });
      expect(String(r.error_message)).toMatch(/mapper_parsing_exception/);
    }
    expect(res.stdout + res.stderr).toMatch(/Total Write Count\s*:\s*3\n/);
  }, 200_000);

  it("an index that refuses every write (a write block: the cluster's error) fails the job and routes nothing", async () => {
    await createIndex('row_errors_blocked', { 'index.blocks.write': true });
    const dead = join(dir, 'dead-blocked');
    const res = await runCli(['run', '-c', job('row_errors_blocked', dead)], 150_000);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/cluster_block_exception/);
    expect(routed(dead)).toEqual([]);
  }, 200_000);
});
