/**
 * Bad Kafka jobs get one clear sentence: options refused by name at planning (exit 2, file:line),
 * an unreachable broker named after the configured timeout, a topic that does not exist.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { createTopic, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
/** The job fails at its first failure (a restart would meet the same broker). */
const NO_RETRY = '\n  job.retry.times = 0';
afterAll(() => dirs.cleanup());

function job(source: string, sink = 'Console { plugin_input = "k" }', retries = ''): string {
  return `env {
  job.mode = "BATCH"${retries}
}
source {
  Kafka {
    plugin_output = "k"
${source}
  }
}
sink {
  ${sink}
}
`;
}

describe('Kafka options refused at planning', () => {
  const cases: [string, string, string, RegExp][] = [
    [
      'an unknown kafka.config key',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"\n    kafka.config = {\n      linger.ms = 5\n    }',
      'Console { plugin_input = "k" }',
      /job\.conf:9.*kafka\.config 'linger\.ms' is not supported by Tideway's Kafka source/,
    ],
    [
      'a sink format given to the source',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"\n    format = compatible_debezium_json',
      'Console { plugin_input = "k" }',
      /job\.conf:9.*format 'compatible_debezium_json' is a Kafka sink format/,
    ],
    [
      'a Debezium table filter on another format',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"\n    debezium_record_table_filter = { table_name = "d" }',
      'Console { plugin_input = "k" }',
      /job\.conf:9.*'debezium_record_table_filter' is read only with format = debezium_json \(it is json\)/,
    ],
    [
      'start_mode.end_timestamp without start_mode = timestamp',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"\n    start_mode = earliest\n    start_mode.end_timestamp = 5',
      'Console { plugin_input = "k" }',
      /job\.conf:\d+.*'start_mode\.end_timestamp' is only read with start_mode = timestamp \(it is earliest\)/,
    ],
    [
      'a topic beside table_list',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"\n    table_list = [{ topic = "a" }]',
      'Console { plugin_input = "k" }',
      /job\.conf:8.*'topic' goes into each item of table_list, not beside it/,
    ],
    [
      'an unknown option in a table_list item',
      'bootstrap.servers = "127.0.0.1:9"\n    table_list = [{ topic = "a", consumer.group = "g" }]',
      'Console { plugin_input = "k" }',
      /job\.conf:8.*unknown option 'consumer\.group'/,
    ],
    [
      'two table_list items of one table',
      'bootstrap.servers = "127.0.0.1:9"\n    table_list = [{ topic = "a" }, { topic = "b", schema = { table = "a", fields { content = string } } }]',
      'Console { plugin_input = "k" }',
      /job\.conf:8.*two topic entries make the same table/,
    ],
    [
      'an option Kafka does not have',
      'bootstrap.servers = "127.0.0.1:9"\n    topics = "t"',
      'Console { plugin_input = "k" }',
      /job\.conf:8.*Kafka has no option 'topics'; did you mean 'topic'/,
    ],
    [
      'transaction_prefix without EXACTLY_ONCE',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"',
      'Kafka {\n    plugin_input = "k"\n    bootstrap.servers = "127.0.0.1:9"\n    topic = "o"\n    transaction_prefix = "x"\n  }',
      /job\.conf:16.*'transaction_prefix' is read only with semantics = EXACTLY_ONCE \(it is NON\)/,
    ],
    [
      'request.timeout.ms with EXACTLY_ONCE',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"',
      'Kafka {\n    plugin_input = "k"\n    bootstrap.servers = "127.0.0.1:9"\n    topic = "o"\n    semantics = EXACTLY_ONCE\n    kafka.config = { request.timeout.ms = 1000 }\n  }',
      /job\.conf:17.*'request\.timeout\.ms' cannot be set with semantics = EXACTLY_ONCE/,
    ],
    [
      'an unknown producer property',
      'bootstrap.servers = "127.0.0.1:9"\n    topic = "t"',
      'Kafka {\n    plugin_input = "k"\n    bootstrap.servers = "127.0.0.1:9"\n    topic = "o"\n    kafka.config = { linger.ms = 5 }\n  }',
      /job\.conf:16.*kafka\.config 'linger\.ms' is not supported by Tideway's Kafka sink/,
    ],
  ];
  it.each(cases)('%s: exit 2 naming file:line and the option', async (_what, source, sink, message) => {
    const conf = writeJob(dirs.make(), job(source, sink));
    const res = await runCli(['plan', '-c', conf, '--check'], 60_000);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(message);
  });
});

describe.skipIf(kafkaSkipped())('Kafka failures at run time', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('an unreachable broker fails the job in one sentence naming its address after the configured timeout', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const conf = writeJob(
      dirs.make(),
      job(`bootstrap.servers = "${address}"\n    topic = "t"\n    kafka.config = { request.timeout.ms = 3000 }`, undefined, NO_RETRY),
    );
    const started = Date.now();
    const res = await runCli(['run', '-c', conf], 90_000);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`Kafka at ${address} could not be reached within 3000 ms`);
    expect(Date.now() - started).toBeLessThan(80_000);
  }, 100_000);

  it('a topic that does not exist: the source says so, and the sink too when it may not create it', async () => {
    const missing = uniqueTopic('missing');
    const source = await runCli(
      ['run', '-c', writeJob(dirs.make(), job(`bootstrap.servers = "${bootstrap}"\n    topic = "${missing}"`, undefined, NO_RETRY))],
      90_000,
    );
    expect(source.code).toBe(1);
    expect(source.stderr).toContain(`topic ${missing} does not exist at ${bootstrap}`);
    const sinkJob = `env {
  job.mode = "BATCH"${NO_RETRY}
}
source {
  Sequence {
    plugin_output = "k"
    keys = 1
    rows.per.key = 1
  }
}
sink {
  Kafka {
    plugin_input = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${missing}"
    kafka.config = { allow.auto.create.topics = false }
  }
}
`;
    const sink = await runCli(['run', '-c', writeJob(dirs.make(), sinkJob)], 90_000);
    expect(sink.code).toBe(1);
    expect(sink.stderr).toContain(`topic ${missing} does not exist at ${bootstrap}`);
  }, 200_000);

  it('a message larger than the broker takes fails the job naming the topic, the partition and the size', async () => {
    const topic = uniqueTopic('too-large');
    await createTopic(bootstrap, topic, 1);
    const dir = dirs.make();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'big.txt'), `${'x'.repeat(2_000_000)}\n`);
    const conf = writeJob(
      dir,
      `env {
  job.mode = "BATCH"${NO_RETRY}
}
source {
  LocalFile {
    plugin_output = "k"
    path = "${join(dir, 'in')}"
    file_format_type = "text"
  }
}
sink {
  Kafka {
    plugin_input = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 90_000);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(`a message of 20000\\d\\d bytes for topic ${topic} partition 0 is larger than the broker at ${bootstrap} accepts`),
    );
  }, 100_000);
});
