/** Local mode as a library, for in-process benchmarks and tests (the job client is @tideway/client). */
export { startLocalCluster, type LocalCluster } from './local-cluster.js';
export type { ChaosRunReport } from './chaos/chaos-run.js';
export type { RecoveryStats } from './chaos/chaos-report.js';
