import type { JobInfo, JobMetrics, TaskBusyness } from '@tideway/contracts';
import { dottedEnvOptions } from './seatunnel-shapes.js';

/**
 * SeaTunnel's live vertex and edge metrics (its RealtimeMetricsService, read by the web UI of its
 * later releases at /metrics/realtime/jobs/:jobId/vertices and /edges), kept from Tideway's own
 * figures: each running task group's accumulated busy, idle and back-pressured time, its input
 * queue, and the per-table row counters. A read folds what changed since the previous read into
 * the current bucket (`bucketMs` wide); buckets older than the retention are dropped.
 */

/** The env keys SeaTunnel reads (engine.observability.*), with its defaults and bounds. */
export interface ObservabilitySettings {
  enabled: boolean;
  bucketMs: number;
  retentionMinutes: number;
}

export function observabilityOf(job: JobInfo): ObservabilitySettings {
  const env = dottedEnvOptions(job.envOptions);
  const num = (key: string, fallback: number) => {
    const v = Number(env[`engine.observability.${key}`]);
    return Number.isFinite(v) && env[`engine.observability.${key}`] !== undefined ? v : fallback;
  };
  return {
    enabled: env['engine.observability.enabled'] === 'true',
    bucketMs: Math.max(1000, num('bucket_ms', 5000)),
    retentionMinutes: Math.min(10, Math.max(1, num('retention_minutes', 3))),
  };
}

/** SeaTunnel's default and largest window of a read (windowMs). */
export const DEFAULT_WINDOW_MS = 3 * 60_000;
export const MAX_WINDOW_MS = 10 * 60_000;

interface VertexBucket {
  subtaskCount: number;
  coveredMs: number;
  sourceReadNs: number;
  sourceIdleNs: number;
  transformProcessNs: number;
  sinkWriteNs: number;
  sinkRecordsIn: number;
}

interface EdgeBucket {
  coveredMs: number;
  emitBlockedNs: number;
  producers: number;
  consumers: number;
  queueSize: number;
  queueCapacity: number;
}

interface Bucket {
  start: number;
  vertices: Map<number, VertexBucket>;
  edges: Map<number, EdgeBucket>;
}

/** One task group's accumulated times at the previous read. */
interface Totals {
  busy: number;
  idle: number;
  backPressured: number;
}

const NS_PER_MS = 1e6;

const taskKey = (t: TaskBusyness) => `${t.pipelineId}/${t.taskGroupIndex}`;

/** `numer` over `denom`, within 0 and 1 (SeaTunnel's ratio01). */
function ratio01(denom: number, numer: number): number {
  if (denom <= 0 || numer <= 0) return 0;
  return Math.min(1, numer / denom);
}

/** The series of one job. */
export class JobSeries {
  private readonly buckets: Bucket[] = [];
  private last?: { at: number; tasks: Map<string, Totals>; sinkRows: Map<number, number> };
  /** When the last applied read started: a read that started earlier and ends later is dropped. */
  private lastReadStart = -1;
  lastUsed = 0;

  constructor(readonly settings: ObservabilitySettings) {}

  get latestBucketStartMs(): number {
    return this.buckets.at(-1)?.start ?? -1;
  }

