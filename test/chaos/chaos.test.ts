/**
 * `tideway chaos` end to end: the real command starts its own Redis, coordinators, resource
 * manager and workers, kills and pauses them while a checkpointed Sequence job writes into an
 * exactly-once sink, and reports what reached the sink. Short runs here; the 50-kill run of
 * issue 10 behind TIDEWAY_CHAOS_LONG=1 (about 12 minutes per sink on 2 cores).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { icebergPeersPresent, kafkaSkipped, pyicebergRead, sharedKafka } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

interface Report {
  passed: boolean;
  runs: Array<{
    source: string;
    sink: string;
    passed: boolean;
    status: string;
    keys: number;
    rowsPerKey: number;
    where: string;
    rows: { expected: number; seen: number; lost: number; duplicated: number; examples: string[] };
    killsAsked: number;
    kills: Array<{ n: number; kind: string; signal: string; outcome: string; recoverySeconds?: number; pauseSeconds?: number }>;
    problems: string[];
    recovery: Array<{ group: string; kills: number; recovered: number; medianSeconds?: number; p90Seconds?: number }>;
  }>;
}

async function chaos(args: string[], timeoutMs: number): Promise<Report> {
  const res = await runCli(['chaos', '--json', ...args], timeoutMs);
  if (res.stdout.trim() === '') throw new Error(`tideway chaos printed no report (exit ${String(res.code)}):\n${res.stderr.slice(-4000)}`);
  const report = JSON.parse(res.stdout) as Report;
  const why = JSON.stringify(report.runs.map((r) => ({ problems: r.problems, examples: r.rows.examples, status: r.status })));
  expect(res.code, `${why}\n${res.stderr}`).toBe(0);
  // One progress line per kill on stderr.
  expect(res.stderr.split('\n').filter((l) => / kill \d+\/\d+ at /.test(l))).toHaveLength(
    report.runs.reduce((n, r) => n + r.kills.length, 0),
  );
  return report;
}

function expectExactlyOnce(run: Report['runs'][number], kills: number): void {
  expect(run.passed).toBe(true);
  expect(run.status).toBe('FINISHED');
  expect(run.rows).toMatchObject({ expected: run.keys * run.rowsPerKey, seen: run.keys * run.rowsPerKey, lost: 0, duplicated: 0 });
  expect(run.kills).toHaveLength(kills);
  for (const k of run.kills) {
    expect(k.outcome).toBe('recovered');
    expect(k.recoverySeconds).toBeGreaterThan(0);
    // A paused process stays paused longer than the lease (the engine default, 5 s).
    if (k.signal === 'SIGSTOP') expect(k.pauseSeconds).toBeGreaterThan(5);
  }
  const all = run.recovery.find((g) => g.group === 'every kill')!;
  expect(all).toMatchObject({ kills, recovered: kills });
  expect(all.p90Seconds).toBeGreaterThanOrEqual(all.medianSeconds!);
}

describe('tideway chaos', () => {
  it('refuses bad flags with exit code 2, naming the flag', { timeout: 180_000 }, async () => {
    for (const [args, text] of [
      [['--kills', '-1'], '--kills'],
      [['--coordinators', '5'], '--coordinators'],
      [['--sink', 'nosuch'], '--sink'],
      [['--sink', 'kafka'], '--kafka-bootstrap'],
      [['--source', 'kafka'], '--kafka-bootstrap'],
      [['--source', 'nosuch'], '--source'],
      [['--kafka-bootstrap', '127.0.0.1:9092'], '--kafka-bootstrap'],
      [['--sink', 'kafka', '--kafka-bootstrap', 'no-port'], '--kafka-bootstrap'],
      [['--jdbc-url', 'jdbc:postgresql://127.0.0.1/x'], '--jdbc-url'],
      [['--iceberg-warehouse', '/tmp/wh'], '--iceberg-warehouse'],
      [['--sink', 'iceberg', '--iceberg-warehouse', 's3://bucket/wh'], '--iceberg-warehouse'],
      [['--sink', 'jdbc', '--jdbc-url', 'jdbc:mysql://127.0.0.1/x'], '--jdbc-url'],
      [['--no-such-flag'], '--no-such-flag'],
    ] as const) {
      const res = await runCli(['chaos', ...args], 60_000);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toContain(text);
      expect(res.stdout).toBe('');
    }
  });

  it('4 kills and pauses with the LocalFile sink: FINISHED, every row once, rows moving again after each', {
    timeout: 240_000,
  }, async () => {
    const report = await chaos(['--kills', '4', '--seed', '4', '--rows-per-key', '3200'], 230_000);
    expect(report.passed).toBe(true);
    expectExactlyOnce(report.runs[0], 4);
  });

  // The broker is the suite's shared one (started once per run); the command itself starts none.
  it.skipIf(kafkaSkipped())(
    '3 kills and pauses of a Kafka -> Kafka EXACTLY_ONCE job: FINISHED, every row once for a read_committed consumer',
    { timeout: 300_000 },
    async () => {
      const bootstrap = await sharedKafka();
      const report = await chaos(
        ['--kills', '3', '--source', 'kafka', '--sink', 'kafka', '--kafka-bootstrap', bootstrap, '--seed', '5', '--rows-per-key', '2600'],
        280_000,
      );
      expect(report.runs[0].source).toBe('kafka');
      expect(report.runs[0].sink).toBe('kafka');
      expectExactlyOnce(report.runs[0], 3);
    },
  );

  // The command checks the table with Tideway's own reader; PyIceberg reads it again here, so that
  // the check itself is checked.
  it.skipIf(!icebergPeersPresent())(
    '3 kills and pauses with the Iceberg sink: FINISHED, every row once in the current snapshot, as PyIceberg reads it too',
    { timeout: 240_000 },
    async () => {
      const warehouse = mkdtempSync(join(tmpdir(), 'tideway-chaos-iceberg-'));
      try {
        const report = await chaos(
          ['--kills', '3', '--sink', 'iceberg', '--iceberg-warehouse', warehouse, '--seed', '6', '--rows-per-key', '2600'],
          230_000,
        );
        const run = report.runs[0];
        expect(run.sink).toBe('iceberg');
        expect(run.where).toContain(warehouse);
        expectExactlyOnce(run, 3);
        const [table] = readdirSync(join(warehouse, 'chaos'));
        const meta = join(warehouse, 'chaos', table, 'metadata');
        const version = readFileSync(join(meta, 'version-hint.text'), 'utf8').trim();
        const t = await pyicebergRead({ metadata: join(meta, `v${version}.metadata.json`) });
        const ids = t.rows.map((r) => `${String(r[0])},${String(r[1])}`);
        expect(t.rows).toHaveLength(run.rows.seen);
        expect(new Set(ids).size).toBe(run.keys * run.rowsPerKey);
        // one snapshot per checkpoint: the job committed many
        expect(t.snapshots.length).toBeGreaterThan(3);
      } finally {
        rmSync(warehouse, { recursive: true, force: true });
      }
    },
  );

  // The Jdbc XA sink under kills is also proven by test/jdbc/exactly-once-xa.test.ts and the 50-kill
  // bench (bench/RESULTS.md); this short run joins the long one to keep the suite under 20 minutes.
  it.skipIf(process.env.TIDEWAY_CHAOS_LONG !== '1')(
    '3 kills and pauses with the Jdbc XA sink on a private PostgreSQL: FINISHED, every row once (with TIDEWAY_CHAOS_LONG=1)',
    { timeout: 240_000 },
    async () => {
      const report = await chaos(['--kills', '3', '--sink', 'jdbc', '--seed', '3', '--rows-per-key', '2600'], 230_000);
      expectExactlyOnce(report.runs[0], 3);
    },
  );

  it.skipIf(process.env.TIDEWAY_CHAOS_LONG !== '1')(
    '50 kills with each sink (set TIDEWAY_CHAOS_LONG=1 to run it: about 25 minutes)',
    { timeout: 3_600_000 },
    async () => {
      const report = await chaos(['--kills', '50', '--sink', 'both', '--coordinators', '3'], 3_500_000);
      for (const run of report.runs) expectExactlyOnce(run, 50);
    },
  );
});
