import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Vitest's order (integration before unit; the longest files first when it has timed them
 * before, the largest otherwise), with the files below first, longest first. CI runs from a fresh
 * clone, where vitest has no timings and orders by size: these are small but take minutes (most
 * of it waiting on the processes they start), and started late they ran at the end nearly alone
 * (the soak began 21 minutes into a 23-minute run). Their times: the slowest files that
 * scripts/test.sh prints at the end of a run.
 */
const LONG_FIRST = [
  'test/conformance/seatunnel-fixed-paths.test.ts', // SeaTunnel's fixed-path cases, ~4.5 min
  'test/chaos/chaos.test.ts',
  'test/kafka/kafka-exactly-once.test.ts',
  'test/cluster/soak.test.ts', // 2 minutes, whatever the machine
  'test/contract/jdbc-contract.test.ts',
  'test/cluster/ha.test.ts',
  'test/cluster/ha-failures.test.ts',
  'test/systems/iceberg-source.test.ts',
  'test/kafka/seatunnel-configs.test.ts',
  'test/kafka/broker.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => LONG_FIRST.findIndex((l) => f.moduleId.endsWith(`/${l}`));
    const first = sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((f) => !first.includes(f))];
  }
}

// Every test file, unit (libs/, services/) and integration (test/: real processes, clusters,
// browsers), shares one pool of 3 workers. On CI's 2 cores the suite used about 1.2 cores with 2
// workers: most of an integration file's time is spent waiting on the processes it starts.
// (Vitest runs all projects whose files go one at a time, maxWorkers 1, in one queue after the
// others, so a "sequential" project would put its files after everything else, one by one.)
// Files that must not overlap share a file instead: test/conformance/seatunnel-fixed-paths.test.ts.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    maxWorkers: 3,
    // The AWS SDK's notice that its 2027 releases need Node 22 is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['libs/**/*.test.ts', 'services/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'] } },
    ],
  },
});
