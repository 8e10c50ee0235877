/**
 * The soak of issue 36, two minutes of it (bench/soak.ts runs the hour): an HA cluster of real
 * processes under batch jobs submitted every second, three streaming exactly-once jobs cancelled
 * or stopped with a savepoint and restored at random, and the leader SIGKILLed half-way. Named
 * after the SeaTunnel failures it guards against: batch jobs stuck RUNNING when many are
 * submitted a minute (#10997), jobs hanging at completion (#9885), slots not given back after a
 * fail-over so jobs stay PENDING (#11437, #11458), and a job-state map growing without bound
 * (#7768).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak-run.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-soak-'));
let passed = false;
// A failed soak keeps its cluster's logs and configs (the folder is named in the failure).
afterAll(() => {
  if (passed) rmSync(dir, { recursive: true, force: true });
});

describe('soak (2 minutes)', () => {
  it('SeaTunnel #10997, #9885, #11437, #11458, #7768: no job stuck, no slot leaked, nothing lost or doubled, ended jobs expire from the state store', async () => {
    const lines: string[] = [];
    const report = await runSoak({
      minutes: 2,
      batchPerSecond: 1,
      streams: 3,
      streamActionEverySec: 15,
      failoverAt: 0.5,
      historyExpireMinutes: 1,
      sampleEverySec: 15,
      dir,
      progress: (l) => lines.push(l),
    });
    const context = JSON.stringify(
      { logs: join(dir, 'cluster', 'logs'), ...report, samples: report.samples.length, progress: lines.slice(-8) },
      null,
      1,
    );
    expect(report.stuck, context).toEqual([]);
    expect(report.problems, context).toEqual([]);
    expect(report.leakedSlots, context).toBe(0);
    expect(report.totalSlots).toBe(18);
    expect(report.lost, context).toBe(0);
    expect(report.duplicated, context).toBe(0);
    expect(report.failovers).toBe(1);
    expect(report.batchFinished, context).toBeGreaterThanOrEqual(report.batchSubmitted * 0.8);
    expect(report.cancels + report.savepointRestores, context).toBeGreaterThanOrEqual(3);
    expect(report.keptPastExpiry, context).toBe(0);
    passed = true;
  }, 420_000);
});
