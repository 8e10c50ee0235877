/**
 * Per-second rates over a sliding window, from periodic samples of growing counters (rows and
 * bytes, of the job and of each table), keyed by name.
 */
export class RateTracker {
  private readonly samples: Array<{ t: number; values: ReadonlyMap<string, number> }> = [];

  constructor(private readonly windowMs = 5000) {}

  sample(values: ReadonlyMap<string, number>, now = Date.now()): void {
    this.samples.push({ t: now, values });
    while (this.samples.length > 2 && now - this.samples[0].t > this.windowMs) this.samples.shift();
  }

  /** The rate of one counter per second over the window (0 until there are two samples). */
  rate(name: string): number {
    if (this.samples.length < 2) return 0;
    const a = this.samples[0];
    const b = this.samples[this.samples.length - 1];
    const s = (b.t - a.t) / 1000;
    if (s <= 0) return 0;
    return ((b.values.get(name) ?? 0) - (a.values.get(name) ?? 0)) / s;
  }
}
