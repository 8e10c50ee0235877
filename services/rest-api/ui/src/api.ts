/** The dashboard's calls to /ui/api (relative: the page is served at <context-path>/ui/). */

import type { JobPage, JobRow } from '../../src/dashboard/dashboard-types.js';

export type { JobPage, JobRow };

export interface TaskGroup {
  index?: number;
  state?: string;
  workerAddress?: string;
  description?: string;
  error?: { message?: string };
}
export interface Pipeline {
  pipelineId?: number;
  status?: string;
  attempt?: number;
  completedCheckpoints?: number;
  failedCheckpoints?: number;
  lastCheckpointTimeMs?: number;
  taskGroups?: TaskGroup[];
}
export interface Vertex {
  vertexId?: number;
  type?: string;
  pluginName?: string;
  tablePaths?: string[];
  parallelism?: number;
  pipelineId?: number;
}
export interface Edge {
  inputVertexId?: number;
  targetVertexId?: number;
  pipelineId?: number;
}
export interface Failover {
  timeMs?: number;
  pipelineId?: number;
  reason?: string;
  epoch?: string;
}
/** JobInfo as protobuf JSON (camelCase, enums by name, default values left out). */
export interface Job {
  jobId: string;
  jobName?: string;
  status?: string;
  jobMode?: string;
  submitTimeMs?: number;
  startTimeMs?: number;
  finishTimeMs?: number;
  error?: { message?: string };
  pipelines?: Pipeline[];
  lastCheckpointTimeMs?: number;
  completedCheckpoints?: number;
  failedCheckpoints?: number;
  failovers?: Failover[];
  vertices?: Vertex[];
  edges?: Edge[];
}
export interface TableMetrics {
  table?: string;
  sourceReceivedCount?: string;
  sinkWriteCount?: string;
  sourceReceivedQps?: number;
  sinkWriteQps?: number;
}
export interface Metrics {
  sourceReceivedCount?: string;
  sinkWriteCount?: string;
  sourceReceivedQps?: number;
  sinkWriteQps?: number;
  failedCount?: string;
  tables?: TableMetrics[];
}
export interface JobEvent {
  job?: Job;
  metrics?: Metrics;
}
export interface Worker {
  workerId?: string;
  address?: string;
  attributes?: Record<string, string>;
  totalSlots?: number;
  freeSlots?: number;
  cpuCores?: number;
  memoryMb?: number;
  systemLoad?: number;
  lastHeartbeatMs?: number;
}
export interface Overview {
  workers?: Worker[];
  totalSlots?: number;
  freeSlots?: number;
  runningJobs?: number;
  pendingJobs?: number;
  finishedJobs?: number;
  failedJobs?: number;
  canceledJobs?: number;
  leaderAddress?: string;
}

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`api/${path}`, init);
  const body = (await res.json()) as T & { status?: string; message?: string };
  if (!res.ok) throw new Error(body.message ?? `${res.status} ${res.statusText}`);
  return body;
}

export const api = {
  jobs: (offset: number, limit: number, state: string) => json<JobPage>(`jobs?offset=${offset}&limit=${limit}&state=${state}`),
  job: (id: string) => json<JobEvent>(`jobs/${id}`),
  cancel: (id: string) => json<{ job?: Job }>(`jobs/${id}/cancel`, { method: 'POST' }),
  overview: () => json<Overview>('overview'),
};

/**
 * Server-Sent Events from `path` (fed by WatchJob on the server): `onJob` gets each `job`
 * event's data. Returns how to close the stream.
 */
export function listen<T>(path: string, onJob: (data: T) => void, onError: (message: string) => void): () => void {
  const source = new EventSource(`api/${path}`);
  source.addEventListener('job', (e) => onJob(JSON.parse((e as MessageEvent<string>).data) as T));
  source.addEventListener('error', (e) => {
    const data = (e as MessageEvent<string | undefined>).data;
    if (data) onError((JSON.parse(data) as { message: string }).message);
  });
  // The server ends a stream once its jobs ended: do not let EventSource reconnect.
  source.addEventListener('done', () => source.close());
  return () => source.close();
}

export const ENDED = new Set(['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE']);

export function time(ms: number | undefined): string {
  return ms ? new Date(ms).toLocaleString() : '—';
}
