/**
 * The Kafka source's consumer lag per partition as a Prometheus metric (tideway_source_lag), in a
 * streaming job held to a slow read rate against the run's shared broker: each partition's lag
 * shows, below what was produced, and goes down as the job reads.
 */
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, waitForExit } from '../conformance/cli-process.js';
import { createTopic, produce, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The tideway_source_lag samples of a scrape, by split. */
function lags(scrape: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of scrape.matchAll(/^tideway_source_lag\{[^}]*split="([^"]+)"[^}]*\} (\d+)$/gm)) out.set(m[1], Number(m[2]));
  return out;
}

describe.skipIf(kafkaSkipped())('Kafka consumer lag metric', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('exposes each partition lag, which goes down as the job reads', async () => {
    const topic = uniqueTopic('lag');
    await createTopic(bootstrap, topic, 2);
    for (const partition of [0, 1])
      await produce(
        bootstrap,
        topic,
        Array.from({ length: 300 }, (_, i) => ({ value: JSON.stringify({ id: i }), partition })),
      );
    const conf = writeJob(
      dirs.make(),
      `env {
  parallelism = 1
  job.mode = "STREAMING"
  checkpoint.interval = 1000
  read_limit.rows_per_second = 40
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    start_mode = earliest
    kafka.config = { max.poll.records = 20 }
    schema = { fields { id = bigint } }
  }
}
sink {
  Console {
    plugin_input = "k"
  }
}
`,
    );
    const child = spawnCli(['run', '-c', conf, '--metrics-port', '0']);
    let stderr = '';
    child.stderr?.on('data', (s: Buffer) => (stderr += s.toString()));
    const exited = waitForExit(child);
    try {
      const url = await until('the metrics address', () => Promise.resolve(/metrics at (http:\/\/\S+\/metrics)/.exec(stderr)?.[1]));
      const scrape = async () => lags(await (await fetch(url)).text());
      const first = await until('a lag for both partitions', async () => {
        const l = await scrape();
        return l.has(`${topic}-0`) && l.has(`${topic}-1`) ? l : undefined;
      });
      for (const p of [0, 1]) {
        const n = first.get(`${topic}-${p}`) ?? -1;
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(300);
      }
      const total = (l: Map<string, number>) => (l.get(`${topic}-0`) ?? 0) + (l.get(`${topic}-1`) ?? 0);
      await until('the lag to go down', async () => {
        const l = await scrape();
        return total(l) < total(first) - 20 ? l : undefined;
      });
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  }, 200_000);
});