  /**
   * Folds one read of the job (its info and metrics, read from `readStart` on) into the bucket of
   * `now`. The first read only sets the baselines, as SeaTunnel's first collection does.
   */
  update(job: JobInfo, metrics: JobMetrics, readStart: number, now: number): void {
    this.lastUsed = now;
    if (readStart < this.lastReadStart) return;
    this.lastReadStart = readStart;
    const tasks = new Map<string, Totals>();
    for (const t of metrics.tasks)
      tasks.set(taskKey(t), { busy: t.accumulatedBusyMs, idle: t.accumulatedIdleMs, backPressured: t.accumulatedBackPressuredMs });
    const sinkRows = new Map<number, number>();
    const tableRows = new Map(metrics.tables.map((t) => [t.table, Number(t.sinkWriteCount)]));
    for (const v of job.vertices)
      if (v.type === 'sink')
        sinkRows.set(
          v.vertexId,
          v.tablePaths.reduce((n, table) => n + (tableRows.get(table) ?? 0), 0),
        );
    const previous = this.last;
    this.last = { at: now, tasks, sinkRows };
    if (!previous) return;
    const coveredMs = Math.max(0, now - previous.at);
    // A task group seen for the first time, or restarted (its totals went back), adds nothing yet.
    const delta = (t: TaskBusyness) => {
      const before = previous.tasks.get(taskKey(t));
      const d = (now: number, then: number | undefined) => (then === undefined ? 0 : Math.max(0, now - then));
      return {
        busy: d(t.accumulatedBusyMs, before?.busy),
        idle: d(t.accumulatedIdleMs, before?.idle),
        backPressured: d(t.accumulatedBackPressuredMs, before?.backPressured),
      };
    };
    const bucket = this.bucketAt(now);
    const running = (pipelineId: number, vertexId: number) =>
      metrics.tasks.filter((t) => t.pipelineId === pipelineId && t.vertexIds.includes(vertexId));

    for (const v of job.vertices) {
      const mine = running(v.pipelineId, v.vertexId);
      if (mine.length === 0) continue;
      const b = bucket.vertices.get(v.vertexId) ?? {
        subtaskCount: 0,
        coveredMs: 0,
        sourceReadNs: 0,
        sourceIdleNs: 0,
        transformProcessNs: 0,
        sinkWriteNs: 0,
        sinkRecordsIn: 0,
      };
      b.subtaskCount = Math.max(b.subtaskCount, mine.length);
      b.coveredMs += coveredMs;
      for (const t of mine) {
        const d = delta(t);
        if (v.type === 'source') {
          b.sourceReadNs += d.busy * NS_PER_MS;
          b.sourceIdleNs += d.idle * NS_PER_MS;
        } else if (v.type === 'transform') b.transformProcessNs += d.busy * NS_PER_MS;
        else b.sinkWriteNs += d.busy * NS_PER_MS;
      }
      if (v.type === 'sink') b.sinkRecordsIn += Math.max(0, (sinkRows.get(v.vertexId) ?? 0) - (previous.sinkRows.get(v.vertexId) ?? 0));
      bucket.vertices.set(v.vertexId, b);
    }

    // A shuffle: the input queue of the task groups whose chain starts at its target vertex, fed
    // by the task groups that run the vertices before it.
    const edgeReads = new Map<number, { consumers: TaskBusyness[]; producers: TaskBusyness[] }>();
    for (const consumer of metrics.tasks) {
      if (consumer.inQueueCapacity === 0 || consumer.vertexIds.length === 0) continue;
      const target = consumer.vertexIds[0];
      const e = edgeReads.get(target) ?? { consumers: [], producers: [] };
      e.consumers.push(consumer);
      edgeReads.set(target, e);
    }
    for (const [target, e] of edgeReads) {
      const pipelineId = e.consumers[0].pipelineId;
      const inputs = new Set(
        job.edges.filter((x) => x.pipelineId === pipelineId && x.targetVertexId === target).map((x) => x.inputVertexId),
      );
      e.producers = metrics.tasks.filter((t) => t.pipelineId === pipelineId && t.vertexIds.some((id) => inputs.has(id)));
      const b = bucket.edges.get(target) ?? { coveredMs: 0, emitBlockedNs: 0, producers: 0, consumers: 0, queueSize: 0, queueCapacity: 0 };
      b.coveredMs += coveredMs;
      for (const p of e.producers) b.emitBlockedNs += delta(p).backPressured * NS_PER_MS;
      b.producers = Math.max(b.producers, e.producers.length);
      b.consumers = Math.max(b.consumers, e.consumers.length);
      // The queue as this read found it (SeaTunnel's gauges: the latest value of the bucket).
      b.queueSize = e.consumers.reduce((n, c) => n + c.inQueueBatches, 0);
      b.queueCapacity = e.consumers.reduce((n, c) => n + c.inQueueCapacity, 0);
      bucket.edges.set(target, b);
    }
    const expire = now - this.settings.retentionMinutes * 60_000;
    while (this.buckets.length > 0 && this.buckets[0].start < expire) this.buckets.shift();
  }

