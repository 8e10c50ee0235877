/** Local mode and the job client as a library: for in-process benchmarks and tests. */
export { startLocalCluster, type LocalCluster } from './local-cluster.js';
export { JobClient } from './job-client.js';
export type { ChaosRunReport } from './chaos/chaos-run.js';
export type { RecoveryStats } from './chaos/chaos-report.js';
