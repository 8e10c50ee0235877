/**
 * Real processes started privately: PostgreSQL, MariaDB, Redis, RabbitMQ and Firebird from the Debian binaries on
 * free 127.0.0.1 ports in temp folders (never the machine's own services), and clusters of
 * Tideway processes. `tideway chaos` runs on them, so they ship with the CLI; the tests reach
 * them through @tideway/testing, which re-exports this package.
 */
export { startPostgres, postgresBinDir, type PostgresOptions } from './postgres.js';
export { startMariaDb, type MariaDbOptions } from './mariadb.js';
export { startRedis, type RedisOptions, type RedisServer } from './redis.js';
export { startRedisCluster, type RedisClusterServer } from './redis-cluster.js';
export { startRabbitMq, type RabbitMqServer } from './rabbitmq.js';
export { startFirebird, sharedFirebird, firebirdMissing, type FirebirdServer, type FirebirdOptions } from './firebird.js';
export { freePort, freePortRange, isListening } from './free-port.js';
export type { TestServer, TestDatabaseServer } from './test-server.js';
export { makeServerDir, portWasTaken } from './test-server.js';
export {
  ClusterProcesses,
  isCoordinatorName,
  isWorkerName,
  type ClusterProcessName,
  type ClusterProcessesOptions,
} from './cluster-processes.js';
export { ServerProcess, startWatchdog } from './server-process.js';
export {
  sequenceJobConfig,
  sequenceRecords,
  sequenceTableDdl,
  pgSinkConnection,
  type SequenceJobConfig,
  type SequenceSink,
} from './sequence-job.js';
export {
  SequenceTally,
  checkSequenceOutput,
  checkSequenceTable,
  createSequenceTable,
  type SequenceReport,
  type PgTarget,
} from './sequence-check.js';
