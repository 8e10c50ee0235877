/**
 * The Kafka sink's EXACTLY_ONCE against a real broker (the run's shared one), read back by
 * Kafka's own console consumer with isolation.level read_committed:
 * - a job with injected faults (reader exceptions, chain exceptions, worker threads killed) and
 *   so restores from its checkpoints: every row once;
 * - a job SIGKILLed mid-run and restored with `-r`: its lingering transactions are fenced and
 *   aborted, what its last checkpoint prepared is committed, every row once;
 * - a prepared transaction is committed from its recorded ids alone (as after a restore), twice
 *   without harm, and one the broker aborted for its timeout fails with a sentence saying so;
 * - a cancelled job's transactions still open under its prefix are aborted at once (Sink.abandon).
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, Producer } from '@platformatic/kafka';
import { optionsOf, RowKind, type Sink, Types, newCatalogTable } from '@tideway/api';
import {
  abandonTransactions,
  commitByInfo,
  kafkaSinkFactory,
  openTransactionIds,
  type KafkaCommitInfo,
  type KafkaWriterState,
} from '@tideway/connector-kafka';
import { freePort, kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import {
  createTopic,
  produce,
  readCommitted,
  exactlyOnceJob as sequenceToKafka,
  committedTally as report,
  TempDirs,
  uniqueTopic,
  writeJob,
} from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

/**
 * Whether every partition's last stable offset is its high watermark: no transaction is left
 * open (a predecessor's lingering one would hold read_committed readers back until its timeout).
 */
async function noOpenTransaction(bootstrap: string, topic: string, partitions: number): Promise<boolean> {
  const admin = new Admin({ clientId: 'eo-test', bootstrapBrokers: [bootstrap] });
  try {
    const ends = async (isolationLevel: 0 | 1) => {
      const [t] = await admin.listOffsets({
        isolationLevel,
        topics: [{ name: topic, partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, timestamp: -1n })) }],
      });
      return t.partitions.map((p) => String(p.offset)).join(',');
    };
    return (await ends(1)) === (await ends(0));
  } finally {
    await admin.close();
  }
}

/** A transaction left open with `values` in partition 0 of `topic`, its producer gone as with a process that died; its commit info. */
async function prepareOpen(bootstrap: string, topic: string, id: string, timeoutMs: number, values: string[]): Promise<KafkaCommitInfo> {
  const producer = new Producer({
    clientId: 'eo-test',
    bootstrapBrokers: [bootstrap],
    idempotent: true,
    acks: -1,
    transactionalId: id,
    timeout: timeoutMs,
  });
  const tx = await producer.beginTransaction();
  if (values.length > 0) await tx.send({ messages: values.map((v) => ({ topic, value: Buffer.from(v), partition: 0 })) });
  const info = {
    transactionalId: id,
    producerId: String(producer.producerId),
    producerEpoch: producer.producerEpoch ?? 0,
    checkpointId: 7,
    topic,
    records: values.length,
  };
  await producer.close();
  return info;
}

