/**
 * Polls `check` every `everyMs` until it holds. After `timeoutMs` it fails with `what`, the last
 * error `check` threw, and `context()` (the processes' log tails, say).
 */
export async function pollUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  context: () => string,
  everyMs = 150,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for: ${what}${last ? ` (last error: ${(last as Error).message})` : ''}\n${context()}`);
}
