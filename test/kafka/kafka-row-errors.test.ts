/**
 * The Kafka sink classifies its errors (issue 33, item 6), through `tideway run` against the
 * shared broker with a LocalFile dead-letter folder (env.sink_error_handler ROUTE): a message
 * larger than the broker takes and a row without a topic are routed with their error while the
 * other rows are written; a broker that is away is no row's error and fails the job.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { consumeAll, createTopic, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';
import { routed, sinkErrorRoute } from '../e2e/dead-letter-files.js';

const dirs = new TempDirs();
let bootstrap: string;

const env = (dead: string) => `env {
  job.mode = "BATCH"
  parallelism = 1
  job.retry.times = 0
  ${sinkErrorRoute(dead)}
}`;

describe.skipIf(kafkaSkipped())('the Kafka sink routes the rows the broker or its format refuses', () => {
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 240_000);

  afterAll(() => dirs.cleanup());

  it('a message larger than the broker takes: routed with the size, the rows around it written', async () => {
    const topic = uniqueTopic('row-errors-large');
    await createTopic(bootstrap, topic, 1);
    const dir = dirs.make();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'rows.txt'), `first\n${'x'.repeat(2_000_000)}\nlast\n`);
    const dead = join(dir, 'dead');
    const conf = writeJob(
      dir,
      `${env(dead)}
source {
  LocalFile {
    path = "${join(dir, 'in')}"
    file_format_type = "text"
  }
}
sink {
  Kafka {
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    format = "text"
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    expect((await consumeAll(bootstrap, topic, 2)).map((m) => m.value).sort()).toEqual(['first', 'last']);
    const bad = routed(dead);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ error_stage: 'SINK', plugin_name: 'Kafka' });
    expect(String(bad[0].error_message)).toMatch(
      new RegExp(`a message of 20000\\d\\d bytes for topic ${topic} partition 0 is larger than the broker`),
    );
    expect(res.stdout + res.stderr).toMatch(/Total Write Count\s*:\s*2\n/);
  }, 200_000);

  it('a row whose topic column is null: routed, the others written to their topics', async () => {
    const topic = uniqueTopic('row-errors-topic');
    await createTopic(bootstrap, topic, 1);
    const dir = dirs.make();
    const dead = join(dir, 'dead');
    const conf = writeJob(
      dir,
      `${env(dead)}
source {
  FakeSource {
    schema = { fields { t = "string", v = "string" } }
    rows = [
      { kind = INSERT, fields = ["${topic}", "a"] },
      { kind = INSERT, fields = [null, "b"] },
      { kind = INSERT, fields = ["${topic}", "c"] }
    ]
  }
}
sink {
  Kafka {
    bootstrap.servers = "${bootstrap}"
    topic = "\${t}"
    format = "json"
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const values = (await consumeAll(bootstrap, topic, 2)).map((m) => (JSON.parse(m.value) as { v: string }).v);
    expect(values.sort()).toEqual(['a', 'c']);
    const bad = routed(dead);
    expect(bad.map((r) => r.original_data)).toEqual(['[null,"b"]']);
    expect(String(bad[0].error_message)).toMatch(/has no topic: its column 't'/);
  }, 200_000);

  it('a broker that is away is no row error: the job fails and nothing is routed', async () => {
    const dir = dirs.make();
    const dead = join(dir, 'dead');
    const conf = writeJob(
      dir,
      `${env(dead)}
source {
  FakeSource {
    schema = { fields { v = "string" } }
    rows = [{ kind = INSERT, fields = ["a"] }]
  }
}
sink {
  Kafka {
    bootstrap.servers = "127.0.0.1:${await freePort()}"
    topic = "nowhere"
    kafka.config = { request.timeout.ms = 3000 }
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 150_000);
    expect(res.code, res.stderr).toBe(1);
    expect(routed(dead)).toEqual([]);
  }, 200_000);
});
