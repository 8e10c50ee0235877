/** Rows per second over a sliding window, from periodic samples of a growing counter. */
export class RateTracker {
  private readonly samples: Array<{ t: number; source: number; sink: number }> = [];

  constructor(private readonly windowMs = 5000) {}

  sample(source: number, sink: number, now = Date.now()): void {
    this.samples.push({ t: now, source, sink });
    while (this.samples.length > 2 && now - this.samples[0]!.t > this.windowMs) this.samples.shift();
  }

  rates(): { sourceQps: number; sinkQps: number } {
    if (this.samples.length < 2) return { sourceQps: 0, sinkQps: 0 };
    const a = this.samples[0]!;
    const b = this.samples[this.samples.length - 1]!;
    const s = (b.t - a.t) / 1000;
    if (s <= 0) return { sourceQps: 0, sinkQps: 0 };
    return { sourceQps: (b.source - a.source) / s, sinkQps: (b.sink - a.sink) / s };
  }
}
