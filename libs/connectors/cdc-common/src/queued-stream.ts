import { asError } from '@tideway/common';
import type { ChangeStream, StreamItem } from './change-stream.js';

/** Received items kept before the input is paused (backpressure). */
const HIGH_WATER = 20_000;

/**
 * The reading loop every change stream shares: items decoded from the database's connection are
 * queued as they arrive; poll() hands them out in batches, waiting a little when there are none;
 * the input is paused while the queue is full and resumed once it has drained to half. The
 * first failure ends the stream: the next poll throws it.
 */
export abstract class QueuedChangeStream<P> implements ChangeStream<P> {
  private readonly items: StreamItem<P>[] = [];
  private wake: (() => void) | undefined;
  private error: Error | undefined;
  private paused = false;

  /** Stops reading the database's connection (the queue is full). */
  protected abstract pauseInput(): void;
  /** Reads the database's connection again. */
  protected abstract resumeInput(): void;

  abstract confirm(position: P): Promise<void>;
  abstract close(): Promise<void>;

  async poll(max: number, waitMs: number): Promise<StreamItem<P>[]> {
    if (this.items.length === 0 && this.error === undefined) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
    if (this.error !== undefined) throw this.error;
    const out = this.items.length <= max ? this.items.splice(0) : this.items.splice(0, max);
    if (this.paused && this.items.length < HIGH_WATER / 2) {
      this.paused = false;
      this.resumeInput();
    }
    return out;
  }

  /** Whether the stream has failed or been closed. */
  protected get failed(): boolean {
    return this.error !== undefined;
  }

  /** Whether the input is paused because the queue is full (a hold of the input must not resume it then). */
  protected get full(): boolean {
    return this.paused;
  }

  /** How a failure of the input reads (default: as it is). */
  protected asStreamError(err: unknown): Error {
    return asError(err);
  }

  /** Ends the stream with `err` (the first failure wins); the next poll throws it. */
  protected fail(err: unknown): void {
    this.error ??= this.asStreamError(err);
    this.wake?.();
  }

  /** Marks the stream closed: a poll after close() throws `err` unless it failed before. */
  protected markClosed(err: Error): void {
    this.error ??= err;
  }

  protected push(item: StreamItem<P>): void {
    this.items.push(item);
    if (!this.paused && this.items.length >= HIGH_WATER) {
      this.paused = true;
      this.pauseInput();
    }
    this.wake?.();
  }
}
