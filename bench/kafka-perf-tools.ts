/**
 * Kafka's own perf-test tools (kafka-producer-perf-test, kafka-consumer-perf-test), run from the
 * jars of scripts/ensure-kafka.sh: the baselines of the Kafka benches. Each returns the time the
 * tool reports itself, its JVM's start-up left out.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { kafkaLibsDir } from '@tideway/testing';

const run = promisify(execFile);

async function javaTool(main: string, args: string[]): Promise<string> {
  const { stdout } = await run('java', ['-Xmx512m', '-cp', `${kafkaLibsDir()}/*`, main, ...args], { maxBuffer: 1 << 24 });
  return stdout;
}

/** ms to produce `records` records of `size` bytes with the Java producer and `props` (key=value). */
export async function producerPerfMs(
  bootstrap: string,
  topic: string,
  records: number,
  size: number,
  props: readonly string[],
): Promise<number> {
  const out = await javaTool('org.apache.kafka.tools.ProducerPerformance', [
    '--topic',
    topic,
    '--num-records',
    String(records),
    '--record-size',
    String(size),
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${bootstrap}`,
    ...props,
  ]);
  // Its summary: `N records sent, R records/sec (M MB/sec), ...`.
  const m = /([\d.]+) records sent, ([\d.]+) records\/sec/.exec(out.trim().split('\n').at(-1) ?? '');
  if (!m) throw new Error(`no summary in kafka-producer-perf-test's output:\n${out}`);
  return (Number(m[1]) / Number(m[2])) * 1000;
}

/** ms the Java consumer took to fetch `records` records of `topic` from the start (its fetch.time.ms). */
export async function consumerPerfMs(bootstrap: string, topic: string, records: number): Promise<number> {
  return (await consumerPerf(bootstrap, topic, records)).fetchMs;
}

/**
 * The Java consumer fetching `records` records of `topic` from the start: its fetch.time.ms (its
 * JVM start, class loading and group join left out) and the MB it read (keys and values, as
 * its data.consumed.in.MB counts them).
 */
export async function consumerPerf(bootstrap: string, topic: string, records: number): Promise<{ fetchMs: number; mb: number }> {
  const out = await javaTool('org.apache.kafka.tools.ConsumerPerformance', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--messages',
    String(records),
    '--timeout',
    '60000',
  ]);
  const lines = out.trim().split('\n');
  const header = lines.findIndex((l) => l.startsWith('start.time'));
  const names = (lines[header] ?? '').split(',').map((c) => c.trim());
  const values = (lines[header + 1] ?? '').split(',').map((c) => c.trim());
  const fetchMs = Number(values[names.indexOf('fetch.time.ms')]);
  const mb = Number(values[names.indexOf('data.consumed.in.MB')]);
  if (header < 0 || !Number.isFinite(fetchMs) || !Number.isFinite(mb))
    throw new Error(`no summary in kafka-consumer-perf-test's output:\n${out}`);
  return { fetchMs, mb };
}
