import { describe, expect, it } from 'vitest';
import { SplitRequests } from './split-requests.js';

/** A call whose answer comes when the test says so. */
function deferred() {
  let answer!: () => void;
  const done = new Promise<void>((r) => {
    answer = r;
  });
  return { done, answer };
}

describe('SplitRequests', () => {
  it('sends the next call of a vertex only once the one before it was answered and handled', async () => {
    const q = new SplitRequests();
    const handled: string[] = [];
    const first = deferred();
    const started: string[] = [];
    // The register call is slow (the coordinator answers it with the split); the next one would be "no more splits".
    const a = q.enqueue(1, async () => {
      started.push('register');
      await first.done;
      handled.push('split');
    });
    const b = q.enqueue(1, async () => {
      started.push('event');
      handled.push('no more splits');
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toEqual(['register']);
    expect(q.busy(1)).toBe(true);
    first.answer();
    await Promise.all([a, b]);
    expect(handled).toEqual(['split', 'no more splits']);
    expect(q.busy(1)).toBe(false);
  });

  it('keeps vertices apart, and goes on after a call that failed', async () => {
    const q = new SplitRequests();
    const held = deferred();
    const order: string[] = [];
    const first = q.enqueue(1, () => held.done.then(() => void order.push('v1')));
    await q.enqueue(2, async () => void order.push('v2'));
    expect(order).toEqual(['v2']);
    expect(q.busy(1)).toBe(true);
    expect(q.busy(2)).toBe(false);
    held.answer();
    await first;
    await q.enqueue(1, () => Promise.reject(new Error('unreachable coordinator')));
    await q.enqueue(1, async () => void order.push('v1 again'));
    expect(order).toEqual(['v2', 'v1', 'v1 again']);
    expect(q.busy(1)).toBe(false);
  });
});
