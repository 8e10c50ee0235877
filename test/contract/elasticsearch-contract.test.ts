/**
 * The contract suite (libs/connector-contract) on the Elasticsearch sink and source, against an
 * OpenSearch 2.19 node (Maven Central's jars, its own JVM): the sink with primary_keys (upserts
 * by _id, so a replay after a restore rewrites the same documents), read back with _search; the
 * source scrolling an index loaded with _bulk.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { sinkContract, sourceContract, type ExpectedRow, type ReadRow } from '@tideway/connector-contract';
import { elasticsearchSinkFactory, elasticsearchSourceFactory } from '@tideway/connector-elasticsearch';
import { openSearchSkipped, sharedOpenSearch, type OpenSearchNode } from '@tideway/testing';
import {
  ELASTICSEARCH_NOT_APPLICABLE,
  ELASTICSEARCH_PIT_SOURCE_NOT_APPLICABLE,
  ELASTICSEARCH_SOURCE_NOT_APPLICABLE,
} from './contract-table.js';

let node: OpenSearchNode;

async function es<T>(method: string, path: string, body?: string, ndjson = false): Promise<T> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body,
  });
  const text = await res.text();
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

describe.skipIf(openSearchSkipped())('Elasticsearch contract (OpenSearch)', () => {
  beforeAll(async () => {
    node = await sharedOpenSearch();
  }, 240_000);
  afterAll(async () => {
    await node?.stop();
  });

  sinkContract({
    name: 'Elasticsearch (primary_keys)',
    factory: elasticsearchSinkFactory,
    delivery: 'idempotent',
    target: (id) => ({
      options: { hosts: [node.url], index: `${id}_\${table_name}`, primary_keys: ['id'], max_batch_size: 7 },
      readBack: async (table) => {
        const index = `${id}_${table.path.table}`.toLowerCase();
        await es('POST', `/${index}/_refresh`);
        const r = await es<{ hits?: { hits: Array<{ _source: ReadRow }> } }>(
          'POST',
          `/${index}/_search?size=10000`,
          '{"query":{"match_all":{}}}',
        );
        return (r.hits?.hits ?? []).map((h) => h._source);
      },
      drop: async () => {
        await es('DELETE', `/${id.toLowerCase()}_*`);
      },
    }),
    notApplicable: ELASTICSEARCH_NOT_APPLICABLE,
    badOptions: [
      { options: { hosts: [] }, option: 'hosts' },
      { options: { schema_save_mode: 'MAYBE' }, option: 'schema_save_mode' },
      { options: { primary_keys: ['nope'] }, option: 'primary_keys' },
    ],
  });

  sourceContract({
    name: 'Elasticsearch',
    factory: elasticsearchSourceFactory,
    target: async (id) => {
      const index = id.toLowerCase();
      const expected: ExpectedRow[] = [];
      let lines = '';
      for (let i = 1; i <= 300; i++) {
        lines += `{"index":{"_index":"${index}","_id":"${i}"}}\n${JSON.stringify({ id: i, name: `items-${i}` })}\n`;
        expected.push([index, i, `items-${i}`]);
      }
      await es('POST', '/_bulk?refresh=true', lines, true);
      return {
        options: { hosts: [node.url], index, scroll_size: 40, schema: { fields: { id: 'int', name: 'string' } } },
        expected,
      };
    },
    notApplicable: ELASTICSEARCH_SOURCE_NOT_APPLICABLE,
    badOptions: [{ options: { tls_truststore_path: '/x.jks' }, option: 'tls_truststore_path' }],
  });

  sourceContract({
    name: 'Elasticsearch (search_api_type = PIT)',
    factory: elasticsearchSourceFactory,
    target: async (id) => {
      const index = id.toLowerCase();
      const expected: ExpectedRow[] = [];
      let lines = '';
      for (let i = 1; i <= 250; i++) {
        lines += `{"index":{"_index":"${index}","_id":"${i}"}}\n${JSON.stringify({ id: i, name: `pit-${i}` })}\n`;
        expected.push(['default', i, `pit-${i}`]); // a `schema` without a table name names its table default
      }
      await es('POST', '/_bulk?refresh=true', lines, true);
      return {
        options: {
          hosts: [node.url],
          index,
          search_api_type: 'PIT',
          pit_batch_size: 40,
          pit_keep_alive: 120000,
          schema: { fields: { id: 'int', name: 'string' } },
        },
        expected,
      };
    },
    notApplicable: ELASTICSEARCH_PIT_SOURCE_NOT_APPLICABLE,
    badOptions: [
      { options: { search_api_type: 'CURSOR' }, option: 'search_api_type' },
      { options: { search_type: 'SQL' }, option: 'search_type' },
    ],
  });
});
