/**
 * The Http source and sink through the real CLI against MockServer (Maven Central, its own JVM)
 * answering as SeaTunnel's http/mockserver-config.json says: SeaTunnel's own Http e2e configs
 * (connector-http-e2e, unchanged but for the mock's address) with the outcome HttpIT asserts
 * (their Assert rules, the requests MockServer recorded), then what they leave out: retries of
 * failing answers, a sink that fails on an answer that stays non-2xx (SeaTunnel's logs and drops
 * the row), a streaming poll, and the planning errors (exit 2).
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, mockServerSkipped, sharedConformanceDir, startMockServer, type MockServer } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-http-'));
const shared = sharedConformanceDir();
let mock: MockServer;
let jobNo = 0;

function writeJob(text: string, name = `job-${++jobNo}.conf`): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function runSeaTunnelConfig(name: string) {
  const text = readFileSync(join(shared!, 'http', name), 'utf8').replaceAll('http://mockserver:1080', mock.url);
  return runCli(['run', '-c', writeJob(text, name)], 120_000);
}

/** A local server answering each request with the next of `answers` (status, body), recording the bodies. */
async function scriptedServer(answers: Array<[number, string]>): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  let i = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      const [status, body] = answers[Math.min(i++, answers.length - 1)];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, bodies, server };
}

describe.skipIf(mockServerSkipped())('Http', () => {
  beforeAll(async () => {
    mock = await startMockServer(join(shared!, 'http', 'mockserver-config.json'));
  }, 180_000);

  afterAll(async () => {
    await mock?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    'http_json_to_assert.conf',
    'http_contentjson_to_assert.conf',
    'http_jsonpath_to_assert.conf',
    'http_multilinejson_to_assert.conf',
    'http_formrequestbody_to_assert.conf',
    'http_jsonrequestbody_to_assert.conf',
    'http_page_increase_page_num.conf',
    'http_page_increase_no_page_num.conf',
  ])(
    "runs SeaTunnel's %s as HttpIT does (its Assert rules hold, exit 0)",
    async (name) => {
      const res = await runSeaTunnelConfig(name);
      expect(res.code, res.stderr).toBe(0);
    },
    120_000,
  );

  it("runs SeaTunnel's httpnoschema_to_http.conf: the answer's text goes on as {content}, which the mock matches strictly", async () => {
    const res = await runSeaTunnelConfig('httpnoschema_to_http.conf');
    // The sink fails on any answer but 2xx, and MockServer answers 404 to a body it does not match.
    expect(res.code, res.stderr).toBe(0);
    expect(await mock.recorded('/example/httpContentSink', 'POST')).toHaveLength(1);
  }, 120_000);

  it("runs SeaTunnel's fake_to_multitable.conf: one POST per row of each table, with HttpIT's bodies", async () => {
    const res = await runSeaTunnelConfig('fake_to_multitable.conf');
    expect(res.code, res.stderr).toBe(0);
    const bodies = (await mock.recorded('/example/httpMultiTableContentSink', 'POST'))
      .map((r) => (r.body as { json: Record<string, unknown> }).json)
      .sort((a, b) => Number(a.id) - Number(b.id));
    const row = (id: number) => ({
      id,
      val_bool: true,
      val_int8: 1,
      val_int16: 2,
      val_int32: 3,
      val_int64: 4,
      val_float: 4.3,
      val_double: 5.3,
      val_decimal: 6.3,
      val_string: 'NEW',
      val_unixtime_micros: '2020-02-02T02:02:02',
    });
    expect(bodies).toEqual([row(1), row(2)]);
  }, 120_000);

  it('retries 5xx answers with backoff, then reads the rows', async () => {
    const { url, bodies, server } = await scriptedServer([
      [503, 'busy'],
      [500, 'oops'],
      [200, '[{"id": 1}, {"id": 2}]'],
    ]);
    try {
      const out = join(dir, 'retried');
      const res = await runCli([
        'run',
        '-c',
        writeJob(`env { job.mode = "BATCH" }
source {
  Http {
    url = "${url}/rows"
    format = "json"
    retry = 3
    retry_backoff_multiplier_ms = 50
    schema = { fields { id = bigint } }
  }
}
sink { LocalFile { path = "${out}", file_format_type = "json" } }
`),
      ]);
      expect(res.code, res.stderr).toBe(0);
      expect(bodies).toHaveLength(3);
    } finally {
      server.close();
    }
  }, 60_000);

  it('fails the job naming the URL and status when the sink gets a non-2xx answer after its retries (SeaTunnel drops the row)', async () => {
    const { url, bodies, server } = await scriptedServer([[400, '{"error":"no such field"}']]);
    try {
      const res = await runCli([
        'run',
        '-c',
        writeJob(`env {
  job.mode = "BATCH"
  job.retry.times = 0
}
source { FakeSource { row.num = 3, schema = { fields { id = int } } } }
sink { Http { url = "${url}/in?team=a", retry = 1, retry_backoff_multiplier_ms = 10 } }
`),
      ]);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`Http POST ${url}/in answered 400: {"error":"no such field"}`);
      expect(bodies).toHaveLength(1); // a 4xx is not retried
    } finally {
      server.close();
    }
  }, 60_000);

  it('polls again every poll_interval_millis in a streaming job', async () => {
    const { url, bodies, server } = await scriptedServer([[200, '{"id": 7}']]);
    const job = spawnCli([
      'run',
      '-c',
      writeJob(`env {
  job.mode = "STREAMING"
  checkpoint.interval = 1000
}
source {
  Http {
    url = "${url}/poll"
    format = "json"
    poll_interval_millis = 300
    schema = { fields { id = int } }
  }
}
sink { Console {} }
`),
    ]);
    const exit = waitForExit(job);
    try {
      const end = Date.now() + 60_000;
      while (bodies.length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    } finally {
      job.kill('SIGINT');
      server.close();
    }
    await exit;
    expect(bodies.length).toBeGreaterThanOrEqual(4);
  }, 90_000);

  it.each([
    ['a url that is not http', 'url = "ftp://x/y"', /'url' has scheme 'ftp'/],
    [
      'a schema with the text format',
      'url = "http://127.0.0.1:1/"\n    schema = { fields { id = int } }',
      /'schema' needs format = "json"/,
    ],
    ['json without a schema', 'url = "http://127.0.0.1:1/"\n    format = "json"', /format = "json" needs option 'schema'/],
    ['a body with GET', 'url = "http://127.0.0.1:1/"\n    body = "{}"', /'body' is sent with method = POST only/],
    ['an unknown pageing key', 'url = "http://127.0.0.1:1/"\n    pageing = { pages = 2 }', /'pageing': unknown key 'pages'/],
    [
      'poll_interval_millis in a batch job',
      'url = "http://127.0.0.1:1/"\n    poll_interval_millis = 100',
      /'poll_interval_millis' applies to STREAMING jobs only/,
    ],
    [
      'a json_field without a path for a column',
      'url = "http://127.0.0.1:1/"\n    format = "json"\n    json_field = { a = "$.a" }\n    schema = { fields { a = int, b = int } }',
      /'json_field' has no path for the schema's column\(s\) b/,
    ],
  ])(
    'refuses %s at planning (exit 2), naming the option',
    async (_what, options, message) => {
      const res = await runCli([
        'run',
        '-c',
        writeJob(`env { job.mode = "BATCH" }
source {
  Http {
    ${options}
  }
}
sink { Console {} }
`),
      ]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(message);
    },
    60_000,
  );
});
