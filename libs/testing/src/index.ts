/**
 * Private test servers: PostgreSQL, MariaDB and Redis started from the Debian binaries on free
 * 127.0.0.1 ports in temp folders, never the machine's own services.
 */
export { startPostgres, postgresBinDir, type PostgresOptions } from './postgres.js';
export { startMariaDb, type MariaDbOptions } from './mariadb.js';
export { startRedis, type RedisOptions, type RedisServer } from './redis.js';
export { freePort, freePortRange, isListening } from './free-port.js';
export type { TestServer, TestDatabaseServer } from './test-server.js';
export { sharedConformanceDir, sharedConformancePath, sharedConformanceMissing, repoRoot } from './shared-conformance.js';
export {
  ClusterProcesses,
  isCoordinatorName,
  isWorkerName,
  type ClusterProcessName,
  type ClusterProcessesOptions,
} from './cluster-processes.js';
export { startWatchdog } from './server-process.js';
export { sequenceJobConfig, sequenceTableDdl, pgSinkConnection, type SequenceJobConfig, type SequenceSink } from './sequence-job.js';
export {
  SequenceTally,
  checkSequenceOutput,
  checkSequenceTable,
  createSequenceTable,
  type SequenceReport,
  type PgTarget,
} from './sequence-check.js';
export {
  startKafka,
  sharedKafka,
  kafkaMissing,
  kafkaSkipped,
  kafkaLibsDir,
  type KafkaCluster,
  type KafkaBroker,
  type KafkaOptions,
} from './kafka.js';