  private bucketAt(now: number): Bucket {
    const start = Math.floor(now / this.settings.bucketMs) * this.settings.bucketMs;
    const last = this.buckets.at(-1);
    if (last?.start === start) return last;
    const b: Bucket = { start, vertices: new Map(), edges: new Map() };
    this.buckets.push(b);
    return b;
  }

  private window(windowMs: number, now: number) {
    const effective = Math.min(Math.max(0, windowMs), this.settings.retentionMinutes * 60_000);
    const fromMs = Math.max(0, now - effective);
    return { fromMs, selected: this.buckets.filter((b) => b.start >= fromMs) };
  }

  /** SeaTunnel's vertices answer: per vertex, a point per bucket in the window. */
  vertices(windowMs: number, now: number) {
    const { fromMs, selected } = this.window(windowMs, now);
    const series = new Map<number, Array<Record<string, number>>>();
    for (const b of selected)
      for (const [vertexId, v] of b.vertices) {
        const denom = v.coveredMs * NS_PER_MS * Math.max(1, v.subtaskCount);
        const sinkWriteNs = Math.round(v.sinkWriteNs);
        const list = series.get(vertexId) ?? [];
        list.push({
          ts: b.start,
          subtaskCount: v.subtaskCount,
          sourceReadNs: Math.round(v.sourceReadNs),
          sourceIdleNs: Math.round(v.sourceIdleNs),
          sourceReadRatio: ratio01(denom, v.sourceReadNs),
          sourceIdleRatio: ratio01(denom, v.sourceIdleNs),
          transformProcessNs: Math.round(v.transformProcessNs),
          // Tideway counts rows where they enter and leave the job, not at transforms.
          transformRecordsIn: 0,
          transformRecordsOut: 0,
          transformBusyRatio: ratio01(denom, v.transformProcessNs),
          transformProcessNsPerRecord: 0,
          sinkWriteNs,
          sinkRecordsIn: v.sinkRecordsIn,
          // Not measured: a sink's prepare, commit and abort run inside its task group's busy time.
          sinkPrepareCommitNs: 0,
          sinkCommitNs: 0,
          sinkAbortNs: 0,
          sinkBusyRatio: ratio01(denom, v.sinkWriteNs),
          sinkWriteNsPerRecord: v.sinkRecordsIn > 0 ? sinkWriteNs / v.sinkRecordsIn : 0,
        });
        series.set(vertexId, list);
      }
    return {
      bucketMs: this.settings.bucketMs,
      fromMs,
      toMs: now,
      vertices: [...series].sort(([a], [b]) => a - b).map(([vertexId, points]) => ({ vertexId, points })),
    };
  }

  /** SeaTunnel's edges answer: per shuffle (by its target vertex), a point per bucket in the window. */
  edges(windowMs: number, now: number) {
    const { fromMs, selected } = this.window(windowMs, now);
    const series = new Map<number, Array<Record<string, number>>>();
    for (const b of selected)
      for (const [target, e] of b.edges) {
        const size = e.queueCapacity > 0 ? Math.min(e.queueSize, e.queueCapacity) : e.queueSize;
        const list = series.get(target) ?? [];
        list.push({
          ts: b.start,
          emitBlockedNs: Math.round(e.emitBlockedNs),
          subtaskCount: Math.max(1, e.producers, e.consumers),
          bpRatio: ratio01(e.coveredMs * NS_PER_MS * Math.max(1, e.producers), e.emitBlockedNs),
          queueCapacity: e.queueCapacity,
          queueSize: size,
          queueFillRatio: e.queueCapacity > 0 ? size / e.queueCapacity : 0,
        });
        series.set(target, list);
      }
    return {
      bucketMs: this.settings.bucketMs,
      fromMs,
      toMs: now,
      edges: [...series].sort(([a], [b]) => a - b).map(([target, points]) => ({ queueId: target, targetVertexId: target, points })),
    };
  }
}

/** SeaTunnel's answer for a running job whose live metrics are off (or not kept yet). */
export function emptySeries(settings: ObservabilitySettings, windowMs: number, now: number, key: 'vertices' | 'edges') {
  return { enabled: settings.enabled, bucketMs: settings.bucketMs, fromMs: Math.max(0, now - Math.max(0, windowMs)), toMs: now, [key]: [] };
}
