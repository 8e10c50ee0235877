/**
 * The Kafka source and sink inside a job against Kafka's own perf-test tools on the same private
 * KRaft broker (issue 34's targets): BENCH_KAFKA_RECORDS records (default 1,000,000) of ~200 bytes.
 * - sink: Sequence -> Kafka (AT_LEAST_ONCE: acks=all, the idempotent producer, no compression)
 *   against kafka-producer-perf-test at the same settings;
 * - source: Kafka (json, 3 partitions, parallelism 1) -> Console without printing, reading the
 *   records the sink wrote, against kafka-consumer-perf-test on the same topic;
 * - what EXACTLY_ONCE costs: the sink job again with checkpoint.interval = 10 s, AT_LEAST_ONCE
 *   and EXACTLY_ONCE, each into its own topic (issue 34: at most 15% slower).
 * Each job runs in its own process (bench/job-case.ts) from the build (dist), as users run it: the
 * bench ends with exit code 2 when the build is older than the sources (`pnpm bench:kafka` builds
 * first). A job's time is its own run time, set-up included. The source's reading phase, the
 * like-for-like figure against the Java consumer's fetch.time.ms (which leaves out its JVM start,
 * class loading and group join), is the source job's run time less that of the same job on a
 * topic of one record (thread start, module loading, the enumerator's metadata and end offsets,
 * the reader's connection, the finish): what reading the records adds. The Java producer writes
 * 100k records first, untimed, to warm the broker up. Each job and tool runs BENCH_KAFKA_REPEAT
 * times (default 3), alternating which goes first; medians reported.
 * Usage: `pnpm bench:kafka`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Admin, Producer } from '@platformatic/kafka';
import { startKafka } from '@tideway/testing';
import { consumerPerf, producerPerfMs } from './kafka-perf-tools.js';
import { machineLine, requireCurrentBuild } from './machine.js';

const run = promisify(execFile);
const RECORDS = Number(process.env.BENCH_KAFKA_RECORDS ?? 1_000_000);
const KEYS = 8;
/** Runs of each job and tool (BENCH_KAFKA_REPEAT, default 3): the machine is shared, medians are reported. */
const REPEAT = Number(process.env.BENCH_KAFKA_REPEAT ?? 3);
const PARTITIONS = 3;

interface JobResult {
  rowsRead: number;
  rowsWritten: number;
  runMs: number;
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The run whose time is the median (its row counts with it). */
function medianJob(runs: readonly JobResult[]): JobResult {
  const m = median(runs.map((r) => r.runMs));
  return runs.find((r) => r.runMs === m) ?? { rowsRead: 0, rowsWritten: 0, runMs: Number.NaN };
}

/** Runs one job in its own process, Tideway from its build (only job-case.ts itself goes through tsx). */
async function job(conf: string): Promise<JobResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'job-case.ts'), conf], {
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as JobResult;
}