describe.skipIf(kafkaSkipped())('Kafka sink, EXACTLY_ONCE', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('loses and doubles nothing through injected faults, as a read_committed consumer sees it', async () => {
    const topic = uniqueTopic('eo-faults');
    await createTopic(bootstrap, topic, 3);
    const dir = dirs.make();
    const faultDir = join(dir, 'faults');
    mkdirSync(faultDir);
    const conf = writeJob(dir, sequenceToKafka({ bootstrap, topic, keys: 4, rowsPerKey: 2000, rowsPerSecond: 2000, faultDir }));
    const res = await runCli(['run', '-c', conf], 240_000);
    expect(res.code, res.stderr).toBe(0);
    const faults = ['reader', 'chain'].map((d) => readdirSync(join(faultDir, d)).length).reduce((a, b) => a + b, 0);
    const r = await report(bootstrap, topic, 3, 4, 2000);
    console.log(
      `Kafka EXACTLY_ONCE: ${faults} faults; rows expected ${r.expected}, seen ${r.seen}, lost ${r.lost}, duplicated ${r.duplicated}`,
    );
    expect(faults).toBeGreaterThanOrEqual(3);
    expect(r, r.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 8000 });
  }, 300_000);

  it('a job SIGKILLed mid-run and restored fences its predecessor: every row once', async () => {
    const topic = uniqueTopic('eo-restore');
    await createTopic(bootstrap, topic, 2);
    const dir = dirs.make();
    const storage = join(dir, 'checkpoints');
    const engine = join(dir, 'seatunnel.yaml');
    writeFileSync(
      engine,
      `seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: localfile\n        plugin-config:\n          namespace: ${storage}\n`,
    );
    const conf = writeJob(dir, sequenceToKafka({ bootstrap, topic, keys: 4, rowsPerKey: 1500, rowsPerSecond: 500 }));
    const jobId = String(Date.now());
    const port = await freePort();
    const cli = ['-c', conf, '--engine-config', engine];
    const first = spawnCli(['run', ...cli, '--set-job-id', jobId, '--coordinator-port', String(port)]);
    const exited = waitForExit(first);
    // Killed after its first checkpoints, well before the end of its 6 s of rows: some
    // transactions committed, one prepared or open.
    const end = Date.now() + 60_000;
    while (!existsSync(join(storage, jobId, '1')) || readdirSync(join(storage, jobId, '1')).length < 2) {
      if (Date.now() > end) throw new Error('the job wrote no checkpoint within 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    first.kill('SIGKILL');
    const killed = await exited;
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const restored = await runCli(['run', '-r', jobId, ...cli], 120_000);
    expect(restored.code, restored.stderr).toBe(0);
    // Commit markers are written just after a commit returns: give them a few seconds.
    let settled = false;
    for (let i = 0; i < 20 && !settled; i++) {
      settled = await noOpenTransaction(bootstrap, topic, 2);
      if (!settled) await new Promise((r) => setTimeout(r, 500));
    }
    expect(settled, 'a transaction is still open on the topic after the restored job ended').toBe(true);
    const r = await report(bootstrap, topic, 2, 4, 1500);
    console.log(`Kafka EXACTLY_ONCE restore: rows expected ${r.expected}, seen ${r.seen}, lost ${r.lost}, duplicated ${r.duplicated}`);
    expect(r, r.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 6000 });
  }, 200_000);

  it('an outage longer than transaction.timeout.ms: the job fails saying so, and nothing is half-visible', async () => {
    const topic = uniqueTopic('eo-timeout');
    await createTopic(bootstrap, topic, 1);
    const conf = writeJob(
      dirs.make(),
      sequenceToKafka({ bootstrap, topic, keys: 1, rowsPerKey: 400, rowsPerSecond: 50 })
        .replace('checkpoint.interval = 500', 'checkpoint.interval = 60000')
        .replace('job.retry.times = 20', 'job.retry.times = 0')
        .replace('"transaction.timeout.ms" = "60000"', '"transaction.timeout.ms" = "2000"'),
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('transaction.timeout.ms (2000 ms) is shorter than checkpoint.interval (60000 ms)');
    expect(res.stderr).toMatch(
      /the Kafka transaction \S+ was aborted by the broker at \S+ while open .*transaction\.timeout\.ms \(2000 ms\) ran out/,
    );
    expect(await readCommitted(bootstrap, topic)).toEqual([]);
  }, 150_000);

  it('commits a prepared transaction from its ids alone, again without harm, and fails clearly on one the broker aborted', async () => {
    const topic = uniqueTopic('eo-resume');
    await createTopic(bootstrap, topic, 1);
    const prepare = (id: string, timeoutMs: number, values: string[]) => prepareOpen(bootstrap, topic, id, timeoutMs, values);
    const cfg = (timeoutMs: number) => ({ bootstrap, prefix: 'eo-test', settings: {}, transactionTimeoutMs: timeoutMs });
    const info = await prepare(`${topic}-a`, 60_000, ['a1', 'a2']);
    await commitByInfo(cfg(60_000), info);
    await commitByInfo(cfg(60_000), info); // a restore commits the same checkpoint again
    expect((await readCommitted(bootstrap, topic)).sort()).toEqual(['a1', 'a2']);

    const expired = await prepare(`${topic}-b`, 1_000, ['b1']);
    await new Promise((r) => setTimeout(r, 4_000)); // an outage longer than transaction.timeout.ms
    await expect(commitByInfo(cfg(1_000), expired)).rejects.toThrow(
      /transaction .*-b of checkpoint 7 \(1 records for topic .*\) was aborted by the broker .* before it could be committed/,
    );
    expect((await readCommitted(bootstrap, topic)).sort()).toEqual(['a1', 'a2']);

    // Sink.abandon (a cancelled job): what is still open under the prefix is aborted at once, not
    // after its transaction.timeout.ms, and nothing of another prefix is touched.
    const prefix = `${topic}-job`;
    await prepare(`${prefix}-0-3`, 60_000, ['c1']);
    await prepare(`${prefix}-1-4`, 60_000, ['c2']);
    const other = await prepare(`${topic}-other-0-1`, 60_000, ['d1']);
    expect(await noOpenTransaction(bootstrap, topic, 1)).toBe(false);
    const aborted = await abandonTransactions({ bootstrap, prefix, settings: {}, transactionTimeoutMs: 60_000 });
    expect(aborted.sort()).toEqual([`${prefix}-0-3`, `${prefix}-1-4`]);
    await commitByInfo(cfg(60_000), other);
    let settled = false;
    for (let i = 0; i < 20 && !settled; i++) {
      settled = await noOpenTransaction(bootstrap, topic, 1);
      if (!settled) await new Promise((r) => setTimeout(r, 500));
    }
    expect(settled, 'a transaction of the abandoned prefix is still open').toBe(true);
    expect((await readCommitted(bootstrap, topic)).sort()).toEqual(['a1', 'a2', 'd1']);
  }, 180_000);

  it("restored at another parallelism: retired writers' open transactions are aborted at once, a re-added writer skips the ids its subtask used", async () => {
    const topic = uniqueTopic('eo-rescale-ids');
    await createTopic(bootstrap, topic, 1);
    const prefix = `${topic}-job`;
    const cfg = { bootstrap, prefix, settings: {}, transactionTimeoutMs: 300_000 };
    const table = newCatalogTable({ table: 'rows' }, [{ name: 'v', type: Types.STRING, nullable: true }]);
    const sink = kafkaSinkFactory.create({
      jobId: 'eo-test',
      jobMode: 'STREAMING',
      parallelism: 1,
      inputTables: [table],
      options: optionsOf(
        {
          'bootstrap.servers': bootstrap,
          topic,
          semantics: 'EXACTLY_ONCE',
          format: 'text',
          transaction_prefix: prefix,
          'kafka.config': { 'transaction.timeout.ms': '300000' },
        },
        kafkaSinkFactory.spec,
      ),
    }) as Sink<KafkaCommitInfo, unknown, KafkaWriterState>;
    expect(sink.rescalable).toBe(true);
    const committer = sink.createCommitter!();
    const rows = (...values: string[]) => values.map((v) => ({ kind: RowKind.INSERT, tableId: table.tableId, fields: [v] }));

    // A checkpoint of writers 0..2 (next ids 3, 9 and 5); after it, writers 0 and 2 opened transactions, then the job died.
    await prepareOpen(bootstrap, topic, `${prefix}-0-3`, 300_000, ['lingering-0']);
    await prepareOpen(bootstrap, topic, `${prefix}-2-5`, 300_000, ['lingering-2']);
    expect((await openTransactionIds(cfg)).sort()).toEqual([`${prefix}-0-3`, `${prefix}-2-5`]);

    // Restored at parallelism 1: writer 0 gets the three lists and aborts writer 2's transaction before any row comes.
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 }, [
      { subtask: 0, next: 3 },
      { subtask: 1, next: 9 },
      { subtask: 2, next: 5 },
    ]);
    const end = Date.now() + 30_000;
    while ((await openTransactionIds(cfg)).includes(`${prefix}-2-5`)) {
      if (Date.now() > end) throw new Error(`the retired writer's transaction ${prefix}-2-5 is still open after 30 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Its own open transaction goes at its first transaction, which takes the first unused id.
    await writer.write(rows('a'));
    const info = (await writer.prepareCommit!(1)) as KafkaCommitInfo;
    expect(info.transactionalId).toBe(`${prefix}-0-4`);
    // The retired subtasks are done: only the writer's own counter stays in the checkpoint.
    expect(writer.snapshotState!(1)).toEqual([{ subtask: 0, next: 5 }]);
    await committer.commit([info]);
    await writer.close();

    // Restored at parallelism 2 later: writer 1 runs again without a state of its own and skips
    // every id subtask 1 used (0..8 here, and 9, which writer 0 initialised when it retired
    // subtask 1), never reusing one a checkpoint may name.
    for (let n = 0; n < 9; n++) await prepareOpen(bootstrap, topic, `${prefix}-1-${n}`, 300_000, []);
    const added = sink.createWriter({ subtaskIndex: 1, parallelism: 2 }, undefined);
    await added.write(rows('b'));
    const second = (await added.prepareCommit!(2)) as KafkaCommitInfo;
    expect(second.transactionalId).toBe(`${prefix}-1-10`);
    await committer.commit([second]);
    await added.close();

    let settled = false;
    for (let i = 0; i < 20 && !settled; i++) {
      settled = await noOpenTransaction(bootstrap, topic, 1);
      if (!settled) await new Promise((r) => setTimeout(r, 500));
    }
    expect(settled, 'a transaction is still open on the topic').toBe(true);
    expect((await readCommitted(bootstrap, topic)).sort()).toEqual(['a', 'b']);
  }, 120_000);

  it('a Kafka -> Kafka job SIGKILLed at parallelism 2, restored at 3, SIGKILLed, restored at 1: every row once, nothing left open', async () => {
    const input = uniqueTopic('eo-rescale-in');
    const topic = uniqueTopic('eo-rescale-out');
    await createTopic(bootstrap, input, 4);
    await createTopic(bootstrap, topic, 2);
    const keys = 4;
    const rowsPerKey = 1500;
    // Key k's rows in partition k, in order.
    for (let k = 0; k < keys; k++)
      await produce(
        bootstrap,
        input,
        Array.from({ length: rowsPerKey }, (_, seq) => ({ value: `${k},${seq}`, partition: k })),
      );
    const dir = dirs.make();
    const storage = join(dir, 'checkpoints');
    const engine = join(dir, 'seatunnel.yaml');
    writeFileSync(
      engine,
      `seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: localfile\n        plugin-config:\n          namespace: ${storage}\n`,
    );
    const job = (parallelism: number) =>
      writeJob(
        dir,
        `env {
  job.mode = "BATCH"
  parallelism = ${parallelism}
  checkpoint.interval = 500
  read_limit.rows_per_second = 300
}
source {
  Kafka {
    plugin_output = "in"
    bootstrap.servers = "${bootstrap}"
    topic = "${input}"
    consumer.group = "${input}-job"
    start_mode = earliest
    format = text
    field_delimiter = ","
    schema = { fields { key = int, seq = bigint } }
  }
}
sink {
  Kafka {
    plugin_input = "in"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    semantics = EXACTLY_ONCE
    format = text
    field_delimiter = ","
    kafka.config = { "transaction.timeout.ms" = "300000" }
  }
}
`,
      );
    const jobId = String(Date.now());
    const prefix = { bootstrap, prefix: `tideway-${jobId}-${topic}`, settings: {}, transactionTimeoutMs: 300_000 };
    /** Runs the job (restored after the first run) until it completed two more checkpoints, then SIGKILLs it. */
    const runAndKill = async (parallelism: number, restore: boolean) => {
      const since = Date.now();
      const port = await freePort();
      const args = ['-c', job(parallelism), '--engine-config', engine, '--coordinator-port', String(port)];
      const child = spawnCli(['run', ...(restore ? ['-r', jobId] : ['--set-job-id', jobId]), ...args]);
      const exited = waitForExit(child);
      const folder = join(storage, jobId, '1');
      const end = Date.now() + 90_000;
      const fresh = () => (existsSync(folder) ? readdirSync(folder).filter((f) => statSync(join(folder, f)).mtimeMs >= since).length : 0);
      while (fresh() < 2) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`the run at parallelism ${parallelism} wrote no 2 checkpoints`);
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      // Transactions the killed writers left open, which the restore must abort (logged: which ones is a matter of timing).
      console.log(
        `Kafka EXACTLY_ONCE rescale: open after the kill at parallelism ${parallelism}: ${(await openTransactionIds(prefix)).join(', ')}`,
      );
    };
    await runAndKill(2, false);
    await runAndKill(3, true);
    const last = await runCli(['run', '-r', jobId, '-c', job(1), '--engine-config', engine], 180_000);
    expect(last.code, last.stderr).toBe(0);
    let settled = false;
    for (let i = 0; i < 20 && !settled; i++) {
      settled = await noOpenTransaction(bootstrap, topic, 2);
      if (!settled) await new Promise((r) => setTimeout(r, 500));
    }
    // Their timeout is 5 minutes: still open here would mean a transaction of a killed writer was not aborted.
    expect(settled, `open after the restored job ended: ${(await openTransactionIds(prefix)).join(', ')}`).toBe(true);
    const r = await report(bootstrap, topic, 2, keys, rowsPerKey);
    console.log(
      `Kafka EXACTLY_ONCE rescale 2 -> 3 -> 1: rows expected ${r.expected}, seen ${r.seen}, lost ${r.lost}, duplicated ${r.duplicated}`,
    );
    expect(r, r.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: keys * rowsPerKey });
  }, 400_000);
});
