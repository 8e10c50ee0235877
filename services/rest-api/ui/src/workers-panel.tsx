import { useEffect, useState } from 'preact/hooks';
import { api, type Overview, type Worker } from './api.js';

/** A count against its quota: `3 / 4`, or `3` when there is none (0). */
const ofQuota = (used: number | undefined, max: number | undefined) => (max ? `${used ?? 0} / ${max}` : String(used ?? 0));

/** Workers and slots (GetClusterOverview), and usage against quota per namespace, read when the page opens and on refresh. */
export function WorkersPanel() {
  const [o, setO] = useState<Overview | undefined>();
  const [error, setError] = useState('');
  const [reload, setReload] = useState(0);
  useEffect(() => {
    api.overview().then(setO, (e: Error) => setError(e.message));
  }, [reload]);
  return (
    <section>
      <h1>Workers</h1>
      <div class="toolbar">
        <button onClick={() => setReload((n) => n + 1)}>refresh</button>
      </div>
      {error && <p class="error">{error}</p>}
      {o && (
        <>
          <p class="summary" data-testid="slots">
            slots: {o.freeSlots ?? 0} free of {o.totalSlots ?? 0} · jobs: {o.runningJobs ?? 0} running, {o.pendingJobs ?? 0} pending,{' '}
            {o.finishedJobs ?? 0} finished, {o.failedJobs ?? 0} failed, {o.canceledJobs ?? 0} canceled · leader {o.leaderAddress}
          </p>
          <table>
            <thead>
              <tr>
                <th>worker</th>
                <th>address</th>
                <th>state</th>
                <th>slots used / total</th>
                <th>cores</th>
                <th>memory MB</th>
                <th>load</th>
                <th>attributes</th>
              </tr>
            </thead>
            <tbody>
              {(o.workers ?? []).map((w) => (
                <tr key={w.workerId} data-worker={w.workerId} class={w.draining ? 'draining' : undefined}>
                  <td>{w.workerId}</td>
                  <td>{w.address}</td>
                  <td data-testid="worker-state">{workerState(w)}</td>
                  <td>
                    <SlotBar used={w.usedSlots ?? 0} total={w.totalSlots ?? 0} />
                  </td>
                  <td>{w.cpuCores ?? 0}</td>
                  <td>{Math.round(w.memoryMb ?? 0)}</td>
                  <td>{(w.systemLoad ?? 0).toFixed(2)}</td>
                  <td>
                    {Object.entries(w.attributes ?? {})
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {(o.namespaces ?? []).length > 0 && (
            <table data-testid="namespaces">
              <thead>
                <tr>
                  <th>namespace</th>
                  <th>running jobs / max</th>
                  <th>slots / max</th>
                  <th>waiting</th>
                </tr>
              </thead>
              <tbody>
                {(o.namespaces ?? []).map((n) => (
                  <tr key={n.namespace ?? ''} data-namespace={n.namespace ?? ''}>
                    <td>{n.namespace || '(none)'}</td>
                    <td>{ofQuota(n.runningJobs, n.maxRunningJobs)}</td>
                    <td>{ofQuota(n.slots, n.maxSlots)}</td>
                    <td>{n.pendingJobs ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/** Whether a worker takes slots: `serving`, `draining` (tideway cluster drain), or `stopping` (SIGTERM: it drains, then exits). */
function workerState(w: Worker): string {
  if (w.stopping) return `stopping (draining, ${w.usedSlots ?? 0} slot(s) left)`;
  if (w.draining) return (w.usedSlots ?? 0) === 0 ? 'drained (empty)' : `draining (${w.usedSlots ?? 0} slot(s) left)`;
  return 'serving';
}

function SlotBar({ used, total }: { used: number; total: number }) {
  return (
    <span class="slots">
      {Array.from({ length: total }, (_, i) => (
        <span class={i < used ? 'slot used' : 'slot'} />
      ))}{' '}
      {used} / {total}
    </span>
  );
}
