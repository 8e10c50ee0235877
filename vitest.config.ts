import { defineConfig } from 'vitest/config';

// Two projects run side by side, each one file at a time: the unit tests of libs/ and services/
// (in-process, some against a private database) beside the integration tests of test/ (real
// processes, clusters, browsers). On 2 cores the integration files spend most of their time
// waiting on the processes they start; two integration files at once would compete for the same
// CPU their timing-sensitive fail-over checks need, so within each project files run in turn.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // The AWS SDK's notice that its 2027 releases need Node 22 is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['libs/**/*.test.ts', 'services/**/*.test.ts'], fileParallelism: false } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
