import { useEffect, useState } from 'preact/hooks';
import { ENDED, api, listen, time, type Job, type JobEvent, type Metrics } from './api.js';
import { CheckpointsPanel } from './checkpoints-panel.js';
import { DagView, vertexBusyness } from './dag-view.js';
import { LogsPanel } from './logs-panel.js';
import { HISTORY, taskBusyness, vertexBadRows, vertexLabel, vertexRates } from './job-view.js';
import { RateChart } from './rate-chart.js';
import { StatusBadge } from './status-badge.js';

interface Series {
  xs: number[];
  rows: Map<number, number[]>;
  rates: Map<number, number[]>;
}

function append(s: Series, job: Job, m: Metrics | undefined): Series {
  const next: Series = { xs: [...s.xs, Date.now() / 1000].slice(-HISTORY), rows: new Map(), rates: new Map() };
  for (const v of job.vertices ?? []) {
    const r = vertexRates(v, m);
    if (!r) continue;
    const id = v.vertexId ?? 0;
    next.rows.set(id, [...(s.rows.get(id) ?? []), r.rows].slice(-HISTORY));
    next.rates.set(id, [...(s.rates.get(id) ?? []), r.rate].slice(-HISTORY));
  }
  return next;
}

/** One job: state, DAG per pipeline with task groups and workers, rows charts, checkpoints, fail-overs, logs, cancel. */
export function JobPage({ jobId }: { jobId: string }) {
  const [event, setEvent] = useState<JobEvent | undefined>();
  const [series, setSeries] = useState<Series>({ xs: [], rows: new Map(), rates: new Map() });
  const [error, setError] = useState('');
  const [canceling, setCanceling] = useState(false);

  const take = (e: JobEvent) => {
    setEvent((old) => ({ job: e.job ?? old?.job, metrics: e.metrics ?? old?.metrics }));
    if (e.job && e.metrics) setSeries((s) => append(s, e.job!, e.metrics));
  };

  useEffect(() => {
    let close = () => {};
    api.job(jobId).then(
      (e) => {
        take(e);
        // An ended job has no news to push; a running one streams WatchJob's events.
        if (!ENDED.has(e.job?.status ?? '')) close = listen<JobEvent>(`jobs/${jobId}/events`, take, setError);
      },
      (e: Error) => setError(e.message),
    );
    return () => close();
  }, [jobId]);

  const job = event?.job;
  if (!job) return <section>{error ? <p class="error">{error}</p> : <p>loading job {jobId}…</p>}</section>;
  const ended = ENDED.has(job.status ?? '');
  const vertices = job.vertices ?? [];
  const counted = vertices.filter((v) => series.rates.has(v.vertexId ?? 0));
  const pipelines = job.pipelines ?? [];

  const cancel = () => {
    setCanceling(true);
    api.cancel(jobId).then(
      // The stream may have brought the job's end before this answer (CANCELING): never go back.
      (r) => r.job && setEvent((old) => (ENDED.has(old?.job?.status ?? '') ? old : { ...old, job: r.job })),
      (e: Error) => (setError(e.message), setCanceling(false)),
    );
  };

  return (
    <section>
      <h1>
        {job.jobName} <small>{job.jobId}</small> <StatusBadge status={job.status} />
      </h1>
      <div class="toolbar">
        <span>
          {job.jobMode} · submitted {time(job.submitTimeMs)} · started {time(job.startTimeMs)} · ended {time(job.finishTimeMs)}
        </span>
        {!ended && (
          <button class="danger" data-testid="cancel" disabled={canceling} onClick={cancel}>
            {canceling ? 'canceling…' : 'cancel job'}
          </button>
        )}
      </div>
      {error && <p class="error">{error}</p>}
      {job.error?.message && (
        <p class="error" data-testid="job-error">
          {job.error.message}
        </p>
      )}
      <p class="summary" data-testid="totals">
        rows read {event?.metrics?.sourceReceivedCount ?? 0}
        {ended ? '' : ` (${Math.round(event?.metrics?.sourceReceivedQps ?? 0)}/s)`} · rows written {event?.metrics?.sinkWriteCount ?? 0}
        {ended ? '' : ` (${Math.round(event?.metrics?.sinkWriteQps ?? 0)}/s)`}
      </p>

      <h2>DAG</h2>
      {pipelines.length === 0 && vertices.length === 0 && <p>not planned yet</p>}
      {[...new Set(vertices.map((v) => v.pipelineId ?? 0))].map((pid) => {
        const p = pipelines.find((x) => (x.pipelineId ?? 0) === pid);
        return (
          <div class="pipeline" data-pipeline={pid}>
            <h3>
              pipeline {pid} <StatusBadge status={p?.status} />{' '}
              <small>
                attempt {p?.attempt ?? 0} · checkpoints {p?.completedCheckpoints ?? 0} completed, {p?.failedCheckpoints ?? 0} failed
              </small>
            </h3>
            <DagView
              vertices={vertices.filter((v) => (v.pipelineId ?? 0) === pid)}
              edges={(job.edges ?? []).filter((e) => (e.pipelineId ?? 0) === pid)}
              rows={(v) => {
                const r = vertexRates(v, event?.metrics);
                const bad = vertexBadRows(v, event?.metrics);
                // An ended job's last rate is history, not a rate: show its rows only.
                const text = r ? (ended ? `${r.rows} rows` : `${r.rows} rows · ${Math.round(r.rate)}/s`) : '';
                return bad > 0 ? `${text}${text ? ' · ' : ''}${bad} bad` : text;
              }}
              busyness={(v) => (ended ? undefined : vertexBusyness(v, event?.metrics))}
            />
            <table class="task-groups">
              <thead>
                <tr>
                  <th>task group</th>
                  <th>state</th>
                  <th>worker</th>
                  <th>chain</th>
                  <th>busy · back-pressured</th>
                  <th>input queue</th>
                  <th>output</th>
                </tr>
              </thead>
              <tbody>
                {(p?.taskGroups ?? []).map((t) => {
                  const b = ended ? undefined : taskBusyness(event?.metrics, pid, t.index ?? 0);
                  const pct = (x: number | undefined) => `${Math.round((x ?? 0) * 100)}%`;
                  return (
                    <tr data-task-group={t.index ?? 0}>
                      <td>{t.index ?? 0}</td>
                      <td>
                        <StatusBadge status={t.state} />
                        {t.error?.message && <span class="error small"> {t.error.message}</span>}
                      </td>
                      <td>{t.workerAddress || '—'}</td>
                      <td>{t.description}</td>
                      <td>{b ? `${pct((b.busyMsPerSecond ?? 0) / 1000)} · ${pct((b.backPressuredMsPerSecond ?? 0) / 1000)}` : '—'}</td>
                      <td data-in-pool={b ? Math.round((b.inPoolUsage ?? 0) * 100) : undefined}>
                        {b && (b.inQueueCapacity ?? 0) > 0
                          ? `${pct(b.inPoolUsage)} (${b.inQueueBatches ?? 0}/${b.inQueueCapacity} batches)`
                          : '—'}
                      </td>
                      <td>{b ? `${pct(b.outPoolUsage)} full` : '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        );
      })}

      <h2>Rows per vertex</h2>
      {counted.length === 0 ? (
        <p>{ended ? 'the job ended: charts show a running job’s rows as they come' : 'waiting for metrics…'}</p>
      ) : (
        <div class="charts">
          <RateChart
            title="rows/s"
            testId="rate-chart"
            labels={counted.map(vertexLabel)}
            xs={series.xs}
            ys={counted.map((v) => series.rates.get(v.vertexId ?? 0)!)}
          />
          <RateChart
            title="rows"
            testId="rows-chart"
            labels={counted.map(vertexLabel)}
            xs={series.xs}
            ys={counted.map((v) => series.rows.get(v.vertexId ?? 0)!)}
          />
        </div>
      )}

      <h2>Checkpoints</h2>
      <p class="summary" data-testid="checkpoints">
        {job.completedCheckpoints ?? 0} completed · {job.failedCheckpoints ?? 0} failed · last {time(job.lastCheckpointTimeMs)}
      </p>
      {pipelines.map((p) => (
        <CheckpointsPanel pipeline={p} />
      ))}

      <h2>Fail-overs</h2>
      {(job.failovers ?? []).length === 0 ? (
        <p data-testid="failovers">none</p>
      ) : (
        <table data-testid="failovers">
          <thead>
            <tr>
              <th>time</th>
              <th>pipeline</th>
              <th>epoch</th>
              <th>cause</th>
            </tr>
          </thead>
          <tbody>
            {(job.failovers ?? []).map((f) => (
              <tr>
                <td>{time(f.timeMs)}</td>
                <td>{f.pipelineId}</td>
                <td>{f.epoch}</td>
                <td>{f.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Logs</h2>
      <LogsPanel jobId={jobId} running={!ended} />
    </section>
  );
}
