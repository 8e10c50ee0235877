/**
 * A task group's split requests to the coordinator, one at a time per source vertex.
 *
 * A reader's register call, its own requests, its source events and the worker's poll (every
 * 200 ms while the reader waits) all ask the coordinator for the subtask's assignments. With two
 * of them in flight, their answers can be handled in the other order: a later answer "no more
 * splits" before an earlier one that carries the subtask's split. The reader, told it gets no
 * more and holding none, ends, and the job finishes FINISHED without that split's rows
 * (decision 0096 saw it when the deploy overlapped the split plan). One call at a time per vertex
 * makes the answers reach the reader in the order the coordinator gave them; a poll while a call
 * is queued or in flight adds nothing and is skipped.
 */
export class SplitRequests {
  /** Per vertex, the last call queued; gone once it has been handled. */
  private readonly tails = new Map<number, Promise<void>>();

  /** Runs `call` once the vertex's earlier calls have been answered and handled. A failed call does not stop the ones after it. */
  enqueue(vertex: number, call: () => Promise<void>): Promise<void> {
    const tail: Promise<void> = (this.tails.get(vertex) ?? Promise.resolve())
      .then(call)
      .catch(() => undefined)
      .finally(() => {
        if (this.tails.get(vertex) === tail) this.tails.delete(vertex);
      });
    this.tails.set(vertex, tail);
    return tail;
  }

  /** Whether a call of the vertex is queued or waiting for its answer. */
  busy(vertex: number): boolean {
    return this.tails.has(vertex);
  }
}
