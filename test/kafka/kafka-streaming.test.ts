/**
 * The Kafka source in a streaming job against a real broker (the run's shared one): a partition
 * added while the job runs is read within partition-discovery.interval-millis, and a job stopped
 * with a savepoint resumes at exactly its offsets (the transactional LocalFile sink shows every
 * record once).
 */
import { join } from 'node:path';
import { freePort, kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { addPartitions, createTopic, outputLines, produce, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

async function until(what: string, fn: () => boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const rows = (from: number, n: number, partition: number) =>
  Array.from({ length: n }, (_, i) => ({ value: JSON.stringify({ id: from + i }), partition }));

describe.skipIf(kafkaSkipped())('Kafka source, streaming', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('picks up a partition added while running and resumes exactly after a savepoint', async () => {
    const topic = uniqueTopic('stream');
    await createTopic(bootstrap, topic, 1);
    await produce(bootstrap, topic, rows(0, 100, 0));
    const dir = dirs.make();
    const out = join(dir, 'out');
    const conf = writeJob(
      dir,
      `env {
  parallelism = 2
  job.mode = "STREAMING"
  checkpoint.interval = 1000
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    start_mode = earliest
    partition-discovery.interval-millis = 1000
    schema = { fields { id = bigint } }
  }
}
sink {
  LocalFile {
    plugin_input = "k"
    path = "${out}"
    file_format_type = "json"
    is_enable_transaction = true
  }
}
`,
    );
    const ids = () => outputLines(out).map((l) => (JSON.parse(l) as { id: number }).id);
    const jobId = String(Date.now());
    const port = await freePort();
    const first = spawnCli(['run', '-c', conf, '--set-job-id', jobId, '--coordinator-port', String(port)]);
    const firstExit = waitForExit(first);
    try {
      await until('the first 100 records', () => ids().length >= 100);
      await addPartitions(bootstrap, topic, 2);
      await produce(bootstrap, topic, rows(100, 50, 1));
      await until('the records of the new partition', () => ids().length >= 150);
      const sp = await runCli(['savepoint', jobId, '--address', `127.0.0.1:${port}`]);
      expect(sp.code, sp.stderr).toBe(0);
    } catch (err) {
      first.kill('SIGINT');
      throw err;
    }
    const firstRes = await firstExit;
    expect(firstRes.code, firstRes.stderr).toBe(0);
    expect(ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i));

    await produce(bootstrap, topic, rows(150, 50, 0));
    await produce(bootstrap, topic, rows(200, 50, 1));
    const second = spawnCli(['run', '-r', jobId, '-c', conf]);
    const secondExit = waitForExit(second);
    try {
      await until('every record after the restore', () => ids().length >= 250);
      await new Promise((r) => setTimeout(r, 2500)); // two more checkpoints: a duplicate would show
    } finally {
      second.kill('SIGINT');
    }
    const secondRes = await secondExit;
    expect(secondRes.code, secondRes.stderr).toBe(130);
    expect(ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i));
  }, 240_000);
});
