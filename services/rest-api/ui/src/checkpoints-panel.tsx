import { time, type Pipeline } from './api.js';
import { RateChart } from './rate-chart.js';
import { StatusBadge } from './status-badge.js';

function size(bytes: number | undefined): string {
  const n = bytes ?? 0;
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * One pipeline's checkpoint history (JobInfo's pipelines[].checkpointHistory, kept in the state
 * store): a chart of each checkpoint's duration and alignment by trigger time, and the table,
 * newest first.
 */
export function CheckpointsPanel({ pipeline }: { pipeline: Pipeline }) {
  const history = pipeline.checkpointHistory ?? [];
  const pid = pipeline.pipelineId ?? 0;
  const f = pipeline.checkpointInFlight;
  const inFlight = f && (
    <p class="small" data-testid={`checkpoint-in-flight-${pid}`}>
      in flight: {f.kind} {f.checkpointId ?? 0}, triggered {time(f.triggerTimeMs)}, {f.acknowledged ?? 0} of {f.total ?? 0} task groups
      acknowledged
    </p>
  );
  if (history.length === 0)
    return (
      <div data-testid={`checkpoint-history-${pid}`}>
        <p>pipeline {pid}: no checkpoint yet</p>
        {inFlight}
      </div>
    );
  const oldestFirst = [...history].reverse();
  return (
    <div class="pipeline" data-testid={`checkpoint-history-${pid}`}>
      <h3>
        pipeline {pid}{' '}
        <small>
          {pipeline.completedCheckpoints ?? 0} completed · {pipeline.failedCheckpoints ?? 0} failed · last {history.length} shown
        </small>
      </h3>
      {inFlight}
      <RateChart
        title="checkpoint duration (ms)"
        testId={`checkpoint-chart-${pid}`}
        labels={['duration', 'alignment']}
        xs={oldestFirst.map((c) => (c.triggerTimeMs ?? 0) / 1000)}
        ys={[oldestFirst.map((c) => c.durationMs ?? 0), oldestFirst.map((c) => c.alignmentMs ?? 0)]}
      />
      <table>
        <thead>
          <tr>
            <th>id</th>
            <th>kind</th>
            <th>state</th>
            <th>triggered</th>
            <th>duration</th>
            <th>alignment</th>
            <th>size</th>
            <th>failure</th>
          </tr>
        </thead>
        <tbody>
          {history.map((c) => (
            <tr data-checkpoint={c.checkpointId ?? 0}>
              <td>{c.checkpointId ?? 0}</td>
              <td>{c.kind}</td>
              <td>
                <StatusBadge status={c.state} />
              </td>
              <td>{time(c.triggerTimeMs)}</td>
              <td>{c.durationMs ?? 0} ms</td>
              <td>{c.alignmentMs ? `${c.alignmentMs} ms` : '—'}</td>
              <td>{c.state === 'COMPLETED' ? size(c.stateBytes) : '—'}</td>
              <td class="error small">{c.failureReason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
