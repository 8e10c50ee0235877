import type { CatalogTable, JobMode } from '@tideway/api';
import type { PluginConfig } from '@tideway/config';

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
  /** The fused chain, rooted at the source. */
  root: ChainNode;
  /** Rows per second the source may read (env read_limit.rows_per_second), 0 = unlimited. */
  rowsPerSecond: number;
  /** The state to start from when the pipeline restores from a checkpoint. */
  restored?: TaskGroupState;
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
}

/** Commit infos prepared at a checkpoint, by sink vertex id. */
export type CommitInfos = Record<number, unknown[]>;

/** Per-table counters of a task group since it started. */
export interface TaskGroupMetrics {
  tables: Array<{ table: string; sourceReceivedCount: number; sinkWriteCount: number; sourceReceivedBytes: number; sinkWriteBytes: number }>;
}

/** Walks a chain depth-first. */
export function* chainNodes(root: ChainNode): Generator<ChainNode> {
  yield root;
  for (const c of root.children) yield* chainNodes(c);
}
