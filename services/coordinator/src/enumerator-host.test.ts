/**
 * The enumerator host opens its enumerator (the split plan, made while the pipeline runs its save
 * modes) in turn with its other calls: what comes before the plan is made waits for it; after a
 * failed open readers get nothing and checkpoints fail with its error (docs/decisions/0096).
 */
import type { Source, SourceSplit, SplitEnumeratorContext } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { EnumeratorHost } from './enumerator-host.js';

/** A source whose enumerator's open waits for `gate`, then fails or assigns one split per reader. */
function gatedSource(gate: Promise<void>, fail = false): { source: Source; calls: string[] } {
  const calls: string[] = [];
  const source = {
    createEnumerator: (ctx: SplitEnumeratorContext<SourceSplit>) => ({
      async open() {
        await gate;
        calls.push('open');
        if (fail) throw new Error('the split plan failed');
      },
      run() {
        calls.push('run');
        for (let s = 0; s < ctx.parallelism; s++) {
          ctx.assignSplits(s, [{ splitId: `split-${s}` }]);
          ctx.signalNoMoreSplits(s);
        }
      },
      registerReader: (s: number) => calls.push(`register ${s}`),
      handleSplitRequest: (s: number) => calls.push(`request ${s}`),
      addSplitsBack: () => calls.push('back'),
      snapshotState: () => ({ planned: true }),
      close: () => calls.push('close'),
    }),
  } as unknown as Source;
  return { source, calls };
}

describe('EnumeratorHost', () => {
  it("a reader's request and a snapshot made before the split plan wait for it, then see its splits", async () => {
    let release!: () => void;
    const { source, calls } = gatedSource(new Promise((r) => (release = r)));
    const host = new EnumeratorHost(source, 2);
    const opened = host.open();
    const request = host.request(1, true, true);
    const snapshot = host.snapshot(1);
    let answered = false;
    request.then(
      () => (answered = true),
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    expect(calls).toEqual([]);
    release();
    await opened;
    expect(await request).toEqual({ splits: [{ splitId: 'split-1' }], noMoreSplits: true });
    expect((await snapshot).state).toEqual({ planned: true });
    expect(calls).toEqual(['open', 'run', 'register 1', 'request 1']);
    await host.close();
    expect(calls.at(-1)).toBe('close');
  });

  it('after a failed open: requests get no splits, snapshots and splits given back fail with its error', async () => {
    const { source, calls } = gatedSource(Promise.resolve(), true);
    const host = new EnumeratorHost(source, 1);
    const opened = host.open();
    const request = host.request(0, true, true);
    await expect(opened).rejects.toThrow('the split plan failed');
    expect(await request).toEqual({ splits: [], noMoreSplits: false });
    await expect(host.snapshot(1)).rejects.toThrow('the split plan failed');
    await expect(host.addSplitsBack([{ splitId: 'x' }], 0)).rejects.toThrow('the split plan failed');
    await host.notifyCheckpointComplete(1);
    // The enumerator was never run nor asked for splits; closing it still closes it.
    await host.close();
    expect(calls).toEqual(['open', 'close']);
  });

  it('keeps the assignments of a request whose caller stopped waiting for the next request, never "no more splits" before them', async () => {
    let release!: () => void;
    const { source } = gatedSource(new Promise((r) => (release = r)));
    const host = new EnumeratorHost(source, 1);
    const opened = host.open();
    // The register call's deadline passes while it waits behind the split plan.
    const register = host.request(0, true, false, [], Date.now() + 20);
    await new Promise((r) => setTimeout(r, 40));
    release();
    await opened;
    expect(await register).toEqual({ splits: [], noMoreSplits: false });
    expect(await host.request(0, false, false)).toEqual({ splits: [{ splitId: 'split-0' }], noMoreSplits: true });
    await host.close();
  });
});
