/**
 * SeaTunnel's `read_limit.rows_per_second` and `read_limit.bytes_per_second`: each source
 * reader (each thread, as SeaTunnel documents it) reads at most that much per second. After a
 * batch, `delayMs` says how long to wait so the totals since the start stay within the rates.
 */
export class ReadLimiter {
  private rows = 0;
  private bytes = 0;
  private readonly start: number;

  constructor(
    private readonly rowsPerSecond: number,
    private readonly bytesPerSecond: number,
    now = Date.now(),
  ) {
    this.start = now;
  }

  get active(): boolean {
    return this.rowsPerSecond > 0 || this.bytesPerSecond > 0;
  }

  /** Records a batch; returns the wait (ms) before the next read. */
  delayMs(rows: number, bytes: number, now = Date.now()): number {
    this.rows += rows;
    this.bytes += bytes;
    const elapsed = now - this.start;
    const byRows = this.rowsPerSecond > 0 ? (this.rows / this.rowsPerSecond) * 1000 - elapsed : 0;
    const byBytes = this.bytesPerSecond > 0 ? (this.bytes / this.bytesPerSecond) * 1000 - elapsed : 0;
    return Math.max(0, byRows, byBytes);
  }
}