async function main(): Promise<void> {
  requireCurrentBuild('bench:kafka');
  const cluster = await startKafka({ heapMb: 1024 });
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-kafka-'));
  const bootstrap = cluster.bootstrap;
  try {
    const admin = new Admin({ clientId: 'bench', bootstrapBrokers: [bootstrap] });
    const runs = [...Array(REPEAT).keys()];
    await admin.createTopics({
      topics: [
        'bench-warmup',
        'bench-one',
        ...runs.flatMap((r) => [`bench-java-${r}`, `bench-tideway-${r}`, `bench-alo-${r}`, `bench-eo-${r}`]),
      ],
      partitions: PARTITIONS,
      replicas: 1,
    });
    await admin.close();
    // Sequence rows as json: {"key":k,"seq":n,"payload":"k<k>-s<n>"} plus padding to ~200 bytes.
    const sinkConf = (name: string, topic: string, semantics: string, checkpointMs?: number): string => {
      const file = join(dir, name);
      writeFileSync(
        file,
        `env {
  job.mode = "BATCH"
  parallelism = 1${checkpointMs === undefined ? '' : `\n  checkpoint.interval = ${checkpointMs}`}
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
    topic = "${topic}"
    semantics = ${semantics}
  }
}
`,
      );
      return file;
    };
    // A fresh broker is slower at first (its JIT, its transaction coordinator still loading, which
    // made the first idempotent producer retry): whichever ran first paid for it. 100k records
    // through the Java producer first put the jobs and the tools on the same warmed broker.
    await producerPerfMs(bootstrap, 'bench-warmup', 100_000, 200, ['acks=all', 'enable.idempotence=true']);
    // Each pair runs REPEAT times, the tool first in even runs and the job first in odd ones.
    const javaProduce: number[] = [];
    const sinks: JobResult[] = [];
    for (const r of runs) {
      const steps = [
        async () =>
          javaProduce.push(
            await producerPerfMs(bootstrap, `bench-java-${r}`, RECORDS, 200, [
              'acks=all',
              'enable.idempotence=true',
              'compression.type=none',
            ]),
          ),
        async () => sinks.push(await job(sinkConf(`sink-${r}.conf`, `bench-tideway-${r}`, 'AT_LEAST_ONCE'))),
      ];
      for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
    }

    // The set-up job's topic: one record of the same json shape as the sink job's.
    const producer = new Producer({ clientId: 'bench', bootstrapBrokers: [bootstrap] });
    await producer.send({
      messages: [
        {
          topic: 'bench-one',
          partition: 0,
          value: Buffer.from(JSON.stringify({ key: 0, seq: 0, payload: 'k0-s0', pad: 'x'.repeat(140) })),
        },
      ],
    });
    await producer.close();
    const sourceConf = (name: string, topic: string): string => {
      const file = join(dir, name);
      writeFileSync(
        file,
        `env {
  job.mode = "BATCH"
  parallelism = 1
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
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
      return file;
    };
    const fullConf = sourceConf('source.conf', 'bench-tideway-0');
    const oneConf = sourceConf('source-one.conf', 'bench-one');
    const javaConsume: { fetchMs: number; mb: number }[] = [];
    const sources: JobResult[] = [];
    const setups: JobResult[] = [];
    for (const r of runs) {
      const steps = [
        async () => javaConsume.push(await consumerPerf(bootstrap, 'bench-tideway-0', RECORDS)),
        async () => sources.push(await job(fullConf)),
        async () => setups.push(await job(oneConf)),
      ];
      for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
    }
    const alos: JobResult[] = [];
    const eos: JobResult[] = [];
    for (const r of runs) {
      const steps = [
        async () => alos.push(await job(sinkConf(`alo-${r}.conf`, `bench-alo-${r}`, 'AT_LEAST_ONCE', 10_000))),
        async () => eos.push(await job(sinkConf(`eo-${r}.conf`, `bench-eo-${r}`, 'EXACTLY_ONCE', 10_000))),
      ];
      for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
    }
    const javaProduceMs = median(javaProduce);
    const javaConsumeMs = median(javaConsume.map((j) => j.fetchMs));
    const mb = javaConsume[0]?.mb ?? Number.NaN;
    // Each round's reading phase: its source job less its one-record job.
    const readings = sources.map((s, i) => s.runMs - (setups[i]?.runMs ?? Number.NaN));
    const readingMs = median(readings);
    const setupMs = median(setups.map((s) => s.runMs));
    const sink = medianJob(sinks);
    const source = medianJob(sources);
    const alo = medianJob(alos);
    const eo = medianJob(eos);

    console.log(`${machineLine({ load: true })}\n`);
    console.log(
      `${RECORDS.toLocaleString('en-US')} records of ~200 bytes, ${PARTITIONS} partitions, one broker, acks=all, idempotent, no compression; median of ${REPEAT} runs each.\n`,
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
    row('Kafka source -> Console, no print (job run time, set-up included)', source.rowsRead, source.runMs, javaConsumeMs);
    row('Kafka source: reading phase (job run time less the one-record job)', source.rowsRead, readingMs, javaConsumeMs);
    console.log(
      `\nSource MB/s (the tool's ${mb.toFixed(1)} MB, keys and values): tool ${(mb / (javaConsumeMs / 1000)).toFixed(1)}; job run time ${(mb / (source.runMs / 1000)).toFixed(1)}; reading phase ${(mb / (readingMs / 1000)).toFixed(1)}. The one-record job (set-up): median ${Math.round(setupMs)} ms, ${setups.map((s) => s.rowsRead).join(', ')} rows.`,
    );
    console.log('\nThe sink job at checkpoint.interval = 10 s (issue 34: EXACTLY_ONCE at most 15% slower than AT_LEAST_ONCE).\n');
    console.log('| semantics | records | ms | records/s | against AT_LEAST_ONCE |');
    console.log('|---|---|---|---|---|');
    row('AT_LEAST_ONCE', alo.rowsWritten, alo.runMs, alo.runMs);
    row('EXACTLY_ONCE', eo.rowsWritten, eo.runMs, alo.runMs);
    const ms = (xs: readonly (number | JobResult)[]) => xs.map((x) => Math.round(typeof x === 'number' ? x : x.runMs)).join(', ');
    console.log(
      `\nEach run (ms): producer tool ${ms(javaProduce)}; sink job ${ms(sinks)}; consumer tool ${ms(javaConsume.map((j) => j.fetchMs))}; source job ${ms(sources)}; one-record job ${ms(setups)}; reading phase ${ms(readings)}; AT_LEAST_ONCE ${ms(alos)}; EXACTLY_ONCE ${ms(eos)}.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await cluster.stop();
  }
}

await main();
