import { performance } from 'node:perf_hooks';

/** A task group's recent time split, per second (Flink's names), and its output fill. */
export interface TaskBusynessSample {
  busyMsPerSecond: number;
  idleMsPerSecond: number;
  backPressuredMsPerSecond: number;
  /** 0 to 1: the fullest output channel's batches in flight over its credits. */
  outPoolUsage: number;
  /**
   * 0 to 1: the batches received through the shuffle and not yet processed, over what the input
   * channels hold (Flink's inPoolUsage); 0 for a task group without shuffle input.
   */
  inPoolUsage: number;
  /** Those batches, and what the input channels hold (0 and 0 without shuffle input). */
  inQueueBatches: number;
  inQueueCapacity: number;
  /**
   * Milliseconds busy, idle and back-pressured since the task group started (Flink's
   * accumulateBusyTime, accumulateIdleTime, accumulateBackPressuredTime): the difference of two
   * reports is the time split between them, however far apart they are.
   */
  accumulatedBusyMs: number;
  accumulatedIdleMs: number;
  accumulatedBackPressuredMs: number;
  /**
   * CDC sources: milliseconds from the database's commit of the newest change read to the moment
   * its rows left the task group for the sinks (fused sinks had written them); 0 while the reader
   * has caught up with the log. Absent for other sources.
   */
  eventTimeLagMs?: number;
}

/**
 * The event-time lag of a source that reports its changes' commit times (SourceReaderContext
 * reportEventTime): the newest commit time reported is held until the rows of that poll have
 * been pushed on, then measured against the clock.
 */
export class EventTimeLag {
  private pending?: number;
  private caughtUp = false;
  private lagMs?: number;
  /** The largest lag measured since the last sample, so that a sample between two changes still shows it. */
  private peakMs?: number;

  report(commitTimeMs: number | null): void {
    if (commitTimeMs === null) this.caughtUp = true;
    else {
      this.pending = Math.max(this.pending ?? commitTimeMs, commitTimeMs);
      this.caughtUp = false;
    }
  }

  /** The rows of the polls reported so far have left the task group. */
  pushed(now = Date.now()): void {
    if (this.pending !== undefined) {
      this.lagMs = Math.max(0, now - this.pending);
      this.peakMs = Math.max(this.peakMs ?? 0, this.lagMs);
      this.pending = undefined;
    } else if (this.caughtUp) this.lagMs = 0;
  }

  /**
   * The lag to report now: the largest measured since the last call, or, when no change went out
   * meanwhile, the last one (0 once caught up); undefined when the source never reported a
   * commit time.
   */
  sample(): number | undefined {
    const peak = this.peakMs;
    this.peakMs = undefined;
    return peak ?? this.lagMs;
  }
}

/** A task group's input queue now: batches waiting in it, and what its channels hold. */
export interface InputQueueFill {
  batches: number;
  capacity: number;
}

const NO_INPUT: InputQueueFill = { batches: 0, capacity: 0 };

type Waiting = 'idle' | 'backPressured';

/**
 * Where a task group's thread spends its time, as Flink measures a task: idle while it waits for
 * input (the source has nothing, no batch came through the shuffle), back-pressured while it
 * waits for a credit of a full output channel, busy otherwise (reading, transforming, writing a
 * sink, which includes a sink's own waits on its system). Waits are marked around the awaited
 * promise; overlapping waits of one kind count once, and back pressure wins over idle.
 */
export class BusyTimeMeter {
  private readonly depth = { idle: 0, backPressured: 0 };
  private readonly total = { idle: 0, backPressured: 0 };
  private state: Waiting | 'busy' = 'busy';
  private since = performance.now();
  private readonly started = performance.now();
  private last = { at: this.started, idle: 0, backPressured: 0 };

  /** Counts the time until `p` settles as a wait of this kind. */
  async waiting<T>(kind: Waiting, p: Promise<T>): Promise<T> {
    this.depth[kind]++;
    this.settle();
    try {
      return await p;
    } finally {
      this.depth[kind]--;
      this.settle();
    }
  }

  private settle(now = performance.now()): void {
    if (this.state !== 'busy') this.total[this.state] += now - this.since;
    this.since = now;
    this.state = this.depth.backPressured > 0 ? 'backPressured' : this.depth.idle > 0 ? 'idle' : 'busy';
  }

  /**
   * The shares since the last sample (a wait in progress counts up to now), per second, with the
   * fill of the output channels and of the input queue.
   */
  sample(outPoolUsage: number, input: InputQueueFill = NO_INPUT, now = performance.now()): TaskBusynessSample {
    this.settle(now);
    const elapsed = now - this.last.at;
    const per = (ms: number) => (elapsed > 0 ? Math.min(1000, Math.max(0, (ms * 1000) / elapsed)) : 0);
    const idle = per(this.total.idle - this.last.idle);
    const backPressured = per(this.total.backPressured - this.last.backPressured);
    this.last = { at: now, idle: this.total.idle, backPressured: this.total.backPressured };
    return {
      busyMsPerSecond: Math.max(0, 1000 - idle - backPressured),
      idleMsPerSecond: idle,
      backPressuredMsPerSecond: backPressured,
      outPoolUsage: Math.min(1, Math.max(0, outPoolUsage)),
      inPoolUsage: input.capacity > 0 ? Math.min(1, Math.max(0, input.batches / input.capacity)) : 0,
      inQueueBatches: input.batches,
      inQueueCapacity: input.capacity,
      accumulatedBusyMs: Math.max(0, now - this.started - this.total.idle - this.total.backPressured),
      accumulatedIdleMs: this.total.idle,
      accumulatedBackPressuredMs: this.total.backPressured,
    };
  }
}
