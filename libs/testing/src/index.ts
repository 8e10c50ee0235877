/**
 * What the tests share: the private servers and cluster launchers of @tideway/launchers
 * (re-exported here, so tests keep one import), and where SeaTunnel's conformance configs are.
 * Test-only: no package imports it outside its tests and benches (test/suite/testing-imports.test.ts).
 */
export * from '@tideway/launchers';
export { sharedConformanceDir, sharedConformancePath, sharedConformanceMissing, repoRoot } from './shared-conformance.js';
export {
  orcPeersPresent,
  pyarrowRead,
  pyarrowWrite,
  pyarrowOrcFromParquet,
  orcTools,
  ORC_PEERS_DIR,
  type PyarrowRead,
} from './orc-peers.js';
export {
  SEATUNNEL_CDC_VERSION,
  SEATUNNEL_VERSION,
  SeaTunnelCluster,
  consoleLinesOf,
  ensureSeaTunnel,
  runSeaTunnelLocal,
  seaTunnelLocalCommand,
  seaTunnelHome,
  type SeaTunnelRun,
  type SeaTunnelRunOptions,
} from './seatunnel.js';
export {
  startKafka,
  sharedKafka,
  sharedKafkaSecurity,
  KAFKA_TEST_USER,
  type KafkaSecurity,
  kafkaMissing,
  kafkaSkipped,
  kafkaLibsDir,
  type KafkaCluster,
  type KafkaBroker,
  type KafkaOptions,
} from './kafka.js';
export { mockServerJar, mockServerSkipped, startMockServer, type MockServer } from './mockserver.js';
export {
  openSearchDir,
  openSearchSkipped,
  sharedOpenSearch,
  startOpenSearch,
  type OpenSearchNode,
  type OpenSearchOptions,
} from './opensearch.js';
export { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from './http-receiver.js';
export { icebergPeersPresent, pyicebergRead, pyicebergPython, ICEBERG_PEERS_DIR, type PyIcebergRead } from './iceberg-peers.js';
export {
  makeIcebergTable,
  pyicebergScan,
  canonicalRows,
  canonicalValue,
  sortCanonical,
  type IcebergRecipe,
  type MadeIcebergTable,
} from './iceberg-tables.js';
export {
  icebergJavaDir,
  icebergJavaPresent,
  javaIcebergRead,
  javaIcebergWrite,
  type JavaIcebergRecipe,
  sharedIcebergJava,
  startIcebergJava,
  type JavaIcebergRead,
  type JavaIcebergTable,
} from './iceberg-java.js';
export { CHROMIUM, launchChromium } from './chromium.js';
export { UI_RUNNING_JOB, UI_FINISHED_JOB, UI_FAILED_JOB } from './seatunnel-ui-jobs.js';
