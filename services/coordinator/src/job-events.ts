import type { StoredCheckpointRecord, StoredFailover } from '@tideway/cluster';
import { logger } from '@tideway/common';
import type { EngineConfig } from '@tideway/config';
import { EventDelivery, type DeliverySettings, type DeliveryStats, type ReceiverSettings } from './event-delivery.js';
import type { JobMaster } from './job-master.js';
import type { SchemaChangeNotice } from './pipeline-master.js';

const log = logger('events');

/**
 * A job event as receivers get it: SeaTunnel's event object (createdTime, jobId, eventType, then
 * the event's own fields), with an id and the job's order. `sequence` counts the job's events
 * one by one; a new leader goes on after the last sequence recorded in the state store, and
 * `epoch` (the leader's fencing epoch) orders what two leaders sent: order by (epoch, sequence),
 * deduplicate by eventId.
 */
export interface JobEvent {
  eventId: string;
  jobId: string;
  jobName: string;
  sequence: number;
  epoch: number;
  /** Milliseconds since epoch. */
  createdTime: number;
  eventType: 'JOB_STATUS_CHANGED' | 'CHECKPOINT_FAILED' | 'PIPELINE_FAILOVER' | 'SCHEMA_CHANGE';
  /** JOB_STATUS_CHANGED: the job's new status, and its error when it is failing or failed. */
  status?: string;
  error?: { code: string; message: string };
  /** CHECKPOINT_FAILED, PIPELINE_FAILOVER and SCHEMA_CHANGE: the pipeline. */
  pipelineId?: number;
  /** CHECKPOINT_FAILED: the checkpoint (as SeaTunnel's checkpoint overview names it). */
  checkpointId?: number;
  checkpointType?: string;
  triggerTimestamp?: number;
  durationMillis?: number;
  failureReason?: string;
  /** PIPELINE_FAILOVER: why the pipeline restarts (or fails), or that a new leader took it over. */
  reason?: string;
  /** SCHEMA_CHANGE: the table, its column changes in words (ADD COLUMN c int, ...), or that it was created. */
  tableId?: string;
  changes?: string[];
  created?: boolean;
}

type EventDetails = Omit<JobEvent, 'eventId' | 'jobId' | 'jobName' | 'sequence' | 'epoch' | 'createdTime'>;

/** The next event of a job: numbered after the job's last one. */
function jobEvent(job: JobMaster, epoch: number, details: EventDetails): JobEvent {
  const sequence = ++job.eventSequence;
  return {
    eventId: `${job.jobId}-${epoch}-${sequence}`,
    jobId: job.jobId,
    jobName: job.job.jobName,
    sequence,
    epoch,
    createdTime: Date.now(),
    ...details,
  };
}

/**
 * Pushes the leader's job events to every receiver configured: SeaTunnel's
 * `seatunnel.engine.event-report-http` and the webhooks of `tideway.events.webhooks`, each with
 * its own buffer and retries (EventDelivery), so a receiver that is down delays no other and
 * never the jobs.
 */
export class JobEventReporter {
  private readonly deliveries: EventDelivery<JobEvent>[];

  constructor(receivers: ReceiverSettings[], settings: DeliverySettings) {
    this.deliveries = receivers.map((r) => new EventDelivery<JobEvent>(r, settings));
  }

  /** The receivers of an engine config; undefined when it names none. */
  static fromConfig(engine: EngineConfig): JobEventReporter | undefined {
    const strings = (m: Readonly<Record<string, string | number | boolean>>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)]));
    const receivers: ReceiverSettings[] = [];
    if (engine.eventReportHttp.url)
      receivers.push({
        name: 'event-report-http',
        url: engine.eventReportHttp.url,
        headers: strings(engine.eventReportHttp.headers),
        secret: '',
      });
    for (const [name, hook] of Object.entries(engine.tideway.events.webhooks))
      receivers.push({ name, url: hook.url, headers: strings(hook.headers), secret: hook.secret });
    if (receivers.length === 0) return undefined;
    const e = engine.tideway.events;
    log.info({ receivers: receivers.map((r) => r.name) }, 'job events are pushed to receivers');
    return new JobEventReporter(receivers, {
      bufferSize: e.bufferSize,
      batchSize: e.batchSize,
      flushIntervalMs: e.flushInterval,
      requestTimeoutMs: e.requestTimeout,
      maxRetryIntervalMs: e.maxRetryInterval,
    });
  }

  jobStatus(job: JobMaster, epoch: number): void {
    const error =
      job.error && (job.status === 'FAILING' || job.status === 'FAILED') ? { code: job.error.code, message: job.error.message } : undefined;
    this.publish(jobEvent(job, epoch, { eventType: 'JOB_STATUS_CHANGED', status: job.status, error }));
  }

  /** A checkpoint ended: only a failed one is an event (one aborted by a stop comes with the stop's own events). */
  checkpoint(job: JobMaster, epoch: number, pipelineId: number, r: StoredCheckpointRecord): void {
    if (r.state !== 'FAILED') return;
    this.publish(
      jobEvent(job, epoch, {
        eventType: 'CHECKPOINT_FAILED',
        pipelineId,
        checkpointId: r.checkpointId,
        checkpointType: `${r.kind}_TYPE`,
        triggerTimestamp: r.triggerTimeMs,
        durationMillis: r.durationMs,
        failureReason: r.failureReason,
      }),
    );
  }

  failover(job: JobMaster, epoch: number, f: StoredFailover): void {
    this.publish(jobEvent(job, epoch, { eventType: 'PIPELINE_FAILOVER', pipelineId: f.pipelineId, reason: f.reason }));
  }

  /** A source reader emitted a schema change (CDC): a table's columns changed, or a table was created. */
  schemaChange(job: JobMaster, epoch: number, pipelineId: number, c: SchemaChangeNotice): void {
    this.publish(
      jobEvent(job, epoch, { eventType: 'SCHEMA_CHANGE', pipelineId, tableId: c.tableId, changes: [...c.changes], created: c.created }),
    );
  }

  private publish(event: JobEvent): void {
    for (const d of this.deliveries) d.enqueue(event);
  }

  stats(): DeliveryStats[] {
    return this.deliveries.map((d) => ({ ...d.stats }));
  }

  async close(): Promise<void> {
    await Promise.all(this.deliveries.map((d) => d.close()));
  }
}
