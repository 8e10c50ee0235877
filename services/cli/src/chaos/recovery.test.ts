import { describe, expect, it } from 'vitest';
import type { JobSample } from './job-probe.js';
import { waitRowsMoving } from './recovery.js';

/** A probe that answers with the samples given, one per call, then repeats the last. */
function scripted(samples: Array<Partial<JobSample> | undefined>) {
  let i = 0;
  return {
    calls: () => i,
    async sample(): Promise<JobSample | undefined> {
      const s = samples[Math.min(i++, samples.length - 1)];
      if (!s) return undefined;
      return {
        at: Date.now(),
        leader: 'a',
        status: 'RUNNING',
        pipelines: [{ status: 'RUNNING', attempt: 0 }],
        rows: 0,
        completedCheckpoints: 0,
        workers: new Set(),
        ...s,
      };
    },
  };
}

const running = (attempt: number, rows: number): Partial<JobSample> => ({ pipelines: [{ status: 'RUNNING', attempt }], rows });
const never = new AbortController().signal;

describe('waitRowsMoving', () => {
  it('after a disruptive kill, counts only rows that grow in a later attempt', async () => {
    // The other reader of attempt 0 goes on reading after the kill: that is not recovery.
    const probe = scripted([
      running(0, 100),
      running(0, 200),
      undefined,
      { pipelines: [{ status: 'DEPLOYING', attempt: 1 }], rows: 150 },
      running(1, 150),
      running(1, 150),
      running(1, 180),
    ]);
    const out = await waitRowsMoving(
      probe,
      { killedAt: Date.now(), disruptive: true, attemptBefore: 0, resumedAt: () => undefined },
      10_000,
      never,
      1,
    );
    expect(out.kind).toBe('recovered');
    expect(probe.calls()).toBe(7);
  });

  it('after a pause, rows in the same attempt count once the process is resumed', async () => {
    let resumed: number | undefined;
    const probe = scripted([running(0, 100), running(0, 120), running(0, 140), running(0, 160)]);
    const sample = probe.sample.bind(probe);
    probe.sample = async () => {
      if (probe.calls() === 2) resumed = Date.now();
      return sample();
    };
    const out = await waitRowsMoving(
      probe,
      { killedAt: Date.now(), disruptive: true, attemptBefore: 0, resumedAt: () => resumed },
      10_000,
      never,
      1,
    );
    expect(out.kind).toBe('recovered');
    // Samples 1-2 were taken before the resume; 3 and 4 are the two in a row after it.
    expect(probe.calls()).toBe(4);
  });

  it('after a kill the job does not depend on, any growth of its rows counts', async () => {
    const probe = scripted([running(0, 100), running(0, 130)]);
    const out = await waitRowsMoving(
      probe,
      { killedAt: Date.now(), disruptive: false, attemptBefore: 0, resumedAt: () => undefined },
      10_000,
      never,
      1,
    );
    expect(out).toMatchObject({ kind: 'recovered' });
  });

  it('a job whose rows stop is stuck after the timeout; a job that ended is reported so', async () => {
    const stuck = await waitRowsMoving(
      scripted([running(1, 100)]),
      { killedAt: Date.now(), disruptive: false, attemptBefore: 0, resumedAt: () => undefined },
      50,
      never,
      5,
    );
    expect(stuck.kind).toBe('stuck');
    const ended = await waitRowsMoving(
      scripted([{ status: 'FAILED' }]),
      { killedAt: Date.now(), disruptive: true, attemptBefore: 0, resumedAt: () => undefined },
      1000,
      never,
      1,
    );
    expect(ended).toMatchObject({ kind: 'job ended', status: 'FAILED' });
  });
});
