/**
 * The Elasticsearch source and sink through the real CLI against an OpenSearch 2.19 node (Maven
 * Central's jars in its own JVM) behind an HTTPS basic-auth front, as SeaTunnel's configs expect
 * of their server: SeaTunnel's own e2e configs (connector-elasticsearch-e2e, unchanged but for
 * the container's address) with the data ElasticsearchIT loads and the documents it expects; then
 * upserts and deletes by primary key, an index per field value, and the planning errors; CDC jobs
 * whose older changes arrive after newer ones (elasticsearch-cdc-versions.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSearchSkipped, sharedConformanceDir, sharedOpenSearch, type OpenSearchNode } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { describeCdcVersions } from './elasticsearch-cdc-versions.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-es-'));
const shared = sharedConformanceDir();
const USER = 'elastic';
const PASSWORD = 'elasticsearch';
let node: OpenSearchNode;
let jobNo = 0;

async function es<T = unknown>(method: string, path: string, body?: unknown, ndjson = false): Promise<T> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

async function docs(index: string): Promise<Record<string, unknown>[]> {
  await es('POST', `/${index}/_refresh`);
  const r = await es<{ hits: { hits: Array<{ _id: string; _source: Record<string, unknown> }> } }>('POST', `/${index}/_search`, {
    size: 1000,
    sort: ['_doc'],
  });
  return r.hits.hits.map((h) => h._source);
}

function writeJob(text: string, name = `job-${++jobNo}.conf`): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function runSeaTunnelConfig(name: string) {
  const text = readFileSync(join(shared!, 'elasticsearch', 'elasticsearch', name), 'utf8').replaceAll(
    'https://elasticsearch:9200',
    node.secureUrl!,
  );
  return runCli(['run', '-c', writeJob(text, name)], 150_000);
}

/** ElasticsearchIT's generateTestDataSet1: 100 documents, c_int 0..99 (dates fixed here). */
function itDocs(): Record<string, unknown>[] {
  return Array.from({ length: 100 }, (_, i) => ({
    c_map: { key: i },
    c_array: [1, 2, 3],
    c_string: 'string',
    c_boolean: false,
    c_tinyint: 1,
    c_smallint: 1,
    c_bigint: 1,
    c_float: 1.1,
    c_double: 1.1,
    c_decimal: 1.1,
    c_bytes: 'dGVzdA==',
    c_int: i,
    c_date: '2026-12-05',
    c_timestamp: 1796500000000 + i,
    c_null: null,
  }));
}

const secureBlock = () => `hosts = ["${node.secureUrl}"]
    username = "${USER}"
    password = "${PASSWORD}"
    tls_verify_certificate = false
    tls_verify_hostname = false`;

