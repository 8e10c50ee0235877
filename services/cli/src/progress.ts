import { jobStatusToJSON, type JobEvent, type JobMetrics } from '@tideway/contracts';

/** A whole number with thousands separators, as en-US writes it (Intl's formatter costs ~20 ms to create at every CLI start). */
function n(v: number): string {
  return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** One progress line: status, rows read/written, rates, checkpoints. */
export function progressLine(e: JobEvent): string {
  const m = e.metrics;
  const j = e.job!;
  const parts = [`${jobStatusToJSON(j.status).padEnd(9)}`];
  if (m) {
    parts.push(`read ${n(m.sourceReceivedCount)} (${n(m.sourceReceivedQps)} rows/s)`);
    parts.push(`written ${n(m.sinkWriteCount)} (${n(m.sinkWriteQps)} rows/s)`);
  }
  if (j.completedCheckpoints > 0) parts.push(`checkpoints ${j.completedCheckpoints}`);
  return parts.join('  ');
}

/**
 * Shows a job's progress: on a terminal a line redrawn in place (stderr); elsewhere a line
 * every `everyMs` (SeaTunnel's print-job-metrics-info-interval), so logs stay quiet.
 */
export class ProgressReporter {
  private lastPrinted = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly everyMs = 60_000,
  ) {}

  update(e: JobEvent): void {
    const line = progressLine(e);
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else if (Date.now() - this.lastPrinted >= this.everyMs) {
      if (this.lastPrinted !== 0) this.out.write(`${line}\n`);
      this.lastPrinted = Date.now();
    }
  }

  done(): void {
    if (this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}

function ts(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** SeaTunnel's "Job Statistic Information" block, printed when a job ends. */
export function statisticsBlock(e: JobEvent): string {
  const j = e.job!;
  const m: JobMetrics | undefined = e.metrics;
  const start = j.startTimeMs || j.submitTimeMs;
  const end = j.finishTimeMs || Date.now();
  const row = (label: string, value: string) => `${label.padEnd(26)}: ${value.padStart(19)}`;
  const line = '*'.repeat(47);
  return [
    line,
    '           Job Statistic Information',
    line,
    row('Start Time', ts(start)),
    row('End Time', ts(end)),
    row('Total Time(s)', String(Math.round((end - start) / 1000))),
    row('Total Read Count', String(m?.sourceReceivedCount ?? 0)),
    row('Total Write Count', String(m?.sinkWriteCount ?? 0)),
    // As SeaTunnel computes it: rows read that were not written (filters count too).
    row('Total Failed Count', String(Math.max(0, (m?.sourceReceivedCount ?? 0) - (m?.sinkWriteCount ?? 0)))),
    line,
  ].join('\n');
}
