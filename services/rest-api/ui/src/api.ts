/** The dashboard's calls to /ui/api (relative: the page is served at <context-path>/ui/). */

import type { JobPage, JobRow } from '../../src/dashboard/dashboard-types.js';
import { readEvents } from './event-stream.js';
import { authHeaders, unauthenticated } from './session.js';

export type { JobPage, JobRow };

export interface TaskGroup {
  index?: number;
  state?: string;
  workerAddress?: string;
  description?: string;
  error?: { message?: string };
}
/** One checkpoint of a pipeline's history (JobInfo's CheckpointRecord). */
export interface CheckpointRecord {
  checkpointId?: number;
  kind?: string;
  triggerTimeMs?: number;
  durationMs?: number;
  stateBytes?: number;
  alignmentMs?: number;
  /** COMPLETED, FAILED or ABORTED. */
  state?: string;
  failureReason?: string;
}
export interface Pipeline {
  pipelineId?: number;
  status?: string;
  attempt?: number;
  completedCheckpoints?: number;
  failedCheckpoints?: number;
  lastCheckpointTimeMs?: number;
  taskGroups?: TaskGroup[];
  /** Newest first. */
  checkpointHistory?: CheckpointRecord[];
  checkpointInFlight?: { checkpointId?: number; kind?: string; triggerTimeMs?: number; acknowledged?: number; total?: number };
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
  /** Rows dropped as bad by vertex id (row-level error handling). */
  badRows?: Record<string, number | string>;
  tasks?: TaskBusyness[];
}
/** A running task group's time per second (JobMetrics.tasks). */
export interface TaskBusyness {
  pipelineId?: number;
  taskGroupIndex?: number;
  workerAddress?: string;
  vertexIds?: number[];
  busyMsPerSecond?: number;
  idleMsPerSecond?: number;
  backPressuredMsPerSecond?: number;
  outPoolUsage?: number;
  /** The input queue's fill, 0 to 1 (Flink's inPoolUsage). */
  inPoolUsage?: number;
  inQueueBatches?: number;
  inQueueCapacity?: number;
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
  /** Draining (tideway cluster drain, or stopping): no new slots, its task groups move away. */
  draining?: boolean;
  /** Draining because it was sent SIGTERM. */
  stopping?: boolean;
  usedSlots?: number;
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
  /** Usage against quota per namespace (tideway.auth.namespaces max-running-jobs, max-slots; 0: no limit). */
  namespaces?: Array<{
    namespace?: string;
    runningJobs?: number;
    maxRunningJobs?: number;
    slots?: number;
    maxSlots?: number;
    pendingJobs?: number;
  }>;
}

/**
 * The sentence for a refused call: a 401 also asks for sign-in (session.ts), a 403 says the
 * token's role is not enough.
 */
function refusal(res: Response, body: { message?: string }): string {
  const message = body.message ?? `${res.status} ${res.statusText}`;
  if (res.status === 401) unauthenticated(message);
  return res.status === 403 ? `Not allowed: ${message}` : message;
}

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`api/${path}`, { ...init, headers: { ...authHeaders(), ...init?.headers } });
  const body = (await res.json()) as T & { status?: string; message?: string };
  if (!res.ok) throw new Error(refusal(res, body));
  return body;
}

export const api = {
  jobs: (offset: number, limit: number, state: string) => json<JobPage>(`jobs?offset=${offset}&limit=${limit}&state=${state}`),
  job: (id: string) => json<JobEvent>(`jobs/${id}`),
  cancel: (id: string) => json<{ job?: Job }>(`jobs/${id}/cancel`, { method: 'POST' }),
  overview: () => json<Overview>('overview'),
  logs: (id: string, level: string, sinceMs: number) => json<JobLogs>(`jobs/${id}/logs?level=${level}&since=${sinceMs}`),
};

/** A job's log lines from every process (GET /ui/api/jobs/:id/logs), oldest first. */
export interface JobLogs {
  lines: Array<{ node: string; role: string; timeMs: number; level: string; msg: string; fields: string }>;
  missing: Array<{ node: string; role: string; reason: string }>;
}

/** How long a broken event stream waits before it is opened again (EventSource's default is about this). */
const RECONNECT_MS = 2000;

/**
 * Server-Sent Events from `path` (fed by WatchJob on the server), read with fetch so that the
 * token goes with them: `onJob` gets each `job` event's data. A stream that breaks is opened
 * again, as EventSource would; one the server ends with `done` (its jobs ended), or refuses, is
 * not. Returns how to close the stream.
 */
export function listen<T>(path: string, onJob: (data: T) => void, onError: (message: string) => void): () => void {
  const abort = new AbortController();
  const onEvent = (e: { event: string; data: string }) => {
    if (e.event === 'job') onJob(JSON.parse(e.data) as T);
    else if (e.event === 'error' && e.data) onError((JSON.parse(e.data) as { message: string }).message);
    return e.event === 'done';
  };
  (async () => {
    while (!abort.signal.aborted) {
      try {
        const res = await fetch(`api/${path}`, { headers: { accept: 'text/event-stream', ...authHeaders() }, signal: abort.signal });
        if (!res.ok || !res.body) {
          onError(refusal(res, (await res.json().catch(() => ({}))) as { message?: string }));
          return;
        }
        if (await readEvents(res.body, onEvent)) return;
      } catch {
        if (abort.signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  })().catch((err: unknown) => onError(err instanceof Error ? err.message : String(err)));
  return () => abort.abort();
}

export const ENDED = new Set(['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE']);

export function time(ms: number | undefined): string {
  return ms ? new Date(ms).toLocaleString() : '—';
}
