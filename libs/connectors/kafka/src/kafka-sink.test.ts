import { describe, expect, it } from 'vitest';
import { transactionTimeoutConflict } from './kafka-sink.js';

describe('EXACTLY_ONCE transaction timeout', () => {
  it('says in one sentence when transaction.timeout.ms is shorter than checkpoint.interval plus checkpoint.timeout', () => {
    expect(transactionTimeoutConflict({ intervalMs: 10_000, timeoutMs: 30_000 }, 60_000)).toBeUndefined();
    expect(transactionTimeoutConflict({ intervalMs: 60_000, timeoutMs: 30_000 }, 60_000)).toMatch(
      /^Kafka sink: transaction\.timeout\.ms \(60000 ms\) is shorter than checkpoint\.interval plus checkpoint\.timeout \(90000 ms\), so the broker may abort a transaction before its checkpoint completes/,
    );
    expect(transactionTimeoutConflict({ intervalMs: 5_000 }, 4_000)).toMatch(/\(5000 ms\)/);
    // Without checkpoint.interval in the env, the engine's default applies, which the plugin does not know.
    expect(transactionTimeoutConflict(undefined, 1_000)).toBeUndefined();
  });
});
