import type { TaskBusynessSample } from './busy-time.js';
import type { CatalogTable, JobMode } from '@tideway/api';
import type { PluginConfig } from '@tideway/config';
import type { RowErrorCounts, RowErrorPolicy } from './row-errors.js';

/**
 * What a worker needs to run one task group: the plugins of its fused chain (as configured,
 * so the worker validates and creates them itself), the tables flowing into each, and where
 * it sits in the job. Crosses processes v8-serialized inside DeployTask.
 */
export interface TaskGroupDescriptor {
  jobId: string;
  jobName: string;
  jobMode: JobMode;
  pipelineId: number;
  taskGroupIndex: number;
  attempt: number;
  /** The parallel index of this task group (the subtask index of each task in it). */
  subtaskIndex: number;
  /**
   * The fused chain. In a source stage it is rooted at the source; in a stage fed by a
   * shuffle (`input` set) it is rooted at the first vertex after the shuffle.
   */
  root: ChainNode;
  /** Set when rows come from upstream task groups through a shuffle, not from a source. */
  input?: ShuffleInput;
  /** Worker address of every task group of the pipeline, by index (filled at deploy). */
  peers?: Record<number, string>;
  /** Rows per second the source reader may read (env read_limit.rows_per_second), 0 = unlimited. */
  rowsPerSecond: number;
  /** Bytes per second the source reader may read (env read_limit.bytes_per_second), 0 = unlimited. */
  bytesPerSecond?: number;
  /** The state to start from when the pipeline restores from a checkpoint. */
  restored?: TaskGroupState;
  /** Row-level errors of transforms (env.transform_error_handler, mode LOG or ROUTE); absent: they fail the task. */
  rowErrors?: RowErrorPolicy;
  /** Rows a sink refuses for themselves (env.sink_error_handler, mode LOG or ROUTE); absent: they fail the task. */
  sinkRowErrors?: RowErrorPolicy;
  /** mode ROUTE: the dead-letter sink this task group's transforms (or sinks) write their bad rows to. */
  deadLetter?: DeadLetterTarget;
  /**
   * The plugin packages of the cluster's store the chain runs (name, version, sha256): the
   * worker fetches and verifies each before it deploys, and sets `dir` to where it unpacked it.
   */
  pluginPackages?: JobPluginPackage[];
}

/** A stored plugin package a task group runs. */
export interface JobPluginPackage {
  name: string;
  version: string;
  hash: string;
  /** Set by the worker: the folder it unpacked the package into. */
  dir?: string;
}

/**
 * The pipeline's dead-letter sink (env.transform_error_handler.sink), one writer in each task
 * group that runs a transform: a sink vertex outside the DAG, with its own vertex id, whose
 * writer state and commits go through the checkpoints as any sink's do.
 */
export interface DeadLetterTarget {
  vertexId: number;
  plugin: PluginConfig;
  /** Its writers: one per task group of the pipeline (subtask index = task group index). */
  parallelism: number;
  /** The one table it receives: the error rows (DEAD_LETTER_COLUMNS). */
  table: CatalogTable;
}

export interface ChainNode {
  /** Vertex id in the pipeline (unique within the job). */
  vertexId: number;
  plugin: PluginConfig;
  parallelism: number;
  /** The tables this vertex receives (empty for sources). */
  inputTables: CatalogTable[];
  /** Downstream vertices fused into the same task group. */
  children: ChainNode[];
  /** Shuffles this vertex's output feeds (downstream vertices of another parallelism). */
  shuffles?: ShuffleOutput[];
}

/** An outgoing shuffle edge: rows partitioned over the downstream stage's task groups. */
export interface ShuffleOutput {
  shuffleId: number;
  /** Downstream task group indexes, by partition. */
  targets: number[];
  /** Primary key column indexes by table id (hash partitioning); round-robin otherwise. */
  keyIndexes: Record<string, number[]>;
}

/** The incoming side of a shuffle: one channel from each upstream task group. */
export interface ShuffleInput {
  shuffleId: number;
  upstreamTaskGroups: number[];
}

/** The snapshot of one task group for a checkpoint. */
export interface TaskGroupState {
  /** Reader splits (with progress) by source vertex id. */
  readerSplits: Record<number, unknown[]>;
  /** Sink writer states by sink vertex id. */
  writerStates: Record<number, unknown[]>;
  /**
   * Commit infos this task group prepared for the checkpoint, by sink vertex id: committed
   * again (idempotently) by the sinks' committers when the task group restores from it.
   */
  pendingCommits?: CommitInfos;
  /**
   * Tables whose schema changed while the job ran (schema evolution), as they entered this task
   * group's chain at the checkpoint: a restored task group replays them down the chain before
   * any row, so transforms and sinks resume with the shape the rows have.
   */
  schemas?: CatalogTable[];
  /** Rows each transform or sink vertex saw and dropped as bad (row-level error handling), by vertex id. */
  rowErrors?: Record<number, RowErrorCounts>;
}

/** Commit infos prepared at a checkpoint, by sink vertex id. */
export type CommitInfos = Record<number, unknown[]>;

/** Per-table counters of a task group since it started. */
export interface TaskGroupMetrics {
  tables: Array<{
    table: string;
    sourceReceivedCount: number;
    sinkWriteCount: number;
    sourceReceivedBytes: number;
    sinkWriteBytes: number;
  }>;
  /** Bad rows each transform or sink vertex dropped (row-level error handling), by vertex id. */
  badRows?: Record<number, number>;
  /** Busy, idle and back-pressured time per second since the last report, and output fill. */
  busyness?: TaskBusynessSample;
  /** The source reader's lag by split id (SourceReader.lag, e.g. a Kafka partition's consumer lag). */
  sourceLag?: Record<string, number>;
}

/** Walks a chain depth-first. */
export function* chainNodes(root: ChainNode): Generator<ChainNode> {
  yield root;
  for (const c of root.children) yield* chainNodes(c);
}
