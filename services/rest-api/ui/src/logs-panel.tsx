import { useEffect, useState } from 'preact/hooks';
import { api, type JobLogs } from './api.js';

const LEVELS = ['info', 'warn', 'error'];
const POLL_MS = 2000;
/** Lines the panel keeps (the newest). */
const KEEP = 2000;

type Line = JobLogs['lines'][number];

/**
 * The job's log lines from every coordinator and worker (GetJobLogs through the REST API),
 * newest last, filtered by level; while the job runs, new lines are fetched every 2 seconds.
 * Processes that did not answer are named above the lines.
 */
export function LogsPanel({ jobId, running }: { jobId: string; running: boolean }) {
  const [level, setLevel] = useState('info');
  const [lines, setLines] = useState<Line[]>([]);
  const [missing, setMissing] = useState<JobLogs['missing']>([]);
  const [error, setError] = useState('');

  useEffect(() => {
    let stopped = false;
    let since = 0;
    let seen = new Set<string>();
    setLines([]);
    // Never rejects: a failed fetch shows its error.
    const fetchNew = async () => {
      try {
        const res = await api.logs(jobId, level, since);
        if (stopped) return;
        const fresh = res.lines.filter((l) => !seen.has(`${l.node} ${l.timeMs} ${l.msg} ${l.fields}`));
        const last = res.lines.at(-1)?.timeMs ?? since;
        seen = new Set(res.lines.filter((l) => l.timeMs === last).map((l) => `${l.node} ${l.timeMs} ${l.msg} ${l.fields}`));
        since = last;
        if (fresh.length) setLines((old) => [...old, ...fresh].slice(-KEEP));
        setMissing(res.missing);
        setError('');
      } catch (e) {
        if (!stopped) setError((e as Error).message);
      }
    };
    fetchNew().catch(() => undefined);
    const poll = () => {
      fetchNew().catch(() => undefined);
    };
    // An ended job's last lines may land just after its end: read once more.
    const timer = running ? setInterval(poll, POLL_MS) : setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [jobId, level, running]);

  return (
    <div data-testid="job-logs">
      <p class="small">
        level{' '}
        <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)} data-testid="log-level">
          {LEVELS.map((l) => (
            <option value={l}>{l}</option>
          ))}
        </select>{' '}
        · {lines.length} lines
      </p>
      {error && <p class="error">{error}</p>}
      {missing.map((m) => (
        <p class="error" data-testid="log-missing">
          no lines from {m.role} {m.node}: {m.reason}
        </p>
      ))}
      <pre class="logs">
        {lines.map((l) => (
          <div class={`log-${l.level}`}>
            {new Date(l.timeMs).toISOString().slice(11, 23)} {l.level.toUpperCase().padEnd(5)} {l.role} {l.node} {l.msg}
            {l.fields ? `  ${l.fields}` : ''}
          </div>
        ))}
      </pre>
    </div>
  );
}
