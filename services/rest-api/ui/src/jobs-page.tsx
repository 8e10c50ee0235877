import { useEffect, useState } from 'preact/hooks';
import { ENDED, api, listen, time, type JobPage, type JobRow } from './api.js';
import { StatusBadge } from './status-badge.js';

const PAGE = 50;

/** The jobs list: one page from the server, the statuses of its running jobs pushed by WatchJob. */
export function JobsPage() {
  const [state, setState] = useState('all');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<JobPage | undefined>();
  const [error, setError] = useState('');
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let gone = false;
    api.jobs(offset, PAGE, state).then(
      (p) => !gone && (setPage(p), setError('')),
      (e: Error) => !gone && setError(e.message),
    );
    return () => void (gone = true);
  }, [offset, state, reload]);

  // Live statuses of the page's jobs that have not ended.
  const live = (page?.jobs ?? []).filter((j) => !ENDED.has(j.status)).map((j) => j.jobId);
  useEffect(() => {
    if (live.length === 0) return;
    return listen<JobRow>(
      `live?jobs=${live.join(',')}`,
      (row) => setPage((p) => p && { ...p, jobs: p.jobs.map((j) => (j.jobId === row.jobId ? row : j)) }),
      setError,
    );
  }, [live.join(',')]);

  const last = page ? Math.max(0, page.total - 1) : 0;
  return (
    <section>
      <h1>Jobs</h1>
      <div class="toolbar">
        <label>
          show{' '}
          <select value={state} onChange={(e) => (setState((e.target as HTMLSelectElement).value), setOffset(0))}>
            <option value="all">all</option>
            <option value="running">not ended</option>
            <option value="ended">ended</option>
          </select>
        </label>
        <button onClick={() => setReload((n) => n + 1)}>refresh</button>
        {page && (
          <span class="pager" data-testid="pager">
            <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              ‹ newer
            </button>
            {/* The rows shown, from the page answered (not the one asked for, still on its way). */}
            {page.total === 0 ? 'no jobs' : `${page.offset + 1}–${Math.min(page.offset + page.jobs.length, page.total)} of ${page.total}`}
            <button disabled={offset + PAGE > last} onClick={() => setOffset(offset + PAGE)}>
              older ›
            </button>
          </span>
        )}
      </div>
      {error && <p class="error">{error}</p>}
      <table class="jobs">
        <thead>
          <tr>
            <th>job id</th>
            <th>name</th>
            <th>status</th>
            <th>mode</th>
            <th>submitted</th>
            <th>ended</th>
          </tr>
        </thead>
        <tbody>
          {page?.jobs.map((j) => (
            <tr key={j.jobId} data-job={j.jobId}>
              <td>
                <a href={`#/job/${j.jobId}`}>{j.jobId}</a>
              </td>
              <td>{j.jobName}</td>
              <td>
                <StatusBadge status={j.status} />
                {j.error && <span class="error small"> {j.error}</span>}
              </td>
              <td>{j.jobMode}</td>
              <td>{time(j.submitTimeMs)}</td>
              <td>{time(j.finishTimeMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
