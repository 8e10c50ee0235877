/**
 * The Kafka source and sink inside a job against Kafka's own perf-test tools on the same private
 * KRaft broker (issue 34's targets): BENCH_KAFKA_RECORDS records (default 1,000,000) of ~200 bytes.
 * - sink: Sequence -> Kafka (AT_LEAST_ONCE: acks=all, the idempotent producer, no compression)
 *   against kafka-producer-perf-test at the same settings;
 * - source: Kafka (json, 3 partitions, parallelism 1) -> Console without printing, reading the
 *   records the sink wrote, against kafka-consumer-perf-test on the same topic.
 * Each job runs in its own process (bench/job-case.ts); its time is the job's own run time.
 * Usage: `pnpm bench:kafka`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Admin } from '@platformatic/kafka';
import { startKafka } from '@tideway/testing';
import { consumerPerfMs, producerPerfMs } from './kafka-perf-tools.js';
import { machineLine } from './machine.js';

const run = promisify(execFile);
const RECORDS = Number(process.env.BENCH_KAFKA_RECORDS ?? 1_000_000);
const KEYS = 8;
const PARTITIONS = 3;

async function job(conf: string): Promise<{ rowsRead: number; rowsWritten: number; runMs: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', join(import.meta.dirname, 'job-case.ts'), conf],
    {
      maxBuffer: 1 << 24,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { rowsRead: number; rowsWritten: number; runMs: number };
}

async function main(): Promise<void> {
  const cluster = await startKafka({ heapMb: 1024 });
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-kafka-'));
  const bootstrap = cluster.bootstrap;
  try {
    const admin = new Admin({ clientId: 'bench', bootstrapBrokers: [bootstrap] });
    await admin.createTopics({ topics: ['bench-java', 'bench-tideway'], partitions: PARTITIONS, replicas: 1 });
    await admin.close();
    // Sequence rows as json: {"key":k,"seq":n,"payload":"k<k>-s<n>"} plus padding to ~200 bytes.
    const sinkConf = join(dir, 'sink.conf');
    writeFileSync(
      sinkConf,
      `env {
  job.mode = "BATCH"
  parallelism = 1
}
source {
  Sequence {
    plugin_output = "seq"
    keys = ${KEYS}
    rows.per.key = ${RECORDS / KEYS}
  }
}
transform {
  Sql {
    plugin_input = "seq"
    plugin_output = "rows"
    query = "select key, seq, payload, '${'x'.repeat(140)}' as pad from seq"
  }
}
sink {
  Kafka {
    plugin_input = "rows"
    bootstrap.servers = "${bootstrap}"
    topic = "bench-tideway"
    semantics = AT_LEAST_ONCE
  }
}
`,
    );
    const sink = await job(sinkConf);
    const javaProduceMs = await producerPerfMs(bootstrap, 'bench-java', RECORDS, 200, [
      'acks=all',
      'enable.idempotence=true',
      'compression.type=none',
    ]);

    const sourceConf = join(dir, 'source.conf');
    writeFileSync(
      sourceConf,
      `env {
  job.mode = "BATCH"
  parallelism = 1
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "bench-tideway"
    start_mode = earliest
    schema = { fields { key = int, seq = bigint, payload = string, pad = string } }
  }
}
sink {
  Console {
    plugin_input = "k"
    log.print.data = false
  }
}
`,
    );
    const source = await job(sourceConf);
    const javaConsumeMs = await consumerPerfMs(bootstrap, 'bench-tideway', RECORDS);

    console.log(`${machineLine({ load: true })}\n`);
    console.log(
      `${RECORDS.toLocaleString('en-US')} records of ~200 bytes, ${PARTITIONS} partitions, one broker, acks=all, idempotent, no compression.\n`,
    );
    console.log('| run | records | ms | records/s | against Java |');
    console.log('|---|---|---|---|---|');
    const row = (what: string, n: number, ms: number, java: number) =>
      console.log(
        `| ${what} | ${n.toLocaleString('en-US')} | ${Math.round(ms)} | ${Math.round(n / (ms / 1000)).toLocaleString('en-US')} | ${(java / ms).toFixed(2)} |`,
      );
    row('kafka-producer-perf-test (Java)', RECORDS, javaProduceMs, javaProduceMs);
    row('Sequence -> Sql -> Kafka sink (job run time)', sink.rowsWritten, sink.runMs, javaProduceMs);
    row('kafka-consumer-perf-test (Java), same topic', RECORDS, javaConsumeMs, javaConsumeMs);
    row('Kafka source -> Console, no print (job run time)', source.rowsRead, source.runMs, javaConsumeMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await cluster.stop();
  }
}

await main();