describe.skipIf(openSearchSkipped())('Elasticsearch (against OpenSearch)', () => {
  beforeAll(async () => {
    node = await sharedOpenSearch({ secure: { user: USER, password: PASSWORD } });
    const lines = itDocs()
      .map((d) => `{"index":{"_index":"st_index"}}\n${JSON.stringify(d)}\n`)
      .join('');
    await es('POST', '/_bulk?refresh=true', lines, true);
  }, 240_000);

  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs SeaTunnel's elasticsearch_source_and_sink.conf: the query's 11 documents land in st_index2 with their values", async () => {
    const res = await runSeaTunnelConfig('elasticsearch_source_and_sink.conf');
    expect(res.code, res.stderr).toBe(0);
    const out = (await docs('st_index2')).sort((a, b) => Number(a.c_int) - Number(b.c_int));
    expect(out.map((d) => d.c_int)).toEqual(Array.from({ length: 11 }, (_, i) => 10 + i));
    const first = out[0];
    expect(first).toMatchObject({
      c_map: { key: 10 },
      c_array: [1, 2, 3],
      c_string: 'string',
      c_boolean: false,
      c_bigint: 1,
      c_double: 1.1,
      c_null: null,
    });
    expect(Number(first.c_decimal)).toBe(1.1);
    expect(String(first.c_timestamp)).toMatch(/^2026-12-0\dT/);
    expect(String(first.c_date)).toBe('2026-12-05');
  }, 180_000);

  it("runs SeaTunnel's elasticsearch_source_without_schema_and_sink.conf: the table comes from the index mapping", async () => {
    const res = await runSeaTunnelConfig('elasticsearch_source_without_schema_and_sink.conf');
    expect(res.code, res.stderr.slice(-1500)).toBe(0);
    expect(res.stderr).toMatch(/es\.mapping\.date\.rich.*Elasticsearch-Hadoop/);
    const out = (await docs('st_index4')).sort((a, b) => Number(a.c_int) - Number(b.c_int));
    expect(out.map((d) => d.c_int)).toEqual(Array.from({ length: 11 }, (_, i) => 10 + i));
    expect(out[0].c_array).toEqual([1, 2, 3]);
    expect(out[0].c_string).toBe('string');
  }, 180_000);

  it("runs SeaTunnel's fakesource_to_elasticsearch_multi_sink.conf: one index per table, with ElasticsearchIT's documents", async () => {
    const res = await runSeaTunnelConfig('fakesource_to_elasticsearch_multi_sink.conf');
    expect(res.code, res.stderr).toBe(0);
    const base = { c_smallint: 2, c_float: 4.3, c_double: 5.3, id: 1, c_int: 3, c_bigint: 4, c_bool: true, c_tinyint: 1 };
    const norm = (d: Record<string, unknown>) => ({ ...d, c_decimal: Number(d.c_decimal) });
    expect((await docs('st_index5')).map(norm)).toEqual([{ ...base, c_decimal: 6.3, c_string: 'NEW' }]);
    expect((await docs('st_index6')).map(norm)).toEqual([{ ...base, c_decimal: 6.3 }]);
  }, 180_000);

  it('search_api_type = PIT pages st_index (100 documents) by point in time, 30 a page, with the query, and closes its point in time', async () => {
    const conf = writeJob(`env { job.mode = "BATCH" }
source {
  Elasticsearch {
    ${secureBlock()}
    index = "st_index"
    source = ["c_int", "c_string"]
    query = {"range": {"c_int": {"gte": 5}}}
    search_api_type = PIT
    pit_batch_size = 30
    pit_keep_alive = 30000
  }
}
sink {
  Elasticsearch {
    ${secureBlock()}
    index = "st_index_pit"
    primary_keys = ["c_int"]
    max_batch_size = 40
  }
}
`);
    const res = await runCli(['run', '-c', conf], 150_000);
    expect(res.code, res.stderr.slice(-1500)).toBe(0);
    const out = (await docs('st_index_pit')).map((d) => d.c_int as number).sort((a, b) => a - b);
    expect(out).toEqual(Array.from({ length: 95 }, (_, i) => 5 + i));
    const pits = await es<{ pits: unknown[] }>('GET', '/_search/point_in_time/_all');
    expect(pits.pits).toEqual([]);
  }, 180_000);

  it('upserts and deletes by primary key: a changelog ends as its final state, and a replay changes nothing', async () => {
    const conf = writeJob(`env { job.mode = "BATCH" }
source {
  FakeSource {
    schema = { fields { id = int, name = string, team = string } }
    rows = [
      { kind = INSERT, fields = [1, "a", "red"] },
      { kind = INSERT, fields = [2, "b", "blue"] },
      { kind = UPDATE_BEFORE, fields = [1, "a", "red"] },
      { kind = UPDATE_AFTER, fields = [1, "a2", "red"] },
      { kind = INSERT, fields = [3, "c", "blue"] },
      { kind = DELETE, fields = [2, "b", "blue"] }
    ]
  }
}
sink {
  Elasticsearch {
    ${secureBlock()}
    index = "people_\${team}"
    primary_keys = ["id", "team"]
    key_delimiter = ":"
    max_batch_size = 2
  }
}
`);
    for (let run = 0; run < 2; run++) {
      const res = await runCli(['run', '-c', conf]);
      expect(res.code, res.stderr).toBe(0);
    }
    expect(await docs('people_red')).toEqual([{ id: 1, name: 'a2', team: 'red' }]);
    expect(await docs('people_blue')).toEqual([{ id: 3, name: 'c', team: 'blue' }]);
    const hit = await es<{ _id: string }>('GET', '/people_red/_doc/1:red');
    expect(hit._id).toBe('1:red');
  }, 120_000);

  it('examples/localfile_to_elasticsearch.conf indexes CSV rows by id; a second run over a changed file updates them', async () => {
    const input = join(dir, 'customers-csv');
    mkdirSync(input);
    const csv = (countryOf: (i: number) => string) =>
      [
        'id,name,country,signed_up',
        ...Array.from({ length: 40 }, (_, i) => `${i + 1},customer ${i + 1},${countryOf(i + 1)},2026-0${(i % 9) + 1}-15`),
      ].join('\n') + '\n';
    const args = [
      'run',
      '-c',
      join(repoRoot, 'examples', 'localfile_to_elasticsearch.conf'),
      ...['-i', `input_dir=${input}`, '-i', `es_url=${node.secureUrl}`, '-i', `es_user=${USER}`, '-i', `es_password=${PASSWORD}`],
    ];
    writeFileSync(
      join(input, 'customers.csv'),
      csv(() => 'NL'),
    );
    expect((await runCli(args)).code).toBe(0);
    writeFileSync(
      join(input, 'customers.csv'),
      csv((i) => (i % 2 === 0 ? 'DE' : 'NL')),
    );
    const res = await runCli(args);
    expect(res.code, res.stderr).toBe(0);
    const indexed = await docs('customers');
    expect(indexed).toHaveLength(40);
    expect(indexed.filter((d) => d.country === 'DE')).toHaveLength(20);
    const hit = await es<{ _source: Record<string, unknown> }>('GET', '/customers/_doc/7');
    expect(hit._source).toMatchObject({ id: 7, name: 'customer 7', country: 'NL', signed_up: '2026-07-15' });
  }, 120_000);

  it('fails naming the index when an item is refused (a value the mapping cannot take)', async () => {
    await es('PUT', '/strict_ints', { mappings: { properties: { n: { type: 'integer' } } } });
    const conf = writeJob(`env {
  job.mode = "BATCH"
  job.retry.times = 0
}
source { FakeSource { schema = { fields { n = string } }, rows = [{ kind = INSERT, fields = ["not a number"] }] } }
sink {
  Elasticsearch {
    ${secureBlock()}
    index = "strict_ints"
  }
}
`);
    const res = await runCli(['run', '-c', conf]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Elasticsearch refused \{"index":\{"_index":"strict_ints"\}\}: 400 mapper_parsing_exception/);
  }, 120_000);

  it('a wrong password fails the job in one sentence naming the cluster and the 401', async () => {
    const conf = writeJob(`env {
  job.mode = "BATCH"
  job.retry.times = 0
}
source {
  Elasticsearch {
    hosts = ["${node.secureUrl}"]
    username = "${USER}"
    password = "wrong"
    tls_verify_certificate = false
    index = "st_index"
    schema = { fields { c_int = int } }
  }
}
sink { Console {} }
`);
    const res = await runCli(['run', '-c', conf]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`at ${node.secureUrl} answered 401`);
  }, 120_000);

  it.each([
    ['a Java trust store', 'tls_truststore_path = "/x.jks"', /'tls_truststore_path' is not supported/],
    [
      'array_column with a schema',
      'schema = { fields { a = int } }\n    array_column = { a = "array<int>" }',
      /'array_column' applies without 'schema' only/,
    ],
  ])(
    'refuses %s at planning (exit 2)',
    async (_what, extra, message) => {
      const conf = writeJob(`env { job.mode = "BATCH" }
source {
  Elasticsearch {
    hosts = ["http://127.0.0.1:1"]
    index = "x"
    ${extra}
  }
}
sink { Console {} }
`);
      const res = await runCli(['run', '-c', conf]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(message);
    },
    60_000,
  );

  describeCdcVersions(() => node);
});
