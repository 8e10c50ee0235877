/** A job's, pipeline's or task group's status, coloured by how it stands. */
export function StatusBadge({ status }: { status?: string }) {
  const s = status ?? 'UNKNOWN';
  const tone = /FAIL/.test(s) ? 'bad' : /CANCEL|ABORTED/.test(s) ? 'off' : /FINISHED|DONE|COMPLETED/.test(s) ? 'good' : 'busy';
  return (
    <span class={`badge ${tone}`} data-status={s}>
      {s}
    </span>
  );
}
